import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorReplies } from './reply.js';

/** The preflight answer of A6, header for header as partners expect it. */
export const PREFLIGHT_HEADERS = {
  'access-control-allow-credentials': 'true',
  'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE',
  'access-control-allow-headers': 'Origin, X-Requested-With, Content-Type, Accept, Authorization, X-Auth-Token',
  'access-control-max-age': '36',
} as const;

/**
 * A6's answer exactly, unless the browser asks to send Idempotency-Key (the widget's retries,
 * docs/lifecycle.md): then that header is allowed too.
 */
function preflightHeaders(requested: string | undefined) {
  const wantsKey = (requested ?? '').split(',').some((h) => h.trim().toLowerCase() === 'idempotency-key');
  return wantsKey
    ? {
        ...PREFLIGHT_HEADERS,
        'access-control-allow-headers': `${PREFLIGHT_HEADERS['access-control-allow-headers']}, Idempotency-Key`,
      }
    : PREFLIGHT_HEADERS;
}

/**
 * CORS for the consumer endpoints of the plugin it is added to: every answer (errors included)
 * echoes the caller's Origin, since credentials are allowed and `*` would not do for browsers;
 * each path answers its OPTIONS preflight with PREFLIGHT_HEADERS.
 */
export function publicCors(app: FastifyInstance, paths: Record<string, string>): void {
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    reply.header('access-control-allow-origin', origin ?? '*');
    if (origin) reply.header('access-control-allow-credentials', 'true');
    reply.header('vary', 'Origin');
    done();
  });
  for (const [name, url] of Object.entries(paths)) {
    const schema = {
      tags: ['public booking'],
      security: [],
      operationId: `preflight${name[0].toUpperCase()}${name.slice(1)}`,
      summary: `A6 CORS preflight of ${url.replace(/:(\w+)/g, '{$1}')}`,
      response: {
        204: Type.Null({ description: 'the Access-Control-Allow-* headers' }),
        ...errorReplies(400, 413, 415),
      },
    };
    app.options(url, { schema }, async (request, reply) =>
      reply.headers(preflightHeaders(request.headers['access-control-request-headers'])).code(204).send(),
    );
  }
}
