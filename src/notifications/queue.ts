/** The outbox as a work queue: named queries the mail worker runs, each its own short statement. */
import { ASYNC_COMMIT } from '../storage/asyncCommit.js';
import type { Queryable } from '../storage/db.js';
import { pendingByKey } from '../storage/pendingByKey.js';

export interface OutboxRow {
  id: string;
  crm_id: string | null;
  template: string;
  recipient: string;
  locale: string;
  payload: unknown;
  status: 'PENDING' | 'SENT' | 'FAILED';
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

/**
 * Takes up to `limit` due rows for this worker, the longest due first: counts the attempt and pushes
 * next_attempt_at one lease ahead, in one statement. SKIP LOCKED lets concurrent workers (other
 * instances on the same PostgreSQL database) take disjoint rows; the lease makes a row that a crashed
 * worker held due again. A new mail is due when it is written, so new mails go in the order written;
 * a retried one waits its turn from when it is due again. The order is outbox_pending_idx's, so a
 * claim reads the rows it takes, not every due one (test/integration/queue-plans.test.ts): after an
 * SMTP outage the backlog drains as fast as a short queue.
 */
export async function claimDue(db: Queryable, limit: number, leaseMs: number): Promise<OutboxRow[]> {
  const rows = await db.query<OutboxRow>(
    `UPDATE outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $2::double precision)
      WHERE id IN (SELECT id FROM outbox WHERE status = 'PENDING' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [limit, leaseMs / 1000],
  );
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
}

/**
 * Marks a sent row SENT (id; null: none) and rereads the batch's next row (nextId; null: none), in
 * one statement: one round trip per mail, right before the next one is sent. The reread gives the
 * claimed row as it is now, or null when it is gone: an erasure (docs/privacy.md) deletes the mails
 * to a person and scrubs those about them, also while a worker holds them, so the worker sends what
 * the row says at the moment of sending. The mark is at
 * asynchronous commit (ASYNC_COMMIT): lost in a crash of PostgreSQL, the mail goes out once more,
 * never is it lost.
 */
export async function markSentAndReread(
  db: Queryable,
  id: string | null,
  nextId: string | null,
): Promise<OutboxRow | null> {
  const [row] = await db.query<OutboxRow>(
    `WITH sent AS (UPDATE outbox SET status = 'SENT', sent_at = now(), last_error = NULL
                    WHERE id = $1::uuid AND ${pendingByKey()} AND ${ASYNC_COMMIT} IS NOT NULL RETURNING id)
     SELECT o.* FROM outbox o WHERE o.id = $2::uuid AND ${pendingByKey('o')}`,
    [id, nextId],
  );
  return row ?? null;
}

/** Records a failed attempt: due again after `retryInMs`, or FAILED (kept, never deleted) when `giveUp`. */
export async function markAttemptFailed(
  db: Queryable,
  id: string,
  error: string,
  retry: { giveUp: boolean; retryInMs: number },
): Promise<void> {
  await db.query(
    `UPDATE outbox SET status = CASE WHEN $3 THEN 'FAILED' ELSE 'PENDING' END,
            next_attempt_at = now() + make_interval(secs => $4::double precision), last_error = $2
      WHERE id = $1 AND ${pendingByKey()}`,
    [id, error.slice(0, 1000), retry.giveUp, retry.retryInMs / 1000],
  );
}

/** Keeps claimed rows this worker's for another `leaseMs` (it is still sending them). */
export async function renewLease(db: Queryable, ids: string[], leaseMs: number): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE outbox SET next_attempt_at = now() + make_interval(secs => $2::double precision) WHERE id = ANY($1::uuid[])
       AND ${pendingByKey()}`,
    [ids, leaseMs / 1000],
  );
}

/** Hands claimed but untried rows back at once, without counting the attempt. */
export async function release(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE outbox SET attempts = greatest(attempts - 1, 0), next_attempt_at = now() WHERE id = ANY($1::uuid[])
       AND ${pendingByKey()}`,
    [ids],
  );
}
