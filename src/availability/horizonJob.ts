/**
 * The horizon job (DESIGN.md §7.14): every day each rule's timeslots reach one date further, so
 * that they stay published HORIZON_DAYS ahead. Each rule records when it is due next
 * (next_extend_at, the start of the day in its provider's zone on which the horizon reaches its
 * next date); a run claims the due rules one by one with FOR UPDATE SKIP LOCKED, so any number of
 * instances share the work and never make one rule's dates twice, and makes every date from the
 * one after its published_until to today's horizon: days missed while no instance ran are caught
 * up at the next run. The unique index on (rule_id, start_at) makes each insert idempotent besides.
 */
import type { Clock } from '../context.js';
import { runEvery, type Periodic } from '../periodic.js';
import type { Db } from '../storage/db.js';
import { publishAhead } from './publish.js';
import { claimDueRule } from './repo.js';
import { dateIn } from './wallClock.js';

/** How often an instance looks for due rules: a rule is due once a day, at its zone's midnight. */
export const HORIZON_POLL_MS = 600_000;

/**
 * Carries every due rule's horizon forward, a rule per transaction, until none is due or
 * `stopping()`. Returns how many timeslots were made.
 */
export async function extendHorizons(db: Db, clock: Clock, stopping: () => boolean = () => false): Promise<number> {
  let made = 0;
  const done: string[] = [];
  while (!stopping()) {
    const step = await db.transaction(async (tx) => {
      const now = clock.now();
      const rule = await claimDueRule(tx, now, done);
      if (!rule) return null;
      return {
        id: rule.id,
        made: await publishAhead(tx, rule, rule.time_zone, dateIn(now, rule.time_zone), rule.published_until),
      };
    });
    if (step === null) return made;
    done.push(step.id);
    made += step.made;
  }
  return made;
}

export function startHorizonJob(
  deps: { db: Db; clock: Clock; log: { error(obj: object, msg: string): void } },
  intervalMs = HORIZON_POLL_MS,
): Periodic {
  return runEvery(
    intervalMs,
    (stopping) => extendHorizons(deps.db, deps.clock, stopping),
    (err) => deps.log.error({ err }, 'availability rule horizon job failed'),
  );
}
