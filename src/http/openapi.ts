/**
 * The last touches on the OpenAPI document @fastify/swagger builds from the route schemas: what
 * the route options cannot say by themselves.
 */
import { ERROR_MEANINGS } from './reply.js';
import { VALIDATOR_ONLY } from './requestSchema.js';

/** A route schema's mark that its request body may be left out entirely (the server takes none as {}). */
export const BODY_OPTIONAL = 'x-body-optional';

type Json = Record<string, unknown>;

/** Drops the validator-only keywords (requestSchema.ts VALIDATOR_ONLY) from every schema: no part of the contract. */
function stripRules(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) stripRules(item);
  } else if (value && typeof value === 'object') {
    for (const key of VALIDATOR_ONLY) delete (value as Json)[key];
    for (const item of Object.values(value)) stripRules(item);
  }
}

/**
 * 503 DATABASE_UNAVAILABLE with Retry-After (DESIGN.md §7.13: a restart or failover of the database)
 * on every operation that looks something up there, which are those that document 404: the same
 * error body, its own description.
 */
function addUnavailable(operation: Json): void {
  const responses = operation.responses as Record<string, Json> | undefined;
  if (!responses?.['404'] || responses['503']) return;
  const content = structuredClone(responses['404'].content) as Record<string, { schema: Json }> | undefined;
  for (const media of Object.values(content ?? {})) media.schema.description = ERROR_MEANINGS[503];
  responses['503'] = {
    description: ERROR_MEANINGS[503],
    headers: {
      'retry-after': { description: 'seconds to wait before trying again', schema: { type: 'integer' } },
    },
    ...(content ? { content } : {}),
  };
}

/** A copy with the finishing touches: the route schemas themselves (which the validators use) stay as they are. */
export function finishDocument(built: Json): Json {
  const doc = structuredClone(built);
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      if (!operation || typeof operation !== 'object') continue;
      addUnavailable(operation);
      if (operation[BODY_OPTIONAL]) {
        delete operation[BODY_OPTIONAL];
        if (operation.requestBody) (operation.requestBody as Json).required = false;
      }
    }
  }
  stripRules(doc.paths);
  return doc;
}
