import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import * as pools from '../pools/pools.js';
import { ProviderParams } from './partnerSchemas.js';
import { beyondSchema } from './requestSchema.js';
import { BODY_ERRORS, Enveloped, envelope, partnerErrors } from './reply.js';
import * as S from './poolSchemas.js';

const tags = ['Pools'];
const security = [{ apiKey: [] }];

/** Pools under /crms/{crmId}/provider/{providerRef} (DESIGN.md §7.11, docs/pools.md). */
export const poolRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const path = '/provider/:providerRef/pools';

  app.post(
    path,
    {
      schema: {
        tags,
        security,
        operationId: 'createPool',
        params: ProviderParams,
        body: S.PoolBody,
        summary: 'a pool: resources a consumer books as "whoever is free"',
        description: beyondSchema('', ...S.POOL_BEYOND_SCHEMA),
        response: { 201: Enveloped({ pool: S.Pool }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const pool = await pools.createPool(deps, request.crmId, request.params.providerRef, request.body);
      return reply.status(201).send(envelope({ pool }));
    },
  );

  app.get(
    path,
    {
      schema: {
        tags,
        security,
        operationId: 'listPools',
        summary: "the provider's pools",
        params: ProviderParams,
        response: { 200: Enveloped({ pools: Type.Array(S.Pool) }), ...partnerErrors() },
      },
    },
    async (request) => envelope({ pools: await pools.listPools(deps, request.crmId, request.params.providerRef) }),
  );

  app.get(
    `${path}/:poolRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'getPool',
        summary: 'one pool',
        params: S.PoolParams,
        response: { 200: Enveloped({ pool: S.Pool }), ...partnerErrors() },
      },
    },
    async (request) => {
      const { params } = request;
      return envelope({ pool: await pools.getPool(deps, request.crmId, params.providerRef, params.poolRef) });
    },
  );

  app.post(
    `${path}/:poolRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'changePool',
        params: S.PoolParams,
        body: S.PoolChangeBody,
        summary: 'change the given fields of a pool (members replaces the list)',
        description: beyondSchema('', ...S.POOL_BEYOND_SCHEMA.slice(0, 2)),
        response: { 200: Enveloped({ pool: S.Pool }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request) => {
      const { params } = request;
      const pool = await pools.changePool(deps, request.crmId, params.providerRef, params.poolRef, request.body);
      return envelope({ pool });
    },
  );

  app.delete(
    `${path}/:poolRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'deletePool',
        params: S.PoolParams,
        summary: 'delete a pool; bookings made through it stay',
        response: { 204: Type.Null({ description: 'deleted' }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const { params } = request;
      await pools.deletePool(deps, request.crmId, params.providerRef, params.poolRef);
      return reply.status(204).send(null);
    },
  );
};
