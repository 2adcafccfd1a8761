import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import * as rules from '../availability/rules.js';
import { ProviderParams } from './partnerSchemas.js';
import { beyondSchema } from './requestSchema.js';
import { BODY_ERRORS, Enveloped, envelope, partnerErrors } from './reply.js';
import * as S from './availabilitySchemas.js';

const tags = ['Availability rules'];
const security = [{ apiKey: [] }];

/** Availability rules under /crms/{crmId}/provider/{providerRef} (DESIGN.md §7.14). */
export const availabilityRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const path = '/provider/:providerRef/availability-rules';

  app.post(
    path,
    {
      schema: {
        tags,
        security,
        operationId: 'createAvailabilityRule',
        params: ProviderParams,
        body: S.RuleBody,
        summary: "opening hours: a rule that keeps the resource's timeslots published up to 400 days ahead",
        description: beyondSchema('', ...S.RULE_BEYOND_SCHEMA),
        response: { 201: Enveloped({ rule: S.WrittenRule }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const rule = await rules.createRule(deps, request.crmId, request.params.providerRef, request.body);
      return reply.status(201).send(envelope({ rule }));
    },
  );

  app.get(
    path,
    {
      schema: {
        tags,
        security,
        operationId: 'listAvailabilityRules',
        summary: "the provider's availability rules",
        params: ProviderParams,
        response: { 200: Enveloped({ rules: Type.Array(S.Rule) }), ...partnerErrors() },
      },
    },
    async (request) => envelope({ rules: await rules.listRules(deps, request.crmId, request.params.providerRef) }),
  );

  app.get(
    `${path}/:ruleRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'getAvailabilityRule',
        summary: 'one availability rule',
        params: S.RuleParams,
        response: { 200: Enveloped({ rule: S.Rule }), ...partnerErrors() },
      },
    },
    async (request) =>
      envelope({ rule: await rules.getRule(deps, request.crmId, request.params.providerRef, request.params.ruleRef) }),
  );

  app.post(
    `${path}/:ruleRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'changeAvailabilityRule',
        params: S.RuleParams,
        body: S.RuleChangeBody,
        summary:
          "change the given fields; dates holding a live booking or a partner's appointment keep their timeslots",
        description: beyondSchema('', ...S.RULE_BEYOND_SCHEMA),
        response: {
          200: Enveloped({ rule: S.WrittenRule, keptTimeslots: S.KeptTimeslots }),
          ...partnerErrors(...BODY_ERRORS),
        },
      },
    },
    async (request) => {
      const { params } = request;
      return envelope(await rules.changeRule(deps, request.crmId, params.providerRef, params.ruleRef, request.body));
    },
  );

  app.delete(
    `${path}/:ruleRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'deleteAvailabilityRule',
        params: S.RuleParams,
        summary:
          'delete a rule: its timeslots from today on go, except on dates holding a live booking ' +
          "or a partner's appointment",
        response: { 204: Type.Null({ description: 'deleted' }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await rules.deleteRule(deps, request.crmId, request.params.providerRef, request.params.ruleRef);
      return reply.status(204).send(null);
    },
  );
};
