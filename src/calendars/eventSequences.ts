/**
 * The SEQUENCE of an appointment's calendar event (UID = the appointment's uuid), one counter shared
 * by everything that writes that UID: the calendar feeds and the CalDAV write-back (DESIGN 7.12).
 * It starts at 0 and rises by one whenever a writer's content for the event differs from what that
 * writer showed last, also several times in one second, so a calendar that has the event from either
 * one replaces it. Each writer keeps a digest of what it showed last; one that never showed the
 * event takes the number as it stands. Values carried over from before (migration 023) may be large.
 */
import type { Queryable } from '../storage/db.js';

/** Who shows the event: a calendar feed, or the write-back into a provider's CalDAV calendar. */
export type EventWriter = 'feed' | 'write-back';

const DIGEST_COLUMN: Record<EventWriter, string> = { feed: 'content_digest', 'write-back': 'written_digest' };

/**
 * Each event's SEQUENCE for this writer, raised first for the events whose digest (of what the
 * writer shows now) differs from the one it stored. Writes only for events that changed.
 */
export async function eventSequences(
  db: Queryable,
  writer: EventWriter,
  events: { id: string; digest: string }[],
): Promise<Map<string, number>> {
  if (events.length === 0) return new Map();
  const column = DIGEST_COLUMN[writer];
  const read = (ids: string[]) =>
    db.query<{ appointment_id: string; sequence: number; digest: string | null }>(
      `SELECT appointment_id, sequence, ${column} AS digest FROM calendar_event_sequences
         WHERE appointment_id = ANY($1::uuid[])`,
      [ids],
    );
  const stored = new Map((await read(events.map((e) => e.id))).map((r) => [r.appointment_id, r]));
  const changed = events.filter((e) => stored.get(e.id)?.digest !== e.digest);
  if (changed.length > 0) {
    await db.query(
      `INSERT INTO calendar_event_sequences AS s (appointment_id, sequence, ${column})
       SELECT id, 0, digest FROM unnest($1::uuid[], $2::text[]) AS x (id, digest)
       ON CONFLICT (appointment_id) DO UPDATE
          SET sequence = s.sequence + CASE WHEN s.${column} IS NULL THEN 0 ELSE 1 END, ${column} = EXCLUDED.${column}
        WHERE s.${column} IS DISTINCT FROM EXCLUDED.${column}`,
      [changed.map((e) => e.id), changed.map((e) => e.digest)],
    );
    // what this call stored, or what another one stored for the same content meanwhile
    for (const r of await read(changed.map((e) => e.id))) stored.set(r.appointment_id, r);
  }
  return new Map([...stored].map(([id, r]) => [id, r.sequence]));
}
