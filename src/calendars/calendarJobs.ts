/**
 * The calendars' background work, safe on any number of instances: reading subscribed calendars
 * when due (each claimed with FOR UPDATE SKIP LOCKED, its next read pushed ahead as a lease, so two
 * instances never read the same one at once) and the CalDAV write-back outbox.
 */
import { runEvery, type Periodic } from '../periodic.js';
import type { CalendarDeps } from './calendarDeps.js';
import { claimDue, syncSubscription } from './subscriptions.js';
import { runWriteBacks } from './writeBack.js';

/** A read is given this long before another instance may take the subscription up again. */
const READ_LEASE_MS = 120_000;
const READ_BATCH = 5;

export async function runCalendarReads(deps: CalendarDeps, stopping: () => boolean = () => false): Promise<number> {
  let read = 0;
  while (!stopping()) {
    const due = await claimDue(deps.db, deps.clock.now(), READ_LEASE_MS, READ_BATCH);
    for (const row of due) {
      if (stopping()) return read;
      await syncSubscription(deps, row);
      read++;
    }
    if (due.length < READ_BATCH) return read;
  }
  return read;
}

export function startCalendarJobs(
  deps: CalendarDeps & { log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void } },
): Periodic {
  return runEvery(
    deps.config.calendarPollMs,
    async (stopping) => {
      await runCalendarReads(deps, stopping);
      await runWriteBacks(deps, stopping);
    },
    (err) => deps.log.error({ err }, 'calendar job failed'),
  );
}
