/**
 * Deletes expired holds and the public flow's appointments they leave empty, so an abandoned
 * reservation blocks nothing. An expired hold already counts for nothing before it is swept
 * (LIVE_PARTICIPATION_SQL); sweeping only tidies up. Appointments with any participation left,
 * whatever its state, are kept as history. The work is one statement per batch (the database
 * function sweep_expired_holds.sql); holds being converted right now are skipped.
 */
import { runEvery, type Periodic } from '../periodic.js';
import type { Queryable } from '../storage/db.js';

const BATCH = 500;

export interface SweepResult {
  holds: number;
  appointments: number;
}

/** Sweeps batch after batch until a batch comes back short, or until `stopping()` says so between batches. */
export async function sweepExpiredHolds(
  db: Queryable,
  now: Date,
  stopping: () => boolean = () => false,
): Promise<SweepResult> {
  const total: SweepResult = { holds: 0, appointments: 0 };
  for (;;) {
    const [r] = await db.query<SweepResult>('SELECT * FROM sweep_expired_holds($1, $2)', [now, BATCH]);
    total.holds += r.holds;
    total.appointments += r.appointments;
    if (r.holds < BATCH || stopping()) return total;
  }
}

/**
 * Runs the sweeper every `intervalMs` (HOLD_SWEEP_SECONDS)
 * until stopped; a failed sweep is logged and retried next time.
 */
export function startHoldSweeper(
  db: Queryable,
  log: { error(obj: unknown, msg: string): void },
  intervalMs: number,
): Periodic {
  return runEvery(
    intervalMs,
    (stopping) => sweepExpiredHolds(db, new Date(), stopping),
    (err) => log.error({ err }, 'hold sweep failed'),
  );
}
