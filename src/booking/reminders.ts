/**
 * Reminder mails (docs/lifecycle.md): one `booking-reminder` per BOOKED participation and offset
 * (REMINDER_MINUTES_BEFORE, or the provider's reminderMinutesBefore). The rows are planned by the
 * database whenever a participation becomes BOOKED or moves, and dropped when it stops being BOOKED
 * (migration 010). This job claims the due rows through their due_at index with FOR UPDATE SKIP
 * LOCKED and deletes them in the transaction that writes the mail to the outbox: exactly once,
 * across restarts and instances, and each run costs what is due, not what lies in the future.
 */
import type { Config } from '../config.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import { mailSources } from '../offerings/contact.js';
import { runEvery, type Periodic } from '../periodic.js';
import type { Db, Queryable } from '../storage/db.js';
import { appointmentIsCurrentSql } from '../scheduling/capacity.js';

const BATCH = 50;
/** A reminder leaves within this much after its time (plus the mail worker's poll). */
export const REMINDER_INTERVAL_MS = 10_000;

/** REMINDER_MINUTES_BEFORE of this instance becomes the default of providers without their own list. */
export async function applyDefaultReminders(
  db: Queryable,
  config: Pick<Config, 'reminderMinutesBefore'>,
): Promise<void> {
  await db.query('SELECT set_default_reminders($1::integer[])', [config.reminderMinutesBefore]);
}

/** Writes the mails of reminders due at `now`, a batch per transaction; returns how many were sent. */
export async function sendDueReminders(deps: { db: Db; config: Config }, now: Date): Promise<number> {
  let sent = 0;
  for (;;) {
    const { claimed, mailed } = await deps.db.transaction(async (tx) => {
      const due = await tx.query<{ participation_id: string }>(
        `DELETE FROM reminders WHERE (participation_id, minutes_before) IN (
           SELECT participation_id, minutes_before FROM reminders WHERE due_at <= $1 ORDER BY due_at LIMIT $2
             FOR UPDATE SKIP LOCKED)
         RETURNING participation_id`,
        [now, BATCH],
      );
      // still BOOKED in a live appointment that has not begun: anything else gets no reminder
      const live = await tx.query<{ id: string }>(
        `SELECT p.id FROM participations p JOIN appointments a ON a.id = p.appointment_id
          WHERE p.id = ANY($1::uuid[]) AND p.state = 'BOOKED' AND ${appointmentIsCurrentSql('a')} AND a.start_at > $2`,
        [due.map((d) => d.participation_id), now],
      );
      const liveIds = new Set(live.map((l) => l.id));
      let mailed = 0;
      for (const d of due) {
        if (!liveIds.has(d.participation_id)) continue;
        await enqueueParticipationMails(tx, mailSources(deps.config), d.participation_id, ['booking-reminder']);
        mailed++;
      }
      return { claimed: due.length, mailed };
    });
    sent += mailed;
    if (claimed < BATCH) return sent;
  }
}

export function startReminderJob(
  deps: { db: Db; config: Config; log: { error(obj: unknown, msg: string): void } },
  intervalMs = REMINDER_INTERVAL_MS,
): Periodic {
  return runEvery(
    intervalMs,
    () => sendDueReminders(deps, new Date()),
    (err) => deps.log.error({ err }, 'reminder run failed'),
  );
}
