import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

/**
 * With CANONICAL_HOST=www.example.com, a request to example.com (the canonical name without its
 * first label) is answered 301 to the same path on the canonical host.
 */
export function canonicalHostRedirect(app: FastifyInstance, config: Config): void {
  const canonical = config.canonicalHost;
  if (!canonical) return;
  const bare = canonical.split('.').slice(1).join('.');
  if (!bare) return;
  app.addHook('onRequest', async (request, reply) => {
    const host = (request.headers.host ?? '').toLowerCase();
    const [name, port] = host.split(':');
    if (name !== bare.toLowerCase()) return;
    const target = `${request.protocol}://${canonical}${port ? `:${port}` : ''}${request.url}`;
    return reply.redirect(target, 301);
  });
}
