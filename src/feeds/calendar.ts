/**
 * A feed's iCalendar text (RFC 5545) from its rows and their SEQUENCE numbers: pure, no I/O, no
 * clock, so the same rows always give the same bytes (the ETag depends on it).
 */
import { createHash } from 'node:crypto';
import ical, { ICalEventStatus } from 'ical-generator';
import { calendarText } from '../notifications/icsText.js';
import { addressText } from '../notifications/compose.js';
import { answerLines, storedAnswers } from '../notifications/answers.js';
import type { MailLocale } from '../notifications/format.js';
import type { FeedEventRow } from './repo.js';

const WORDS: Record<
  MailLocale,
  { lang: MailLocale; appointment: string; participants: string; requested: string; unnamed: string }
> = {
  de: {
    lang: 'de',
    appointment: 'Termin',
    participants: 'Teilnehmende',
    requested: 'angefragt, noch nicht bestätigt',
    unnamed: 'ohne Namen',
  },
  en: {
    lang: 'en',
    appointment: 'Appointment',
    participants: 'Participants',
    requested: 'requested, not yet confirmed',
    unnamed: 'no name',
  },
};

/** Calendar apps that honour it look again after this long (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 15 * 60;

/** The UID of an appointment's event: the appointment's uuid, the same in every feed and forever. */
export const eventUid = (appointmentId: string) => appointmentId;

function summary(row: FeedEventRow, w: (typeof WORDS)[MailLocale]): string {
  const resource =
    row.resource_public_name && row.resource_internal_name && row.resource_internal_name !== row.resource_public_name
      ? `${row.resource_public_name} (${row.resource_internal_name})`
      : (row.resource_public_name ?? row.resource_internal_name);
  return [row.product_name ?? w.appointment, resource].filter(Boolean).join(' – ');
}

function description(row: FeedEventRow, w: (typeof WORDS)[MailLocale]): string | null {
  if (row.people.length === 0) return null;
  const lines = row.people.map((p) =>
    [
      `- ${p.name ?? w.unnamed}${p.state === 'REQUESTED' ? ` (${w.requested})` : ''}`,
      ...answerLines(storedAnswers(p.answers), w.lang).map((l) => `  ${l}`),
    ].join('\n'),
  );
  return `${w.participants}:\n${lines.join('\n')}`;
}

/**
 * TENTATIVE while every live participation is still a request, else CONFIRMED (an appointment
 * the partner created without participants is confirmed: the provider set it up).
 */
function status(row: FeedEventRow): ICalEventStatus {
  return row.people.length > 0 && row.people.every((p) => p.state === 'REQUESTED')
    ? ICalEventStatus.TENTATIVE
    : ICalEventStatus.CONFIRMED;
}

/** What an event shows (in any language), as a digest: another digest is another version of the event. */
export const contentDigest = (row: FeedEventRow) =>
  createHash('sha256').update(JSON.stringify(row)).digest('base64url');

/**
 * `sequences`: each event's SEQUENCE (calendars/eventSequences.ts, shared with the CalDAV
 * write-back), rising with every change of its content, also several in one second, so calendar
 * apps replace the entry they have instead of adding another. Lines are folded at 75 octets of UTF-8.
 */
export function renderFeed(
  name: string,
  rows: FeedEventRow[],
  locale: MailLocale,
  sequences: ReadonlyMap<string, number> = new Map(),
): string {
  const w = WORDS[locale];
  const calendar = ical({
    name,
    prodId: { company: 'booking-service', product: 'calendar-feed', language: locale.toUpperCase() },
    ttl: REFRESH_SECONDS,
  });
  for (const row of rows) {
    calendar.createEvent({
      id: eventUid(row.id),
      sequence: sequences.get(row.id) ?? 0,
      stamp: row.changed_at,
      created: row.created_at,
      lastModified: row.changed_at,
      start: row.start_at,
      end: row.end_at,
      summary: summary(row, w),
      description: description(row, w),
      location: addressText(row.address),
      status: status(row),
    });
  }
  // RFC 5545 ends every content line with CRLF, the last one too; the library leaves that one bare
  const text = calendarText(calendar);
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}
