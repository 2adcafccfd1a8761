/**
 * The Idempotency-Key header on A2, A3 and reschedule (docs/lifecycle.md): route hooks around the
 * handler. The key is claimed after validation (a 400 from the schema never touches it), the
 * handler runs only for a claim, and its answer is stored unless it is 400 or 429. A retry with the
 * same key, method, path and body gets the stored status and body with `Idempotent-Replayed: true`;
 * another body is 422, and a retry while the first request still runs is 409.
 *
 * A handler whose work is one transaction writes its answer under the key inside that transaction
 * (answerWithin): when the commit's outcome is unknown (a 503, DESIGN.md §7.13) and it did commit,
 * a retry replays that answer instead of running again.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { Deps } from '../context.js';
import { DomainError } from '../errors.js';
import { envelope } from './reply.js';
import { DatabaseUnavailableError } from '../storage/hosts.js';
import {
  claimKey,
  type KeepAnswer,
  type KeyClaim,
  releaseKey,
  RUN_LEASE_MS,
  storeAnswer,
  type KeyScope,
} from '../storage/idempotencyKeys.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/**
 * 503: the database was away, and the outcome may be unknown (DESIGN.md §7.13): a retry runs again,
 * unless the answer was written with the work (answerWithin) and that did commit.
 */
const NOT_STORED = new Set([400, 429, 503]);
/** A key whose release failed (the database away) is released again this often until its lease ends. */
const RELEASE_RETRY_MS = 1_000;
/** The header's form, which the route schemas publish: 1 to 255 visible ASCII characters, bare or in quotes. */
export const IDEMPOTENCY_KEY_PATTERN = '^(?:[\\x21-\\x7e]{1,255}|"[\\x21-\\x7e]{1,255}")$';
export const IDEMPOTENCY_KEY_RULE = 'must be 1 to 255 visible ASCII characters (bare, or in double quotes)';

/**
 * The header's key (its form checked by the route schema): a structured-field string ("...") or, as
 * most clients send it, the bare token.
 */
export function parseKey(raw: string | string[] | undefined): string | null {
  if (raw === undefined) return null;
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  return /^"(.+)"$/.exec(value)?.[1] ?? value;
}

/** Key order does not matter; the same content is the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** What makes two requests under one key "the same": query and body, by content. */
export const requestFingerprint = (query: unknown, body: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(canonical({ query: query ?? {}, body: body ?? null })))
    .digest('base64url');

/** The key each running request holds. */
const claims = new WeakMap<FastifyRequest, KeyScope>();
/** The status of the answer a request wrote under its key in its own transaction (answerWithin). */
const kept = new WeakMap<FastifyRequest, number>();
/** What Fastify sends an object as. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * For a request that holds a key (else undefined): a function that writes the answer under the key
 * in the transaction that does the request's work, last before COMMIT, so the key's answer commits
 * with the work or not at all. The answer is the transaction's result in the envelope, sent with
 * `status`, serialized as the route serializes it: a replay is the same bytes.
 */
export function answerWithin(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
): KeepAnswer<object> | undefined {
  const scope = claims.get(request);
  if (!scope) return undefined;
  return async (tx, result) => {
    reply.code(status);
    const body = reply.serialize(envelope(result));
    await storeAnswer(tx, scope, { status, contentType: JSON_TYPE, body: String(body) });
    kept.set(request, status);
  };
}

export function idempotencyHooks(deps: Deps): { preHandler: preHandlerAsyncHookHandler; onSend: onSendHookHandler } {
  async function preHandler(request: FastifyRequest, reply: FastifyReply) {
    const key = parseKey(request.headers[IDEMPOTENCY_HEADER]);
    if (!key) return;
    const scope: KeyScope = { method: request.method, path: request.url.split('?')[0], key };
    const now = deps.clock.now();
    let claim: KeyClaim;
    try {
      claim = await claimKey(deps.db, scope, requestFingerprint(request.query, request.body), now);
    } catch (err) {
      // the database went away while claiming (a commit whose wait for the standby was cancelled):
      // the claim may be stored though the request is answered 503; a retry must not find it running
      if (err instanceof DatabaseUnavailableError) releaseSoon(scope, now);
      throw err;
    }
    switch (claim.kind) {
      case 'run':
        claims.set(request, scope);
        return;
      case 'replay':
        reply.code(claim.status).header('idempotent-replayed', 'true');
        if (claim.contentType) reply.type(claim.contentType);
        return reply.send(claim.body);
      case 'reused':
        throw new DomainError(
          'IDEMPOTENCY_KEY_REUSED',
          'this Idempotency-Key was used with another request body; use a new key for a new request',
        );
      case 'in-use':
        reply.header('retry-after', '1');
        throw new DomainError(
          'IDEMPOTENCY_KEY_IN_USE',
          'a request with this Idempotency-Key is still being processed; retry shortly',
        );
    }
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const scope = claims.get(request);
    if (!scope) return payload;
    claims.delete(request);
    // stored with the work (answerWithin), which committed: nothing left to do
    if (kept.get(request) === reply.statusCode) return payload;
    try {
      // a 503 after the answer was written with the work: when that committed, the release leaves it stored
      if (NOT_STORED.has(reply.statusCode)) releaseSoon(scope);
      else {
        const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
        const contentType = reply.getHeader('content-type');
        await storeAnswer(deps.db, scope, {
          status: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body,
        });
      }
    } catch (err) {
      // the answer still goes out; a retry finds the key running until its lease ends
      request.log.error({ err }, 'idempotency key could not be updated');
    }
    return payload;
  }

  /**
   * Frees the key for the next try. After a 503 the database is away: the release is tried again
   * every second until it works or the key's lease ends (then a retry may run anyway), so that a
   * retry after the failover runs instead of waiting a whole lease. `claimedAt`: only the claim made
   * then (a claim whose outcome is not known).
   */
  function releaseSoon(scope: KeyScope, claimedAt?: Date, until = Date.now() + RUN_LEASE_MS): void {
    releaseKey(deps.db, scope, claimedAt).catch(() => {
      if (Date.now() + RELEASE_RETRY_MS < until)
        setTimeout(() => releaseSoon(scope, claimedAt, until), RELEASE_RETRY_MS).unref();
    });
  }

  return { preHandler, onSend };
}
