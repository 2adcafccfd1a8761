/**
 * Idempotency keys (docs/lifecycle.md, IETF httpapi draft), kept in the database so every instance sees
 * them: per method, path and key the fingerprint of the first request and, once it has finished,
 * its answer. See migration 010.
 */
import type { Queryable } from './db.js';

export const KEY_LIFETIME_MS = 24 * 3_600_000;
/** A first request that has not finished by then is taken as dead (crashed instance): its key may run again. */
export const RUN_LEASE_MS = 60_000;

export interface KeyScope {
  method: string;
  path: string;
  key: string;
}

/** Writes a request's answer under its key inside the transaction `tx` that does its work (http/idempotency.ts). */
export type KeepAnswer<T> = (tx: Queryable, result: T) => Promise<void>;

export type KeyClaim =
  | { kind: 'run' }
  | { kind: 'replay'; status: number; contentType: string | null; body: string }
  | { kind: 'reused' }
  | { kind: 'in-use' };

interface StoredKey {
  fingerprint: string;
  status: number | null;
  content_type: string | null;
  body: string | null;
}

/**
 * Claims the key for a request with this fingerprint: 'run' when it is new, expired, or its first
 * request died with the same fingerprint; otherwise what the stored row says.
 */
export async function claimKey(db: Queryable, scope: KeyScope, fingerprint: string, now: Date): Promise<KeyClaim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = await db.query(
      `INSERT INTO idempotency_keys AS k (method, path, key, fingerprint, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, $5::timestamptz + make_interval(secs => $6), $5::timestamptz + make_interval(secs => $7))
       ON CONFLICT (method, path, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, status = NULL, content_type = NULL, body = NULL,
             locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= $5 OR (k.status IS NULL AND k.locked_until <= $5 AND k.fingerprint = EXCLUDED.fingerprint)
       RETURNING 1`,
      [scope.method, scope.path, scope.key, fingerprint, now, RUN_LEASE_MS / 1000, KEY_LIFETIME_MS / 1000],
    );
    if (taken.length > 0) return { kind: 'run' };
    const [row] = await db.query<StoredKey>(
      `SELECT fingerprint, status, content_type, body FROM idempotency_keys
        WHERE method = $1 AND path = $2 AND key = $3`,
      [scope.method, scope.path, scope.key],
    );
    if (!row) continue; // purged between the two statements: claim again
    if (row.fingerprint !== fingerprint) return { kind: 'reused' };
    if (row.status === null) return { kind: 'in-use' };
    return { kind: 'replay', status: row.status, contentType: row.content_type, body: row.body ?? '' };
  }
  return { kind: 'in-use' };
}

/** The first request's answer, replayed from now on. */
export async function storeAnswer(
  db: Queryable,
  scope: KeyScope,
  answer: { status: number; contentType: string | null; body: string },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET status = $4, content_type = $5, body = $6
      WHERE method = $1 AND path = $2 AND key = $3 AND status IS NULL`,
    [scope.method, scope.path, scope.key, answer.status, answer.contentType, answer.body],
  );
}

/**
 * An answer that is not kept (400, 429, 503): the key is free for the next try. `claimedAt`: only
 * the claim made by claimKey at that time (its lease ends RUN_LEASE_MS after it), for a claim whose
 * outcome is not known: another request's claim of the key is left alone.
 */
export async function releaseKey(db: Queryable, scope: KeyScope, claimedAt?: Date): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys WHERE method = $1 AND path = $2 AND key = $3 AND status IS NULL
        AND ($4::timestamptz IS NULL OR locked_until = $4::timestamptz + make_interval(secs => $5))`,
    [scope.method, scope.path, scope.key, claimedAt ?? null, RUN_LEASE_MS / 1000],
  );
}

/** Deletes expired keys, a batch at a time; returns how many went. */
export async function purgeExpiredKeys(db: Queryable, now: Date, batch = 1000): Promise<number> {
  const rows = await db.query(
    `DELETE FROM idempotency_keys WHERE (method, path, key) IN (
       SELECT method, path, key FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING 1`,
    [now, batch],
  );
  return rows.length;
}
