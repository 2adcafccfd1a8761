/**
 * PERSONAL_DATA_RETENTION_DAYS (docs/privacy.md): the personal data of participations whose
 * appointment ended longer ago than that is erased as an erasure request would (erase.ts), a batch
 * per transaction. Safe on any number of instances: each batch claims its participations with
 * FOR UPDATE SKIP LOCKED (another instance takes other rows), and the customers and users it would
 * anonymize are locked in id order and checked after the lock, so two instances finishing one
 * person's last old bookings at once never both leave the person behind. A booking waits for no
 * batch: batches lock only old participations and the customers being anonymized.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { runEvery, type Periodic } from '../periodic.js';
import type { Db, Queryable } from '../storage/db.js';
import { erasePersonalData, type ErasedCounts } from './erase.js';

/**
 * Participations per batch (one transaction, about 0.4 s beside the bench's 100,000 on a loaded
 * machine: docs/performance.md). Each mail and event is scrubbed of its own person's data only
 * (erasure_needles), so a batch's cost grows with its size, not with its square.
 */
export const RETENTION_BATCH = 100;

interface Claimed {
  id: string;
  crm_id: string;
  customer_id: string | null;
  end_at: Date;
  appointment_id: string;
}

/** One batch after the cursor: erased participations, and where the next batch starts. */
async function eraseBatch(tx: Queryable, cutoff: Date, cursor: { endAt: Date; appointmentId: string }, batch: number) {
  const claimed = await tx.query<Claimed>(
    `SELECT p.id, p.crm_id, p.customer_id, a.end_at, a.id AS appointment_id
       FROM appointments a JOIN participations p ON p.appointment_id = a.id AND p.erased_at IS NULL
      WHERE a.end_at < $1 AND (a.end_at, a.id) >= ($2::timestamptz, $3::uuid)
      ORDER BY a.end_at, a.id LIMIT $4
        FOR UPDATE OF p SKIP LOCKED`,
    [cutoff, cursor.endAt, cursor.appointmentId, batch],
  );
  const byCrm = new Map<string, Claimed[]>();
  for (const row of claimed) byCrm.set(row.crm_id, [...(byCrm.get(row.crm_id) ?? []), row]);
  let erased = 0;
  for (const [crmId, rows] of byCrm) erased += (await eraseOfCrm(tx, crmId, rows)).participations;
  const last = claimed.at(-1);
  return {
    erased,
    done: claimed.length < batch,
    next: last ? { endAt: last.end_at, appointmentId: last.appointment_id } : cursor,
  };
}

/** The batch's participations of one crm, with the customers and users left with nothing newer. */
async function eraseOfCrm(tx: Queryable, crmId: string, rows: Claimed[]): Promise<ErasedCounts> {
  const participationIds = rows.map((r) => r.id);
  const candidates = [...new Set(rows.map((r) => r.customer_id).filter((c): c is string => c !== null))];
  await tx.query('SELECT 1 FROM customers WHERE id = ANY ($1::uuid[]) ORDER BY id FOR UPDATE', [candidates]);
  const customers = await tx.query<{ id: string; user_id: string | null }>(
    `SELECT c.id, c.user_id FROM customers c
      WHERE c.id = ANY ($1::uuid[]) AND c.erased_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM participations x WHERE x.customer_id = c.id AND x.erased_at IS NULL
          AND NOT x.id = ANY ($2::uuid[]))`,
    [candidates, participationIds],
  );
  const customerIds = customers.map((c) => c.id);
  const userCandidates = [...new Set(customers.map((c) => c.user_id).filter((u): u is string => u !== null))];
  await tx.query('SELECT 1 FROM users WHERE id = ANY ($1::uuid[]) ORDER BY id FOR UPDATE', [userCandidates]);
  const users = await tx.query<{ id: string }>(
    `SELECT u.id FROM users u
      WHERE u.id = ANY ($1::uuid[]) AND NOT user_has_partner_role(u.id)
        AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.user_id = u.id AND c.erased_at IS NULL
          AND NOT c.id = ANY ($2::uuid[]))`,
    [userCandidates, customerIds],
  );
  return erasePersonalData(tx, crmId, 'retention', {
    participationIds,
    customerIds,
    userIds: users.map((u) => u.id),
    needles: [],
  });
}

/**
 * Erases what ended before `cutoff`, batch by batch, until nothing is left or `stopping()`;
 * returns the number of participations erased.
 */
export async function eraseExpiredPersonalData(
  db: Db,
  cutoff: Date,
  options: { batch?: number; stopping?: () => boolean } = {},
): Promise<number> {
  let cursor = { endAt: new Date(0), appointmentId: '00000000-0000-0000-0000-000000000000' };
  let total = 0;
  for (;;) {
    const step = await db.transaction((tx) => eraseBatch(tx, cutoff, cursor, options.batch ?? RETENTION_BATCH));
    total += step.erased;
    cursor = step.next;
    if (step.done || options.stopping?.()) return total;
  }
}

export const retentionCutoff = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000);

/** The retention job, when PERSONAL_DATA_RETENTION_DAYS is set. */
export function startRetentionJob(deps: { config: Config; db: Db; log: FastifyBaseLogger }): Periodic | null {
  const { config, db, log } = deps;
  const days = config.personalDataRetentionDays;
  if (days === undefined) return null;
  return runEvery(
    config.retentionSweepMs,
    async (stopping) => {
      const erased = await eraseExpiredPersonalData(db, retentionCutoff(new Date(), days), { stopping });
      if (erased > 0)
        log.info(
          { participations: erased, retentionDays: days },
          'retention: personal data of past participations erased',
        );
    },
    (err) => log.error({ err }, 'retention job failed'),
  );
}
