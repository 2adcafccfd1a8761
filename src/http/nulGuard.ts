import type { FastifyInstance } from 'fastify';
import { invalid } from '../errors.js';

/** The first field (e.g. "body.timeslots.0.reference") whose text holds a NUL character, or null. */
function nulField(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  // for...in over the own keys: it runs on every request, and Object.entries would build an array per object
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (key.includes('\u0000')) return `${path}.${key}`;
    if (typeof item === 'string' ? item.includes('\u0000') : item !== null && typeof item === 'object') {
      const found = nulField(item, `${path}.${key}`, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold NUL (U+0000): such input would fail in the database as a 500.
 * It is a 400 naming the field instead, before validation and every lookup.
 */
export function rejectNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const field =
      nulField(request.params, 'params') ?? nulField(request.query, 'query') ?? nulField(request.body, 'body');
    done(field ? invalid(`${field} must not contain NUL characters`) : undefined);
  });
}
