/**
 * calendarText (src/notifications/icsText.ts): the text ical-generator's toString() gives, folded at
 * 75 octets of UTF-8 instead of by the library, for calendars as the mails, feeds and write-back
 * make them: one event or many, multi-byte text across fold points, long lines.
 */
import ical, { ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { describe, expect, it } from 'vitest';
import { calendarText } from '../../src/notifications/icsText.js';

const unfold = (text: string) => text.replace(/\r\n[ \t]/g, '');
const LONG = 'Ihr Termin bei Salon Müller – Haarschnitt 💇 am Montag, 1. Juni 2026, 10:00–10:30 Uhr. '.repeat(4);

function mailCalendar() {
  const calendar = ical({
    prodId: { company: 'booking-service', product: 'mail', language: 'EN' },
    method: ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: 'p-1@booking',
    sequence: 2,
    stamp: new Date('2026-05-01T08:00:00Z'),
    start: new Date('2026-06-01T08:00:00Z'),
    end: new Date('2026-06-01T08:30:00Z'),
    summary: 'Haarschnitt – Salon Müller',
    description: LONG,
    location: 'Hauptstraße 1, 10115 Berlin',
    organizer: { name: 'Salon Müller', email: 'salon@example.com' },
    attendees: [{ name: 'Érika Ñandú', email: 'erika@example.com', status: ICalAttendeeStatus.ACCEPTED }],
  });
  return calendar;
}

function feedCalendar(events: number) {
  const calendar = ical({
    name: 'Salon Müller – Termine',
    prodId: { company: 'booking-service', product: 'calendar-feed', language: 'DE' },
    ttl: 900,
  });
  for (let i = 0; i < events; i++)
    calendar.createEvent({
      id: `a-${i}@booking`,
      stamp: new Date('2026-05-01T08:00:00Z'),
      start: new Date(Date.UTC(2026, 5, 1 + i, 8)),
      end: new Date(Date.UTC(2026, 5, 1 + i, 9)),
      summary: `Termin ${i} 📅`,
      description: LONG.slice(i),
      status: ICalEventStatus.CONFIRMED,
    });
  return calendar;
}

describe('calendarText', () => {
  it.each([
    ['a mail', mailCalendar],
    ['a feed of 40 events', () => feedCalendar(40)],
    ['a feed without events', () => feedCalendar(0)],
  ])("gives the library's content lines for %s, folded at 75 octets", (_name, make) => {
    const text = calendarText(make());
    expect(unfold(text)).toBe(unfold(make().toString()));
    const lines = text.split('\r\n');
    for (const line of lines) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
    // never inside a character: every line is whole UTF-8 (a split surrogate pair would be U+FFFD)
    for (const line of lines) expect(Buffer.from(line, 'utf8').toString('utf8')).not.toContain('\uFFFD');
    expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    expect(text.endsWith('END:VCALENDAR')).toBe(true);
  });

  it('keeps the events of the calendar it writes', () => {
    const calendar = feedCalendar(3);
    calendarText(calendar);
    expect(calendar.events()).toHaveLength(3);
    expect(unfold(calendarText(calendar))).toBe(unfold(calendar.toString()));
  });
});
