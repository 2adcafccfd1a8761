import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import type { Lifecycle } from '../lifecycle.js';
import type { SharedCounters } from '../storage/redis.js';
import { errorBody, UNAVAILABLE_RETRY_AFTER_S } from './errors.js';
import { errorReplies } from './reply.js';

export interface HealthOptions {
  deps: Deps;
  lifecycle: Lifecycle;
  counters: SharedCounters | undefined;
}

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  database: Type.String(),
  redis: Type.Union([Type.Literal('ok'), Type.Literal('unreachable'), Type.Literal('none')], {
    description: 'the shared counters (REDIS_URL): none when unset; unreachable: served without shared limits',
  }),
});

export const healthRoutes: FastifyPluginAsyncTypebox<HealthOptions> = async (app, { deps, lifecycle, counters }) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        security: [],
        operationId: 'getHealth',
        summary: 'liveness: the process answers',
        response: { 200: Type.Object({ status: Type.String() }) },
      },
    },
    async () => ({ status: 'ok' }),
  );
  // Not ready: draining, or the database is gone. A lost Redis is reported but keeps the instance
  // ready: every instance shares that Redis, and taking them all out would turn lost limits into an outage.
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        security: [],
        operationId: 'getReadiness',
        summary: 'readiness: not draining and the database answers',
        response: { 200: Readiness, ...errorReplies(503) },
      },
    },
    async (_request, reply) => {
      if (lifecycle.draining) return reply.status(503).send(errorBody('UNAVAILABLE', 'shutting down'));
      try {
        await deps.db.query('SELECT 1');
      } catch {
        // no host that accepts writes (DESIGN.md §7.13): taken out until the new primary answers
        return reply
          .status(503)
          .header('retry-after', UNAVAILABLE_RETRY_AFTER_S)
          .send(errorBody('UNAVAILABLE', 'database unreachable, or no database host accepts writes'));
      }
      if (counters && !(await counters.check()))
        return { status: 'degraded' as const, database: deps.db.kind, redis: 'unreachable' as const };
      return { status: 'ok' as const, database: deps.db.kind, redis: counters ? ('ok' as const) : ('none' as const) };
    },
  );
};
