import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.js';

/**
 * JSON bodies, with one leniency: an empty body is "no body". Several endpoints (active_products,
 * public_data) take none, and clients still send Content-Type: application/json.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new DomainError('VALIDATION', 'body is not valid JSON'), undefined);
    }
  });
}
