import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import { ErrorResponse } from './reply.js';

export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], response: { 200: Type.Object({ status: Type.String() }) } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        response: { 200: Type.Object({ status: Type.String(), database: Type.String() }), 503: ErrorResponse },
      },
    },
    async (_request, reply) => {
      try {
        await deps.db.query('SELECT 1');
        return { status: 'ok', database: deps.db.kind };
      } catch {
        return reply.status(503).send({ 'api-info': { version: '1' }, errors: [{ errorCode: 'UNAVAILABLE', message: 'database unreachable' }] });
      }
    },
  );
};
