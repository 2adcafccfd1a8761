/** Webhook deliveries as a work queue: named queries the worker runs, each its own short statement. */
import { ASYNC_COMMIT } from '../storage/asyncCommit.js';
import type { Queryable } from '../storage/db.js';
import { pendingByKey } from '../storage/pendingByKey.js';

export interface DueDelivery {
  subscription_id: string;
  event_id: string;
  type: string;
  body: string;
  url: string;
  /** the secrets to sign with: the current one, and the previous one during its 24 h after a rotation */
  secrets: string[];
  /** attempts so far, this one included */
  attempts: number;
  last_chance: boolean;
}

export interface ClaimLimits {
  /** subscriptions served in this claim, those with the oldest due deliveries first */
  endpoints: number;
  /** due deliveries per subscription: the bound of concurrent requests to one receiver */
  perEndpoint: number;
  leaseMs: number;
  /** subscriptions this worker is still sending to: not claimed for now */
  busy: string[];
}

/**
 * Takes due deliveries for this worker, at most perEndpoint per subscription, oldest due first: counts the attempt
 * and leases each row (next_attempt_at one lease ahead) in one statement. SKIP LOCKED lets workers
 * of other instances take disjoint rows; a crashed worker's rows are due again when the lease ends.
 * Every step reads pending rows in the order of webhook_deliveries_due_seq_idx (migration 027) and
 * stops at what it takes, so a claim costs the same with 10 or 10,000 waiting
 * (test/integration/queue-plans.test.ts).
 */
export async function claimDue(db: Queryable, l: ClaimLimits): Promise<DueDelivery[]> {
  const rows = await db.query<DueDelivery & { due_at: Date; seq: number }>(
    `WITH picked AS (
       SELECT s.id FROM webhook_subscriptions s
        CROSS JOIN LATERAL (
          SELECT x.next_attempt_at FROM webhook_deliveries x WHERE x.subscription_id = s.id AND x.status = 'PENDING'
           ORDER BY x.next_attempt_at LIMIT 1) first
        WHERE NOT (s.id = ANY($4::uuid[])) AND first.next_attempt_at <= now()
        ORDER BY first.next_attempt_at
        LIMIT $1),
     due AS (
       SELECT d.subscription_id, d.event_id, d.due_at, d.seq FROM picked p
        CROSS JOIN LATERAL (
          SELECT x.subscription_id, x.event_id, x.next_attempt_at AS due_at, x.seq FROM webhook_deliveries x
           WHERE x.subscription_id = p.id AND x.status = 'PENDING' AND x.next_attempt_at <= now()
           ORDER BY x.next_attempt_at, x.seq LIMIT $2 FOR UPDATE SKIP LOCKED) d)
     UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1, last_attempt_at = now(),
          next_attempt_at = now() + make_interval(secs => $3::double precision)
       FROM due, webhook_events e, webhook_subscriptions s
      WHERE d.subscription_id = due.subscription_id AND d.event_id = due.event_id AND e.id = d.event_id
        AND s.id = d.subscription_id
      RETURNING d.subscription_id, d.event_id, due.due_at, due.seq, e.type, e.body, s.url, d.attempts, d.last_chance,
                array_remove(ARRAY[s.secret,
                                   CASE WHEN s.previous_secret_until > now() THEN s.previous_secret END],
                             NULL) AS secrets`,
    [l.endpoints, l.perEndpoint, l.leaseMs / 1000, l.busy],
  );
  // in the order they were due (RETURNING keeps none): a subscription's lanes take them in turn
  return rows
    .sort((a, b) => a.due_at.getTime() - b.due_at.getTime() || Number(a.seq) - Number(b.seq))
    .map(({ due_at: _due, seq: _seq, ...d }) => d);
}

type Key = Pick<DueDelivery, 'subscription_id' | 'event_id'>;

/**
 * Records the answered deliveries of one claim in one statement, at asynchronous commit
 * (ASYNC_COMMIT), as a mail's SENT mark: lost in a crash of PostgreSQL, a delivery goes out once
 * more with the same webhook-id (at least once), never is it lost.
 */
export async function markSucceeded(db: Queryable, done: { delivery: Key; status: number }[]): Promise<void> {
  if (done.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries d SET status = 'SUCCEEDED', response_status = v.status, last_error = NULL
       FROM unnest($1::uuid[], $2::uuid[], $3::int[]) AS v (subscription_id, event_id, status)
      WHERE d.subscription_id = v.subscription_id AND d.event_id = v.event_id AND ${pendingByKey('d')}
        AND ${ASYNC_COMMIT} IS NOT NULL`,
    [done.map((x) => x.delivery.subscription_id), done.map((x) => x.delivery.event_id), done.map((x) => x.status)],
  );
}

/** Records a failed attempt: due again after `retryInMs`, or FAILED (kept) when `giveUp`. */
export async function markFailed(
  db: Queryable,
  d: Key,
  r: { status: number | null; error: string; giveUp: boolean; retryInMs: number },
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
        SET status = CASE WHEN $5 THEN 'FAILED' ELSE 'PENDING' END, response_status = $3, last_error = $4,
            next_attempt_at = now() + make_interval(secs => $6::double precision)
      WHERE subscription_id = $1 AND event_id = $2 AND ${pendingByKey()}`,
    [d.subscription_id, d.event_id, r.status, r.error.slice(0, 1000), r.giveUp, r.retryInMs / 1000],
  );
}

/** Hands a claimed row back at once without counting the attempt (the worker stopped before it was answered). */
export async function release(db: Queryable, d: Key): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET attempts = greatest(attempts - 1, 0), next_attempt_at = now()
      WHERE subscription_id = $1 AND event_id = $2 AND ${pendingByKey()}`,
    [d.subscription_id, d.event_id],
  );
}

/** Seconds since the oldest PENDING delivery's event was written; 0 when none is pending. */
export async function oldestPendingSeconds(db: Queryable): Promise<number> {
  const [r] = await db.query<{ age: number | null }>(
    `SELECT extract(epoch FROM now() - min(created_at))::float8 AS age FROM webhook_deliveries
       WHERE status = 'PENDING'`,
  );
  return Math.max(0, r?.age ?? 0);
}
