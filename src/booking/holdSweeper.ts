/**
 * Deletes expired holds, then the upcoming appointments the public flow created that were left with
 * no participation at all (their only holds expired), so an abandoned reservation blocks nothing.
 * An expired hold already counts for nothing before it is swept (LIVE_PARTICIPATION_SQL); sweeping
 * only tidies up. Appointments with any participation, whatever its state, are kept as history.
 */
import { lockAppointment, lockResource } from '../scheduling/capacity.js';
import type { Db } from '../storage/db.js';

const BATCH = 500;

export interface SweepResult {
  holds: number;
  appointments: number;
}

export async function sweepExpiredHolds(db: Db, now: Date): Promise<SweepResult> {
  const holds = await db.query<{ id: string }>(
    `DELETE FROM participations WHERE id IN (
       SELECT id FROM participations WHERE state = 'RESERVED' AND hold_until <= $1 ORDER BY hold_until LIMIT ${BATCH})
     RETURNING id`,
    [now],
  );
  const empty = await db.query<{ id: string; resource_id: string }>(
    `SELECT a.id, a.resource_id FROM appointments a
      WHERE a.created_by_public_flow AND a.end_at > $1 AND a.resource_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM participations p WHERE p.appointment_id = a.id)
      LIMIT ${BATCH}`,
    [now],
  );
  let appointments = 0;
  for (const a of empty) {
    // The kernel's lock order: a reservation joining this appointment right now holds the resource
    // lock, and the NOT EXISTS below runs after it has committed its participation.
    appointments += await db.transaction(async (tx) => {
      await lockResource(tx, a.resource_id);
      if (!(await lockAppointment(tx, a.id))) return 0;
      const gone = await tx.query(
        'DELETE FROM appointments WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM participations WHERE appointment_id = $1) RETURNING id',
        [a.id],
      );
      return gone.length;
    });
  }
  return { holds: holds.length, appointments };
}

export const SWEEP_INTERVAL_MS = 15_000;

/** Runs the sweeper every SWEEP_INTERVAL_MS until stopped; a failed sweep is logged and retried next time. */
export function startHoldSweeper(db: Db, log: { error(obj: unknown, msg: string): void }, intervalMs = SWEEP_INTERVAL_MS) {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return; // the previous sweep is still at work
    running = sweepExpiredHolds(db, new Date())
      .catch((err) => log.error({ err }, 'hold sweep failed'))
      .finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
