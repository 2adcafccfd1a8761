import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import { authenticate } from '../partners/apiKeys.js';
import type { Db } from '../storage/db.js';

declare module 'fastify' {
  interface FastifyRequest {
    crmId: string;
  }
}

/**
 * Guards every route of the plugin it is added to: X-SERVICE-CLIENT-ID must be a live key of the
 * path's crmId. 401 for a missing or unknown key, 403 for a key of another partner.
 */
export function requireApiKey(app: FastifyInstance, db: Db): void {
  app.decorateRequest('crmId', '');
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const presented = request.headers['x-service-client-id'];
    if (typeof presented !== 'string' || presented === '') {
      throw new DomainError('UNAUTHORIZED', 'X-SERVICE-CLIENT-ID header with an API key is required');
    }
    const crmId = await authenticate(db, presented);
    if (crmId === null) throw new DomainError('UNAUTHORIZED', 'the API key in X-SERVICE-CLIENT-ID is not valid');
    const pathCrm = (request.params as { crmId?: string }).crmId;
    if (pathCrm !== crmId) throw new DomainError('FORBIDDEN', `the API key does not belong to crm ${pathCrm}`);
    request.crmId = crmId;
  });
}
