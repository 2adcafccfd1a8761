import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import * as accounts from '../partners/accounts.js';
import * as providers from '../partners/providers.js';
import * as staff from '../partners/staff.js';
import * as users from '../partners/users.js';
import * as S from './partnerSchemas.js';
import { BODY_ERRORS, Enveloped, envelope, errorReplies, partnerErrors } from './reply.js';
import { beyondSchema, PathSegment, ProviderPath } from './requestSchema.js';

const tags = ['C. Initial setup'];
const security = [{ apiKey: [] }];
/** The one rule of C5 and its PUT the schema cannot state (partnerSchemas.ts TIME_ZONE_PATTERN says why). */
const ZONE_RULE = beyondSchema(
  '',
  'timeZone must name a zone of the IANA tz database this server knows (an alias such as UTC counts)',
);

/** PLAY_LANG cookie: overrides the language of a newly created user (C1 rule 4). */
function playLang(cookie: string | undefined): string | undefined {
  const match = /(?:^|;\s*)PLAY_LANG=([^;]+)/.exec(cookie ?? '');
  const value = match ? decodeURIComponent(match[1]).trim().slice(0, 2).toLowerCase() : '';
  return /^[a-z]{2}$/.test(value) ? value : undefined;
}

export const partnerRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // *Read: 200 only (GET, PUT); *Reply: 201 created or 200 existing (POST)
  const userRead = { 200: Enveloped({ user: S.User }), ...partnerErrors() };
  const userUpdate = { ...userRead, ...partnerErrors(409, ...BODY_ERRORS) };
  // C1 names no other record: never 404
  const userReply = {
    200: Enveloped({ user: S.User }),
    201: Enveloped({ user: S.User }),
    ...errorReplies(400, 401, 403, 409, ...BODY_ERRORS),
  };
  const accountRead = { 200: Enveloped({ account: S.Account }), ...partnerErrors() };
  const accountUpdate = { ...accountRead, ...partnerErrors(...BODY_ERRORS) };
  const accountReply = { ...accountUpdate, 201: Enveloped({ account: S.Account }) };
  const providerRead = { 200: Enveloped({ provider: S.Provider }), ...partnerErrors() };
  const providerUpdate = { ...providerRead, ...partnerErrors(...BODY_ERRORS) };
  const providerReply = { ...providerUpdate, 201: Enveloped({ provider: S.Provider }) };

  app.post(
    '/user',
    {
      schema: {
        tags,
        security,
        operationId: 'createUser',
        summary: 'C1 create or update a user',
        params: S.CrmParams,
        body: S.UserBody,
        response: userReply,
      },
    },
    async (request, reply) => {
      const result = await users.upsertUser(deps, request.crmId, request.body, playLang(request.headers.cookie));
      return reply.status(result.created ? 201 : 200).send(envelope({ user: result.user }));
    },
  );

  app.get(
    '/user/:reference',
    {
      schema: {
        tags,
        security,
        operationId: 'getUser',
        summary: 'C2 read a user',
        params: S.RefParams,
        response: userRead,
      },
    },
    async (request) => envelope({ user: await users.getUser(deps, request.crmId, request.params.reference) }),
  );

  app.put(
    '/user/:reference',
    {
      schema: {
        tags,
        security,
        operationId: 'updateUser',
        summary: 'update a user (given fields only)',
        params: S.RefParams,
        body: S.UserUpdateBody,
        response: userUpdate,
      },
    },
    async (request) =>
      envelope({ user: await users.updateUser(deps, request.crmId, request.params.reference, request.body) }),
  );

  app.post(
    '/account',
    {
      schema: {
        tags,
        security,
        operationId: 'createAccount',
        summary: 'C3 create an account',
        params: S.CrmParams,
        body: S.AccountBody,
        response: accountReply,
      },
    },
    async (request, reply) => {
      const result = await accounts.upsertAccount(deps, request.crmId, request.body);
      return reply.status(result.created ? 201 : 200).send(envelope({ account: result.account }));
    },
  );

  app.get(
    '/account/:reference',
    {
      schema: {
        tags,
        security,
        operationId: 'getAccount',
        summary: 'C4 read an account',
        params: S.RefParams,
        response: accountRead,
      },
    },
    async (request) => envelope({ account: await accounts.getAccount(deps, request.crmId, request.params.reference) }),
  );

  app.put(
    '/account/:reference',
    {
      schema: {
        tags,
        security,
        operationId: 'updateAccount',
        summary: 'update an account (given fields only)',
        params: S.RefParams,
        body: S.AccountUpdateBody,
        response: accountUpdate,
      },
    },
    async (request) =>
      envelope({ account: await accounts.updateAccount(deps, request.crmId, request.params.reference, request.body) }),
  );

  const createProvider = {
    tags,
    security,
    operationId: 'createProvider',
    summary: 'C5 create a provider',
    description: ZONE_RULE,
    params: S.CrmParams,
    body: S.ProviderBody,
    response: providerReply,
  };
  app.post('/provider', { schema: createProvider }, async (request, reply) => {
    const result = await providers.createProvider(deps, request.crmId, request.body);
    return reply.status(result.created ? 201 : 200).send(envelope({ provider: result.provider }));
  });

  app.get(
    '/provider/:reference',
    {
      schema: {
        tags,
        security,
        operationId: 'getProvider',
        summary: 'C6 read a provider',
        params: S.RefParams,
        response: providerRead,
      },
    },
    async (request) =>
      envelope({ provider: await providers.getProvider(deps, request.crmId, request.params.reference) }),
  );

  const updateProvider = {
    tags,
    security,
    operationId: 'updateProvider',
    summary: 'update a provider (given fields only)',
    description: ZONE_RULE,
    params: S.RefParams,
    body: S.ProviderUpdateBody,
    response: providerUpdate,
  };
  app.put('/provider/:reference', { schema: updateProvider }, async (request) =>
    envelope({ provider: await providers.updateProvider(deps, request.crmId, request.params.reference, request.body) }),
  );

  app.get(
    '/provider/:providerRef/staff',
    {
      schema: {
        tags,
        security,
        operationId: 'listStaff',
        summary: 'C7 list staff (bare array)',
        params: S.ProviderParams,
        response: { 200: Type.Array(S.Staff), ...partnerErrors() },
      },
    },
    async (request) => staff.listStaff(deps, request.crmId, request.params.providerRef),
  );

  app.post(
    '/provider/:providerRef/staff',
    {
      schema: {
        tags,
        security,
        operationId: 'addStaff',
        summary: 'add a staff member',
        params: S.ProviderParams,
        body: Type.Object({ userReference: Type.String({ minLength: 1 }) }),
        response: {
          200: Enveloped({ staff: S.Staff }),
          201: Enveloped({ staff: S.Staff }),
          ...partnerErrors(...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const result = await staff.addStaff(deps, request.crmId, request.params.providerRef, request.body.userReference);
      return reply.status(result.added ? 201 : 200).send(envelope({ staff: result.staff }));
    },
  );

  app.delete(
    '/provider/:providerRef/staff/:userRef',
    {
      schema: {
        tags,
        security,
        operationId: 'removeStaff',
        summary: 'remove a staff member (409 for the provider owner)',
        params: ProviderPath({ userRef: PathSegment() }),
        response: { 204: Type.Null({ description: 'removed' }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await staff.removeStaff(deps, request.crmId, request.params.providerRef, request.params.userRef);
      return reply.status(204).send(null);
    },
  );
};
