/**
 * CalDAV write-back (DESIGN.md §7.6): each appointment of a covered resource with a REQUESTED or
 * BOOKED participation is an event in the provider's CalDAV calendar (UID = the appointment's id,
 * as in the feed; TENTATIVE while only requested, CONFIRMED once booked; no consumer e-mail or
 * mobile, no names), updated when it changes and removed when nothing live is left. The outbox
 * calendar_writes is filled by triggers (calendar_write_enqueue.sql); this worker brings each
 * marked appointment's event up to date, and retries with backoff while the calendar is down.
 */
import { createHash } from 'node:crypto';
import ical, { ICalEventStatus } from 'ical-generator';
import { calendarText } from '../notifications/icsText.js';
import type { CalendarDeps } from './calendarDeps.js';
import { eventSequences } from './eventSequences.js';
import type { Queryable } from '../storage/db.js';
import { appointmentIsCurrentSql } from '../scheduling/capacity.js';
import { deleteEvent, putEvent } from './caldav.js';

const MAX_BACKOFF_MS = 3_600_000;
const BATCH = 20;

/**
 * Marks every appointment of the subscription's resources that has
 * a REQUESTED or BOOKED participation (a new CalDAV subscription).
 */
export async function enqueueWriteBacksOf(tx: Queryable, subscriptionId: string, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO calendar_writes (subscription_id, appointment_id)
     SELECT s.id, a.id FROM calendar_subscriptions s
       JOIN appointments a ON a.provider_id = s.provider_id AND (s.resource_id IS NULL OR a.resource_id = s.resource_id)
      WHERE s.id = $1 AND ${appointmentIsCurrentSql('a')} AND a.end_at > $2
        AND EXISTS (SELECT 1 FROM participations p WHERE p.appointment_id = a.id AND p.state IN ('REQUESTED', 'BOOKED'))
     ON CONFLICT DO NOTHING`,
    [subscriptionId, now],
  );
}

interface Claimed {
  subscription_id: string;
  appointment_id: string;
  version: string;
  attempts: number;
  url: string;
  username: string | null;
  password: string | null;
}

interface Wanted {
  start_at: Date;
  end_at: Date;
  title: string;
  booked: number;
  requested: number;
}

/** The event the appointment should have, or null when it should have none. */
async function wantedEvent(db: Queryable, appointmentId: string): Promise<Wanted | null> {
  const [row] = await db.query<Wanted>(
    `SELECT a.start_at, a.end_at, COALESCE(a.product_name, pr.name, a.reference) AS title,
            count(*) FILTER (WHERE p.state = 'BOOKED')::int AS booked,
              count(*) FILTER (WHERE p.state = 'REQUESTED')::int AS requested
       FROM appointments a LEFT JOIN products pr ON pr.id = a.product_id
       JOIN participations p ON p.appointment_id = a.id AND p.state IN ('REQUESTED', 'BOOKED')
      WHERE a.id = $1 AND ${appointmentIsCurrentSql('a')}
      GROUP BY a.id, pr.name`,
    [appointmentId],
  );
  return row ?? null;
}

/**
 * The iCalendar object written for an appointment: times, title and counts only. `sequence`: the
 * event's SEQUENCE, shared with the calendar feeds (eventSequences.ts).
 */
export function writeBackEvent(appointmentId: string, w: Wanted, now: Date, sequence: number): string {
  const calendar = ical({ prodId: { company: 'booking-service', product: 'write-back' } });
  const counts = [w.booked ? `${w.booked} booked` : null, w.requested ? `${w.requested} requested` : null]
    .filter(Boolean)
    .join(', ');
  calendar.createEvent({
    id: appointmentId,
    sequence,
    stamp: now,
    start: w.start_at,
    end: w.end_at,
    summary: w.title,
    description: counts,
    status: w.booked > 0 ? ICalEventStatus.CONFIRMED : ICalEventStatus.TENTATIVE,
  });
  return calendarText(calendar);
}

/** The event as the calendar should have it now, with the SEQUENCE of that version. */
async function eventText(db: Queryable, appointmentId: string, w: Wanted, now: Date): Promise<string> {
  const digest = createHash('sha256').update(JSON.stringify(w)).digest('base64url');
  const sequences = await eventSequences(db, 'write-back', [{ id: appointmentId, digest }]);
  return writeBackEvent(appointmentId, w, now, sequences.get(appointmentId) ?? 0);
}

/** Claims due outbox rows (their due time pushed ahead as a lease) and writes them; returns how many were done. */
export async function runWriteBacks(deps: CalendarDeps, stopping: () => boolean = () => false): Promise<number> {
  const { db, config } = deps;
  const now = deps.clock.now();
  const claimed = await db.query<Claimed>(
    `UPDATE calendar_writes w SET due_at = $2, attempts = w.attempts + 1
       FROM (SELECT subscription_id, appointment_id FROM calendar_writes WHERE due_at <= $1 ORDER BY due_at LIMIT $3
         FOR UPDATE SKIP LOCKED) c,
            calendar_subscriptions s
      WHERE w.subscription_id = c.subscription_id AND w.appointment_id = c.appointment_id AND s.id = w.subscription_id
      RETURNING w.subscription_id, w.appointment_id, w.version::text AS version, w.attempts, s.url, s.username,
        s.password`,
    [now, new Date(now.getTime() + 60_000), BATCH],
  );
  let done = 0;
  for (const c of claimed) {
    if (stopping()) break;
    const account = { url: c.url, username: c.username ?? '', password: c.password ?? '' };
    const key = [c.subscription_id, c.appointment_id, c.version];
    try {
      const wanted = await wantedEvent(db, c.appointment_id);
      if (wanted)
        await putEvent(account, c.appointment_id, await eventText(db, c.appointment_id, wanted, now), {
          allowPrivate: config.calendarAllowPrivateNetworks,
        });
      else await deleteEvent(account, c.appointment_id, { allowPrivate: config.calendarAllowPrivateNetworks });
      await db.query(
        'DELETE FROM calendar_writes WHERE subscription_id = $1 AND appointment_id = $2 AND version = $3',
        key,
      );
      done++;
    } catch (err) {
      const wait = Math.min(config.calendarPollMs * 2 ** Math.min(c.attempts - 1, 20), MAX_BACKOFF_MS);
      const message = err instanceof Error ? err.message : String(err);
      deps.log?.warn(
        { subscription: c.subscription_id, appointment: c.appointment_id, attempts: c.attempts, error: message },
        'calendar write-back failed; retrying later',
      );
      await db.query(
        `UPDATE calendar_writes SET due_at = $4, last_error = $5
          WHERE subscription_id = $1 AND appointment_id = $2 AND version = $3`,
        [...key, new Date(now.getTime() + wait), message],
      );
    }
  }
  return done;
}
