/**
 * Reading a calendar into busy intervals (DESIGN.md §7.6): hand-written calendars in the shapes
 * Google, Outlook/Exchange, iCloud and Nextcloud export, each busy instant asserted exactly. Every
 * case runs with the process in three time zones: the result must not depend on TZ.
 */
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IANAZone } from 'luxon';
import { busyIntervals, CalendarFormatError, type BusyOptions } from '../../src/calendars/busyIntervals.js';
import { ianaOfWindowsZone, WINDOWS_ZONE_NAMES } from '../../src/calendars/windowsZones.js';
import { mergeIntervals } from '../../src/calendars/intervals.js';
import { StepBudget } from '../../src/calendars/expand.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/calendars/${name}`, import.meta.url), 'utf8');

/** Intervals as ISO pairs, for readable failures. */
const iso = (intervals: { startMs: number; endMs: number }[]) =>
  intervals.map((i) => `${new Date(i.startMs).toISOString()} / ${new Date(i.endMs).toISOString()}`);
const read = (
  ics: string,
  providerZone: string,
  from: string,
  to: string,
  isOwnUid: BusyOptions['isOwnUid'] = () => false,
) => iso(busyIntervals(ics, { providerZone, fromMs: Date.parse(from), toMs: Date.parse(to), isOwnUid }));

/** A one-event calendar. */
const calendar = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...lines, 'END:VCALENDAR'].join('\r\n');
const event = (...lines: string[]) => ['BEGIN:VEVENT', 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT'];

/**
 * process.env.TZ reaches Date and Intl on a process's main thread only: where these tests run in a
 * worker thread (Stryker's vitest runner, npm run mutate, always uses one) they run once, in the
 * zone the process already has.
 */
const ZONES = isMainThread
  ? ['America/New_York', 'Asia/Tokyo', 'UTC']
  : [new Intl.DateTimeFormat().resolvedOptions().timeZone];

describe.each(ZONES)('with the process in %s', (tz) => {
  const before = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = tz;
  });
  afterAll(() => {
    // unset stays unset: "undefined" would be a zone for the next file of this process
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });

  it('the process really runs in that zone', () => {
    const at = Date.UTC(2026, 0, 15);
    expect(new Date(at).getTimezoneOffset()).toBe(-IANAZone.create(tz).offset(at) || 0);
  });

  it('reads a Google export: weekly, EXDATE, UNTIL over the spring change, UTC, all-day dates, transparent', () => {
    expect(read(fixture('google.ics'), 'Europe/Berlin', '2026-03-01T00:00Z', '2026-11-01T00:00Z')).toEqual([
      '2026-03-16T08:00:00.000Z / 2026-03-16T09:00:00.000Z', // Monday 09:00 CET
      '2026-03-18T13:00:00.000Z / 2026-03-18T14:30:00.000Z', // UTC times as given
      '2026-03-23T08:00:00.000Z / 2026-03-23T09:00:00.000Z',
      '2026-03-27T07:30:00.000Z / 2026-03-27T07:45:00.000Z', // daily COUNT=4 over the change on the 29th
      '2026-03-28T07:30:00.000Z / 2026-03-28T07:45:00.000Z',
      '2026-03-29T06:30:00.000Z / 2026-03-29T06:45:00.000Z', // 08:30 CEST
      '2026-03-30T06:30:00.000Z / 2026-03-30T06:45:00.000Z', // (the Monday meeting of the 30th is an EXDATE)
      '2026-04-02T22:00:00.000Z / 2026-04-03T22:00:00.000Z', // all-day Good Friday, Berlin's day
      '2026-04-06T07:00:00.000Z / 2026-04-06T08:00:00.000Z', // Monday 09:00 CEST; the 13th is past UNTIL
      '2026-10-23T22:00:00.000Z / 2026-10-25T23:00:00.000Z', // two all-day days over the autumn change: 49 hours
    ]);
  });

  it('reads the same all-day dates as whole days of another provider zone', () => {
    const ics = calendar(...event('UID:d', 'DTSTART;VALUE=DATE:20260403', 'DTEND;VALUE=DATE:20260404'));
    expect(read(ics, 'America/New_York', '2026-03-01T00:00Z', '2026-05-01T00:00Z')).toEqual([
      '2026-04-03T04:00:00.000Z / 2026-04-04T04:00:00.000Z',
    ]);
    expect(read(ics, 'Australia/Sydney', '2026-03-01T00:00Z', '2026-05-01T00:00Z')).toEqual([
      '2026-04-02T13:00:00.000Z / 2026-04-03T13:00:00.000Z',
    ]);
  });

  it('reads an Outlook export: Windows zones with VTIMEZONE, a moved instance, free, tentative, no VTIMEZONE', () => {
    expect(read(fixture('outlook.ics'), 'Europe/Berlin', '2026-10-01T00:00Z', '2026-12-01T00:00Z')).toEqual([
      '2026-10-20T12:00:00.000Z / 2026-10-20T13:00:00.000Z', // Tuesday 14:00 CEST
      // tentative (OPAQUE) blocks; the free one of the 21st does not
      '2026-10-22T08:00:00.000Z / 2026-10-22T09:00:00.000Z',
      '2026-10-25T23:00:00.000Z / 2026-10-26T23:00:00.000Z', // all-day out of office, Berlin's day
      '2026-10-27T13:00:00.000Z / 2026-10-27T14:00:00.000Z', // Tuesday 14:00 CET
      '2026-10-29T13:00:00.000Z / 2026-10-29T14:00:00.000Z', // "Eastern Standard Time", no VTIMEZONE: New York (EDT)
      '2026-11-03T15:00:00.000Z / 2026-11-03T15:30:00.000Z', // the third Tuesday, moved to 16:00-16:30
    ]);
  });

  it('reads an iCloud export: overrides move one instance, cancel another; a transparent one frees it', () => {
    expect(read(fixture('icloud.ics'), 'America/New_York', '2026-10-01T00:00Z', '2026-12-01T00:00Z')).toEqual([
      '2026-10-28T14:00:00.000Z / 2026-10-28T15:00:00.000Z', // Wednesday 10:00 EDT
      '2026-11-02T17:00:00.000Z / 2026-11-02T17:30:00.000Z', // lunch; the 3rd's is transparent
      '2026-11-05T19:00:00.000Z / 2026-11-05T20:00:00.000Z', // the 4th's moved to Thursday 14:00 EST
      '2026-11-18T15:00:00.000Z / 2026-11-18T16:00:00.000Z', // the 11th's cancelled; 10:00 EST
      '2026-11-26T05:00:00.000Z / 2026-11-27T05:00:00.000Z', // Thanksgiving, New York's day
    ]);
  });

  it('reads a Nextcloud export: floating times, RDATE, DURATION, a TZID without VTIMEZONE, an unknown TZID', () => {
    expect(read(fixture('nextcloud.ics'), 'Europe/Berlin', '2026-06-01T00:00Z', '2026-11-01T00:00Z')).toEqual([
      '2026-06-10T06:00:00.000Z / 2026-06-10T07:30:00.000Z', // floating 08:00 + PT1H30M, Berlin summer time
      '2026-06-11T13:00:00.000Z / 2026-06-11T14:00:00.000Z', // TZID=Europe/Berlin with no VTIMEZONE: still Berlin
      '2026-06-12T06:00:00.000Z / 2026-06-12T07:30:00.000Z', // RDATE
      '2026-06-15T12:00:00.000Z / 2026-06-15T13:30:00.000Z', // RDATE at another hour
      '2026-06-16T07:00:00.000Z / 2026-06-16T08:00:00.000Z', // TZID=Custom Zone: unknown, the provider's zone
      '2026-06-19T22:00:00.000Z / 2026-06-21T22:00:00.000Z', // all-day with DURATION:P2D
      '2026-06-22T08:00:00.000Z / 2026-06-22T09:00:00.000Z', // floating weekly; the 29th is an EXDATE
      '2026-07-06T08:00:00.000Z / 2026-07-06T09:00:00.000Z',
      // DURATION:P1D over the autumn change: a wall-clock day, 25 hours
      '2026-10-24T10:00:00.000Z / 2026-10-25T11:00:00.000Z',
    ]);
  });

  it('reads floating times in whichever zone the provider has', () => {
    const [first] = read(fixture('nextcloud.ics'), 'America/New_York', '2026-06-01T00:00Z', '2026-11-01T00:00Z');
    expect(first).toBe('2026-06-10T12:00:00.000Z / 2026-06-10T13:30:00.000Z');
  });

  it('only a VTIMEZONE defines a TZID: a TZID property elsewhere leaves the Windows name to be resolved', () => {
    const ics = calendar(
      ...event(
        'UID:w',
        'TZID:Eastern Standard Time',
        'DTSTART;TZID=Eastern Standard Time:20261029T090000',
        'DTEND;TZID=Eastern Standard Time:20261029T100000',
      ),
    );
    expect(read(ics, 'Europe/Berlin', '2026-10-01T00:00Z', '2026-11-01T00:00Z')).toEqual([
      '2026-10-29T13:00:00.000Z / 2026-10-29T14:00:00.000Z',
    ]);
  });

  it('reads a calendar whose VTIMEZONE lacks its TZID, times in UTC with any TZID as UTC', () => {
    const ics = calendar(
      'BEGIN:VTIMEZONE',
      'BEGIN:STANDARD',
      'DTSTART:19701025T030000',
      'TZOFFSETFROM:+0200',
      'TZOFFSETTO:+0100',
      'END:STANDARD',
      'END:VTIMEZONE',
      ...event('UID:u', 'DTSTART;TZID=America/New_York:20260601T080000Z', 'DTEND:20260601T090000Z'),
    );
    expect(read(ics, 'Asia/Tokyo', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
    ]);
  });

  it('a cancelled event and a cancelled series never block', () => {
    expect(read(fixture('cancelled.ics'), 'Europe/Berlin', '2026-06-01T00:00Z', '2026-08-01T00:00Z')).toEqual([]);
  });

  it('a transparent event and a transparent series never block', () => {
    expect(read(fixture('transparent.ics'), 'Europe/Berlin', '2026-06-01T00:00Z', '2026-08-01T00:00Z')).toEqual([]);
  });
});

describe('busyIntervals', () => {
  it("never counts events whose UID is one of this service's own", () => {
    const own = new Set(['5m2q8v0a1lq0b7h3r2c9k6d4e1@google.com', '7h8j9k0l1z2x3c4v5b6n7m8q9w@google.com']);
    const busy = read(fixture('google.ics'), 'Europe/Berlin', '2026-03-01T00:00Z', '2026-05-01T00:00Z', (uid) =>
      own.has(uid),
    );
    expect(busy).toEqual([
      '2026-03-18T13:00:00.000Z / 2026-03-18T14:30:00.000Z',
      '2026-03-27T07:30:00.000Z / 2026-03-27T07:45:00.000Z',
      '2026-03-28T07:30:00.000Z / 2026-03-28T07:45:00.000Z',
      '2026-03-29T06:30:00.000Z / 2026-03-29T06:45:00.000Z',
      '2026-03-30T06:30:00.000Z / 2026-03-30T06:45:00.000Z',
    ]);
  });

  it('clips to the window and keeps an instance that started before it', () => {
    const ics = calendar(...event('UID:a', 'DTSTART:20260601T220000Z', 'DTEND:20260602T020000Z', 'RRULE:FREQ=DAILY'));
    expect(read(ics, 'UTC', '2026-06-03T00:00Z', '2026-06-04T23:00Z')).toEqual([
      '2026-06-03T00:00:00.000Z / 2026-06-03T02:00:00.000Z',
      '2026-06-03T22:00:00.000Z / 2026-06-04T02:00:00.000Z',
      '2026-06-04T22:00:00.000Z / 2026-06-04T23:00:00.000Z',
    ]);
  });

  it('merges overlapping and touching events', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z'),
      ...event('UID:b', 'DTSTART:20260601T090000Z', 'DTEND:20260601T093000Z'),
      ...event('UID:c', 'DTSTART:20260601T082000Z', 'DTEND:20260601T084000Z'),
      ...event('UID:d', 'DTSTART:20260601T100000Z', 'DTEND:20260601T110000Z'),
    );
    expect(read(ics, 'UTC', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:30:00.000Z',
      '2026-06-01T10:00:00.000Z / 2026-06-01T11:00:00.000Z',
    ]);
  });

  it('expands an endless rule that began years ago only within the window', () => {
    const ics = calendar(
      ...event(
        'UID:a',
        'DTSTART;TZID=Europe/Berlin:20150105T090000',
        'DTEND;TZID=Europe/Berlin:20150105T100000',
        'RRULE:FREQ=WEEKLY;BYDAY=MO',
      ),
    );
    expect(read(ics, 'Europe/Berlin', '2026-03-20T00:00Z', '2026-04-10T00:00Z')).toEqual([
      '2026-03-23T08:00:00.000Z / 2026-03-23T09:00:00.000Z',
      '2026-03-30T07:00:00.000Z / 2026-03-30T08:00:00.000Z',
      '2026-04-06T07:00:00.000Z / 2026-04-06T08:00:00.000Z',
    ]);
  });

  it('ends a COUNT series begun years ago at its last instance, and expands a monthly one begun years ago', () => {
    const ics = calendar(
      ...event(
        'UID:c',
        'DTSTART;TZID=Europe/Berlin:20200106T090000',
        'DTEND;TZID=Europe/Berlin:20200106T093000',
        'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=330',
      ),
      ...event(
        'UID:m',
        'DTSTART;TZID=Europe/Berlin:20180315T100000',
        'DTEND;TZID=Europe/Berlin:20180315T110000',
        'RRULE:FREQ=MONTHLY',
      ),
    );
    expect(read(ics, 'Europe/Berlin', '2026-03-12T00:00Z', '2026-05-20T00:00Z')).toEqual([
      '2026-03-15T09:00:00.000Z / 2026-03-15T10:00:00.000Z', // monthly, 10:00 CET
      '2026-03-16T08:00:00.000Z / 2026-03-16T08:30:00.000Z', // weekly, 09:00 CET
      '2026-03-23T08:00:00.000Z / 2026-03-23T08:30:00.000Z',
      '2026-03-30T07:00:00.000Z / 2026-03-30T07:30:00.000Z', // 09:00 CEST
      '2026-04-06T07:00:00.000Z / 2026-04-06T07:30:00.000Z',
      '2026-04-13T07:00:00.000Z / 2026-04-13T07:30:00.000Z',
      '2026-04-15T08:00:00.000Z / 2026-04-15T09:00:00.000Z', // monthly, 10:00 CEST
      '2026-04-20T07:00:00.000Z / 2026-04-20T07:30:00.000Z',
      '2026-04-27T07:00:00.000Z / 2026-04-27T07:30:00.000Z', // the 330th and last
      '2026-05-15T08:00:00.000Z / 2026-05-15T09:00:00.000Z',
    ]);
  });

  it('reads a floating UNTIL as a wall time in the provider zone, not as UTC', () => {
    const ics = calendar(
      ...event('UID:f', 'DTSTART:20260601T090000', 'DTEND:20260601T100000', 'RRULE:FREQ=DAILY;UNTIL=20260603T090000'),
    );
    expect(read(ics, 'America/New_York', '2026-05-01T00:00Z', '2026-07-01T00:00Z')).toEqual([
      '2026-06-01T13:00:00.000Z / 2026-06-01T14:00:00.000Z',
      '2026-06-02T13:00:00.000Z / 2026-06-02T14:00:00.000Z',
      '2026-06-03T13:00:00.000Z / 2026-06-03T14:00:00.000Z',
    ]);
  });

  it('merges RDATEs with the rule, an instance named by both counting once', () => {
    const ics = calendar(
      ...event(
        'UID:r',
        'DTSTART:20260601T080000Z',
        'DTEND:20260601T090000Z',
        'RRULE:FREQ=DAILY;COUNT=2',
        'RDATE:20260602T080000Z,20260605T120000Z',
        'EXDATE:20260601T080000Z',
      ),
    );
    expect(read(ics, 'UTC', '2026-05-01T00:00Z', '2026-07-01T00:00Z')).toEqual([
      '2026-06-02T08:00:00.000Z / 2026-06-02T09:00:00.000Z',
      '2026-06-05T12:00:00.000Z / 2026-06-05T13:00:00.000Z',
    ]);
  });

  it('an override moving an instance into the window blocks there, and one moving it out frees its place', () => {
    const ics = calendar(
      ...event('UID:s', 'DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z', 'RRULE:FREQ=DAILY;COUNT=10'),
      ...event('UID:s', 'RECURRENCE-ID:20260601T080000Z', 'DTSTART:20260605T150000Z', 'DTEND:20260605T160000Z'),
      ...event('UID:s', 'RECURRENCE-ID:20260606T080000Z', 'DTSTART:20260620T080000Z', 'DTEND:20260620T090000Z'),
    );
    expect(read(ics, 'UTC', '2026-06-05T00:00Z', '2026-06-07T00:00Z')).toEqual([
      '2026-06-05T08:00:00.000Z / 2026-06-05T09:00:00.000Z',
      '2026-06-05T15:00:00.000Z / 2026-06-05T16:00:00.000Z',
    ]);
  });

  it('a date-time event without DTEND or DURATION takes no time; a date one takes its day', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART:20260601T080000Z'),
      ...event('UID:b', 'DTSTART;VALUE=DATE:20260602'),
    );
    expect(read(ics, 'Europe/Berlin', '2026-06-01T00:00Z', '2026-06-05T00:00Z')).toEqual([
      '2026-06-01T22:00:00.000Z / 2026-06-02T22:00:00.000Z',
    ]);
  });

  it('reads a twice-occurring wall time as the first, one in the spring gap with the earlier offset (RFC 5545)', () => {
    const ics = calendar(
      ...event(
        'UID:a',
        'DTSTART;TZID=Europe/Berlin:20261025T023000',
        'DTEND;TZID=Europe/Berlin:20261025T023000',
        'DURATION:PT10M',
      ),
      ...event('UID:b', 'DTSTART;TZID=Europe/Berlin:20260329T023000', 'DURATION:PT10M'),
    ).replace('DTEND;TZID=Europe/Berlin:20261025T023000\r\n', '');
    expect(read(ics, 'Europe/Berlin', '2026-03-01T00:00Z', '2026-11-01T00:00Z')).toEqual([
      '2026-03-29T01:30:00.000Z / 2026-03-29T01:40:00.000Z', // 02:30 does not exist: 03:30 CEST
      '2026-10-25T00:30:00.000Z / 2026-10-25T00:40:00.000Z', // 02:30 CEST, the first of the two
    ]);
  });

  it('reads line folding, CRLF and several VCALENDARs in one text', () => {
    const one = calendar(
      ...event(
        'UID:a',
        'DTSTART:20260601T080000Z',
        'DTEND:20260601T090000Z',
        'SUMMARY:a very long sum',
        ' mary folded',
      ),
    );
    const two = calendar(...event('UID:b', 'DTSTART:20260602T080000Z', 'DTEND:20260602T090000Z'));
    expect(read(`${one}\r\n${two}\r\n`, 'UTC', '2026-06-01T00:00Z', '2026-06-03T00:00Z')).toHaveLength(2);
  });

  it('refuses a text that is not iCalendar, naming why', () => {
    const opts = { providerZone: 'Europe/Berlin', fromMs: 0, toMs: Date.UTC(2030, 0), isOwnUid: () => false };
    expect(() => busyIntervals('<!doctype html><html><body>Sign in</body></html>', opts)).toThrow(
      new CalendarFormatError('not an iCalendar file (no BEGIN:VCALENDAR)'),
    );
    expect(() => busyIntervals('', opts)).toThrow(CalendarFormatError);
    expect(() =>
      busyIntervals('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:2026-06-01\r\nno colon here\r\n', opts),
    ).toThrow(/^not a readable iCalendar file \(.+\)$/);
  });

  it('refuses a calendar whose rule repeats too often to expand, quickly', () => {
    const ics = calendar(...event('UID:storm', 'DTSTART:20000101T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY'));
    const started = process.cpuUsage();
    expect(() => read(ics, 'UTC', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toThrow(/"storm" repeats too often/);
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(5000);
  });

  it('ends a rule no day satisfies instead of looping inside ical.js', () => {
    const ics = calendar(
      ...event(
        'UID:never',
        'DTSTART:20200101T090000Z',
        'DTEND:20200101T100000Z',
        'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      ),
    );
    expect(read(ics, 'UTC', '2026-01-01T00:00Z', '2027-01-01T00:00Z')).toEqual([]);
  });

  it('an empty calendar has no busy times', () => {
    expect(read(calendar(), 'UTC', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toEqual([]);
  });
});

describe('mergeIntervals', () => {
  it('sorts, clips, drops empty ones and joins touching ones', () => {
    const merged = mergeIntervals(
      [
        { startMs: 50, endMs: 60 },
        { startMs: 0, endMs: 20 },
        { startMs: 20, endMs: 30 },
        { startMs: 40, endMs: 40 },
        { startMs: 95, endMs: 200 },
      ],
      10,
      100,
    );
    expect(merged).toEqual([
      { startMs: 10, endMs: 30 },
      { startMs: 50, endMs: 60 },
      { startMs: 95, endMs: 100 },
    ]);
  });
});

describe('Windows zone names', () => {
  it('map every CLDR default ("001") name to a valid IANA zone', () => {
    expect(WINDOWS_ZONE_NAMES.length).toBeGreaterThanOrEqual(135);
    for (const name of WINDOWS_ZONE_NAMES) expect(IANAZone.isValidZone(ianaOfWindowsZone(name)!), name).toBe(true);
  });

  it('map the names Outlook writes, whatever their case', () => {
    expect(ianaOfWindowsZone('W. Europe Standard Time')).toBe('Europe/Berlin');
    expect(ianaOfWindowsZone('eastern standard time')).toBe('America/New_York');
    expect(ianaOfWindowsZone('AUS Eastern Standard Time')).toBe('Australia/Sydney');
    expect(ianaOfWindowsZone('Mars Standard Time')).toBeUndefined();
  });
});

describe('busyIntervals, the details', () => {
  it("an event without a UID blocks even when every UID is the service's own", () => {
    const ics = calendar(
      ...event('DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z'),
      ...event('UID:x', 'DTSTART:20260602T080000Z', 'DTEND:20260602T090000Z'),
    );
    expect(read(ics, 'UTC', '2026-06-01T00:00Z', '2026-06-03T00:00Z', () => true)).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
    ]);
  });

  it('reads TRANSP and STATUS whatever their case and spaces', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z', 'TRANSP: transparent '),
      ...event('UID:b', 'DTSTART:20260602T080000Z', 'DTEND:20260602T090000Z', 'STATUS:Cancelled '),
      ...event('UID:c', 'DTSTART:20260603T080000Z', 'DTEND:20260603T090000Z', 'TRANSP:opaque', 'STATUS:tentative'),
    );
    expect(read(ics, 'UTC', '2026-06-01T00:00Z', '2026-06-04T00:00Z')).toEqual([
      '2026-06-03T08:00:00.000Z / 2026-06-03T09:00:00.000Z',
    ]);
  });

  it('an override without DTSTART blocks at its RECURRENCE-ID for its own length', () => {
    const ics = calendar(
      ...event('UID:s', 'DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z', 'RRULE:FREQ=DAILY;COUNT=3'),
      ...event('UID:s', 'RECURRENCE-ID:20260602T080000Z', 'DURATION:PT3H'),
    );
    expect(read(ics, 'UTC', '2026-06-01T00:00Z', '2026-06-04T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
      '2026-06-02T08:00:00.000Z / 2026-06-02T11:00:00.000Z',
      '2026-06-03T08:00:00.000Z / 2026-06-03T09:00:00.000Z',
    ]);
  });

  it('refuses an override whose RECURRENCE-ID is no time, and a series without DTSTART, naming the event', () => {
    const override = calendar(
      ...event('UID:s', 'DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z'),
      ...event('UID:s', 'RECURRENCE-ID;VALUE=TEXT:tomorrow', 'DTSTART:20260602T080000Z'),
    );
    expect(() => read(override, 'UTC', '2026-06-01T00:00Z', '2026-06-04T00:00Z')).toThrow(
      new CalendarFormatError('the event "s" has no valid RECURRENCE-ID'),
    );
    const series = calendar(...event('UID:t', 'DTEND:20260601T090000Z', 'RRULE:FREQ=DAILY'));
    expect(() => read(series, 'UTC', '2026-06-01T00:00Z', '2026-06-04T00:00Z')).toThrow(
      new CalendarFormatError('the event "t" has no valid DTSTART'),
    );
  });

  it('reads BEGIN:VCALENDAR in any case, but only near the start of the text', () => {
    const ics = calendar(...event('UID:a', 'DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z'));
    expect(
      read(ics.replace('BEGIN:VCALENDAR', 'begin:vcalendar'), 'UTC', '2026-06-01T00:00Z', '2026-06-02T00:00Z'),
    ).toHaveLength(1);
    const late = `${'<p>not a calendar</p>\r\n'.repeat(200)}${ics}`;
    expect(() => read(late, 'UTC', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toThrow(
      new CalendarFormatError('not an iCalendar file (no BEGIN:VCALENDAR)'),
    );
  });

  it('refuses a text whose component is not a VCALENDAR', () => {
    const vevent = event('UID:a', 'DTSTART:20260601T080000Z', 'DTEND:20260601T090000Z', 'SUMMARY:BEGIN:VCALENDAR').join(
      '\r\n',
    );
    expect(() => read(vevent, 'UTC', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toThrow(
      new CalendarFormatError('not an iCalendar file (no BEGIN:VCALENDAR)'),
    );
  });

  it('refuses a provider zone that is not an IANA zone', () => {
    expect(() => read(calendar(), 'Mars/Olympus', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toThrow(
      new RangeError('providerZone "Mars/Olympus" is not an IANA time zone'),
    );
  });

  it('reads TZIDs with a vendor prefix, quotes or spaces by the IANA name they end with', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20260601T080000', 'DURATION:PT1H'),
      ...event(
        'UID:b',
        'DTSTART;TZID=/softwarestudio.org/Olson_20011030_5/America/Argentina/Buenos_Aires:20260602T080000',
        'DURATION:PT1H',
      ),
      ...event('UID:c', 'DTSTART;TZID=/Asia/Tokyo:20260603T080000', 'DURATION:PT1H'),
      ...event('UID:d', 'DTSTART;TZID=" Asia/Kolkata ":20260604T080000', 'DURATION:PT1H'),
      ...event('UID:e', 'DTSTART;TZID=Japan:20260604T200000', 'DURATION:PT1H'), // an IANA name of one part
    );
    expect(read(ics, 'Europe/Berlin', '2026-06-01T00:00Z', '2026-06-05T00:00Z')).toEqual([
      '2026-06-01T12:00:00.000Z / 2026-06-01T13:00:00.000Z',
      '2026-06-02T11:00:00.000Z / 2026-06-02T12:00:00.000Z',
      '2026-06-02T23:00:00.000Z / 2026-06-03T00:00:00.000Z',
      '2026-06-04T02:30:00.000Z / 2026-06-04T03:30:00.000Z',
      '2026-06-04T11:00:00.000Z / 2026-06-04T12:00:00.000Z',
    ]);
  });

  it('reads floating RDATE periods in the provider zone and UTC ones as given', () => {
    const ics = calendar(
      ...event(
        'UID:p',
        'DTSTART:20260601T080000Z',
        'DURATION:PT1H',
        'RDATE;VALUE=PERIOD:20260602T080000/PT2H,20260603T080000Z/PT2H',
        'RDATE;VALUE=PERIOD:20260604T080000/PT2H',
      ),
    );
    expect(read(ics, 'Asia/Tokyo', '2026-05-31T00:00Z', '2026-06-05T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
      '2026-06-01T23:00:00.000Z / 2026-06-02T00:00:00.000Z',
      '2026-06-03T08:00:00.000Z / 2026-06-03T09:00:00.000Z',
      '2026-06-03T23:00:00.000Z / 2026-06-04T00:00:00.000Z', // a floating one on a line of its own
    ]);
  });
});

describe('busyIntervals, lengths and series', () => {
  it('gives all-day events their whole days by DTEND or DURATION, at least one', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART;VALUE=DATE:20260601', 'DTEND;VALUE=DATE:20260601'), // no days: one
      ...event('UID:b', 'DTSTART;VALUE=DATE:20260603', 'DURATION:PT36H'), // a day and a half: two
      ...event('UID:c', 'DTSTART;VALUE=DATE:20260606', 'DURATION:-P2D'), // negative: one
      ...event('UID:d', 'DTSTART;VALUE=DATE:20260608', 'DURATION:P1W'),
    );
    expect(read(ics, 'UTC', '2026-05-01T00:00Z', '2026-07-01T00:00Z')).toEqual([
      '2026-06-01T00:00:00.000Z / 2026-06-02T00:00:00.000Z',
      '2026-06-03T00:00:00.000Z / 2026-06-05T00:00:00.000Z',
      '2026-06-06T00:00:00.000Z / 2026-06-07T00:00:00.000Z',
      '2026-06-08T00:00:00.000Z / 2026-06-15T00:00:00.000Z',
    ]);
  });

  it('gives timed events weeks, days in wall time, hours, minutes, seconds; a negative or reversed length none', () => {
    const ics = calendar(
      // over the autumn change: 7 wall days
      ...event('UID:a', 'DTSTART;TZID=Europe/Berlin:20261019T100000', 'DURATION:P1W'),
      ...event('UID:b', 'DTSTART:20260601T080000Z', 'DURATION:P1DT2H3M4S'),
      ...event('UID:c', 'DTSTART:20260603T080000Z', 'DURATION:-PT1H'),
      ...event('UID:d', 'DTSTART:20260604T080000Z', 'DTEND:20260604T070000Z'),
    );
    expect(read(ics, 'UTC', '2026-05-01T00:00Z', '2026-11-01T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-02T10:03:04.000Z',
      '2026-10-19T08:00:00.000Z / 2026-10-26T09:00:00.000Z',
    ]);
  });

  it('reads a minutely rule over a day without running into the limit of steps', () => {
    const ics = calendar(...event('UID:m', 'DTSTART:20260601T000000Z', 'DURATION:PT30S', 'RRULE:FREQ=MINUTELY'));
    const busy = busyIntervals(ics, {
      providerZone: 'UTC',
      fromMs: Date.parse('2026-06-01T00:00Z'),
      toMs: Date.parse('2026-06-02T00:00Z'),
      isOwnUid: () => false,
    });
    expect(busy).toHaveLength(1440);
    expect(iso([busy[0], busy[1439]])).toEqual([
      '2026-06-01T00:00:00.000Z / 2026-06-01T00:00:30.000Z',
      '2026-06-01T23:59:00.000Z / 2026-06-01T23:59:30.000Z',
    ]);
  });

  it("reads RDATEs in any order, an EXDATE date removing that day's instance, a date UNTIL taking in its day", () => {
    const ics = calendar(
      ...event('UID:r', 'DTSTART:20260601T080000Z', 'DURATION:PT1H', 'RDATE:20260620T080000Z,20260605T080000Z'),
      ...event(
        'UID:d',
        'DTSTART;TZID=America/New_York:20260601T200000',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;UNTIL=20260603',
        'EXDATE;VALUE=DATE:20260602',
      ),
    );
    expect(read(ics, 'UTC', '2026-05-01T00:00Z', '2026-06-10T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
      '2026-06-02T00:00:00.000Z / 2026-06-02T01:00:00.000Z',
      '2026-06-04T00:00:00.000Z / 2026-06-04T01:00:00.000Z', // the 3rd, 20:00 EDT
      '2026-06-05T08:00:00.000Z / 2026-06-05T09:00:00.000Z',
    ]);
  });

  it('counts an instance two rules name once, and refuses a rule without FREQ', () => {
    const ics = calendar(
      ...event(
        'UID:t',
        'DTSTART:20260601T080000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;INTERVAL=2;COUNT=3',
        'RRULE:FREQ=DAILY;INTERVAL=3;COUNT=3',
        'EXDATE:20260601T080000Z',
      ),
    );
    expect(read(ics, 'UTC', '2026-05-01T00:00Z', '2026-07-01T00:00Z')).toEqual([
      '2026-06-03T08:00:00.000Z / 2026-06-03T09:00:00.000Z',
      '2026-06-04T08:00:00.000Z / 2026-06-04T09:00:00.000Z',
      '2026-06-05T08:00:00.000Z / 2026-06-05T09:00:00.000Z',
      '2026-06-07T08:00:00.000Z / 2026-06-07T09:00:00.000Z',
    ]);
    const noFreq = calendar(...event('UID:n', 'DTSTART:20260601T080000Z', 'DURATION:PT1H', 'RRULE:COUNT=3'));
    expect(() => read(noFreq, 'UTC', '2026-05-01T00:00Z', '2026-07-01T00:00Z')).toThrow(
      new CalendarFormatError('the repeat rule of the event "n" cannot be read'),
    );
  });
});

describe('busyIntervals, series begun years before the window', () => {
  const window = ['2026-06-10T12:00Z', '2026-06-30T00:00Z'] as const;

  it('keeps the instance of a long weekly event that began before the window', () => {
    const ics = calendar(
      ...event('UID:w', 'DTSTART:20150105T090000Z', 'DURATION:P6DT1H', 'RRULE:FREQ=WEEKLY;INTERVAL=2'),
    );
    expect(read(ics, 'UTC', ...window)).toEqual([
      '2026-06-10T12:00:00.000Z / 2026-06-14T10:00:00.000Z',
      '2026-06-22T09:00:00.000Z / 2026-06-28T10:00:00.000Z',
    ]);
  });

  it('keeps the instance of a monthly and a daily event that began before the window', () => {
    const ics = calendar(
      ...event('UID:m', 'DTSTART:20150607T090000Z', 'DTEND:20150611T090000Z', 'RRULE:FREQ=MONTHLY;INTERVAL=1'),
      ...event('UID:d', 'DTSTART:20150101T230000Z', 'DTEND:20150102T130000Z', 'RRULE:FREQ=DAILY;INTERVAL=3'),
    );
    expect(read(ics, 'UTC', '2026-06-10T12:00Z', '2026-06-16T00:00Z')).toEqual([
      '2026-06-10T12:00:00.000Z / 2026-06-11T09:00:00.000Z',
      '2026-06-11T23:00:00.000Z / 2026-06-12T13:00:00.000Z', // every third day since 2015-01-01
      '2026-06-14T23:00:00.000Z / 2026-06-15T13:00:00.000Z',
    ]);
  });

  it('reads an all-day weekly series and a yearly one begun years ago', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART;VALUE=DATE:20150101', 'RRULE:FREQ=WEEKLY'), // Thursdays
      ...event('UID:y', 'DTSTART;VALUE=DATE:20100615', 'DTEND;VALUE=DATE:20100617', 'RRULE:FREQ=YEARLY'),
    );
    expect(read(ics, 'Europe/Berlin', ...window)).toEqual([
      '2026-06-10T22:00:00.000Z / 2026-06-11T22:00:00.000Z',
      '2026-06-14T22:00:00.000Z / 2026-06-16T22:00:00.000Z',
      '2026-06-17T22:00:00.000Z / 2026-06-18T22:00:00.000Z',
      '2026-06-24T22:00:00.000Z / 2026-06-25T22:00:00.000Z',
    ]);
  });

  it('ends COUNT series begun years ago at their last instance: biweekly, monthly on the 31st, two weekdays', () => {
    const ics = calendar(
      // the last: 2026-06-15
      ...event('UID:i', 'DTSTART:20200106T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=169'),
      // months with a 31st: the 46th is 2026-07-31
      ...event('UID:m', 'DTSTART:20200131T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY;COUNT=46'),
      // the last: 2026-06-11
      ...event('UID:t', 'DTSTART:20200107T110000Z', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=672'),
    );
    expect(read(ics, 'UTC', '2026-06-10T12:00Z', '2026-08-10T00:00Z')).toEqual([
      '2026-06-11T11:00:00.000Z / 2026-06-11T12:00:00.000Z',
      '2026-06-15T09:00:00.000Z / 2026-06-15T10:00:00.000Z',
      '2026-07-31T10:00:00.000Z / 2026-07-31T11:00:00.000Z',
    ]);
  });
});

describe('busyIntervals, what mutation testing asked for', () => {
  const busyOf = (ics: string, from: string, to: string) => read(ics, 'UTC', from, to);

  it('takes the earliest of several rules and RDATEs at each step, whichever comes first in the event', () => {
    const rules = ['RRULE:FREQ=DAILY;COUNT=5', 'RRULE:FREQ=WEEKLY;COUNT=2'];
    for (const order of [rules, [...rules].reverse()]) {
      const ics = calendar(
        ...event(
          'UID:r',
          'DTSTART:20260601T080000Z',
          'DURATION:PT1H',
          ...order,
          'RDATE:20260602T120000Z,20260620T080000Z',
        ),
      );
      expect(busyOf(ics, '2026-06-01T00:00Z', '2026-06-04T00:00Z'), order.join(' ')).toEqual([
        '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
        '2026-06-02T08:00:00.000Z / 2026-06-02T09:00:00.000Z',
        '2026-06-02T12:00:00.000Z / 2026-06-02T13:00:00.000Z',
        '2026-06-03T08:00:00.000Z / 2026-06-03T09:00:00.000Z',
      ]);
    }
  });

  it('an EXDATE date-time removes only the instance at that instant', () => {
    const ics = calendar(
      ...event(
        'UID:x',
        'DTSTART:20260601T080000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;COUNT=3',
        'EXDATE:20260602T070000Z,20260603T080000Z',
      ),
    );
    expect(busyOf(ics, '2026-06-01T00:00Z', '2026-06-04T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
      '2026-06-02T08:00:00.000Z / 2026-06-02T09:00:00.000Z',
    ]);
  });

  it('an override without an end takes no time and frees its instance', () => {
    const ics = calendar(
      ...event('UID:o', 'DTSTART:20260601T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=2'),
      ...event('UID:o', 'RECURRENCE-ID:20260602T080000Z', 'DTSTART:20260602T100000Z'),
    );
    expect(busyOf(ics, '2026-06-01T00:00Z', '2026-06-04T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
    ]);
  });

  it('allows exactly the limits of a step budget: per event, and for the whole calendar', () => {
    const budget = new StepBudget({ perEvent: 3, perCalendar: 5 });
    budget.startEvent();
    for (let i = 0; i < 3; i++) budget.step('a');
    expect(() => budget.step('a')).toThrow(
      new CalendarFormatError('the event "a" repeats too often to read (more than 3 occurrences)'),
    );
    const calendarWide = new StepBudget({ perEvent: 3, perCalendar: 5 });
    for (const uid of ['b', 'c']) {
      calendarWide.startEvent();
      for (let i = 0; i < (uid === 'b' ? 3 : 2); i++) calendarWide.step(uid);
    }
    calendarWide.startEvent();
    expect(() => calendarWide.step('d')).toThrow(
      new CalendarFormatError("the calendar's events repeat too often to read (more than 5 occurrences)"),
    );
  });

  it('names the limit an event passes, not as a rule it cannot expand', () => {
    const ics = calendar(...event('UID:storm', 'DTSTART:20260101T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY'));
    expect(() => busyOf(ics, '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toThrow(
      new CalendarFormatError('the event "storm" repeats too often to read (more than 50000 occurrences)'),
    );
  });

  it('counts the limit of steps per event afresh for each event', () => {
    // 35 events of 1,440 steps each: 50,400 in all, under the calendar's limit and each under the event's
    const events = Array.from({ length: 35 }, (_, i) =>
      event(`UID:m${i}`, 'DTSTART:20260601T000000Z', 'DURATION:PT30S', 'RRULE:FREQ=MINUTELY'),
    );
    expect(busyOf(calendar(...events.flat()), '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toHaveLength(1440);
  });

  it('skips the past of long series in whole periods: daily since 1880, ending by COUNT or never', () => {
    // unskipped, each would take over 53,000 steps from 1880 and pass the limit of one event
    const ics = calendar(
      ...event('UID:c', 'DTSTART:18800131T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=60000'),
      ...event('UID:e', 'DTSTART:18800131T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY'),
    );
    expect(busyOf(ics, '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
      '2026-06-01T10:00:00.000Z / 2026-06-01T11:00:00.000Z',
    ]);
  });

  it('ends monthly and yearly COUNT series at their last instance, and a daily one limited to a weekday', () => {
    const ics = calendar(
      // the last: 2026-10-15
      ...event('UID:m', 'DTSTART:20200315T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY;COUNT=80'),
      // the last: 2026-06-20
      ...event('UID:y', 'DTSTART:20170620T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=YEARLY;COUNT=10'),
      // three Mondays
      ...event('UID:d', 'DTSTART:20260601T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;BYDAY=MO;COUNT=3'),
    );
    expect(busyOf(ics, '2026-06-01T00:00Z', '2026-12-31T00:00Z')).toEqual([
      '2026-06-01T10:00:00.000Z / 2026-06-01T11:00:00.000Z',
      '2026-06-08T10:00:00.000Z / 2026-06-08T11:00:00.000Z',
      '2026-06-15T08:00:00.000Z / 2026-06-15T09:00:00.000Z',
      '2026-06-15T10:00:00.000Z / 2026-06-15T11:00:00.000Z',
      '2026-06-20T09:00:00.000Z / 2026-06-20T10:00:00.000Z',
      '2026-07-15T08:00:00.000Z / 2026-07-15T09:00:00.000Z',
      '2026-08-15T08:00:00.000Z / 2026-08-15T09:00:00.000Z',
      '2026-09-15T08:00:00.000Z / 2026-09-15T09:00:00.000Z',
      '2026-10-15T08:00:00.000Z / 2026-10-15T09:00:00.000Z',
    ]);
  });

  it('skips the past of monthly series on the 31st and every other month without losing an instance', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART:20150131T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY'),
      ...event('UID:b', 'DTSTART:20150110T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY;INTERVAL=2'),
    );
    expect(busyOf(ics, '2026-05-01T00:00Z', '2026-09-01T00:00Z')).toEqual([
      '2026-05-10T08:00:00.000Z / 2026-05-10T09:00:00.000Z',
      '2026-05-31T08:00:00.000Z / 2026-05-31T09:00:00.000Z',
      '2026-07-10T08:00:00.000Z / 2026-07-10T09:00:00.000Z',
      '2026-07-31T08:00:00.000Z / 2026-07-31T09:00:00.000Z',
      '2026-08-31T08:00:00.000Z / 2026-08-31T09:00:00.000Z',
    ]);
  });

  it('keeps an instance longer than two periods that began before the window, by DURATION or by DTEND', () => {
    // weekly, 20 days long; the two instances after the one of 2026-06-01 are EXDATEs
    const lines = ['DTSTART:20150105T090000Z', 'RRULE:FREQ=WEEKLY', 'EXDATE:20260608T090000Z,20260615T090000Z'];
    const window = ['2026-06-15T12:00Z', '2026-06-16T00:00Z'] as const;
    expect(busyOf(calendar(...event('UID:p', ...lines, 'DURATION:P20D')), ...window)).toEqual([
      '2026-06-15T12:00:00.000Z / 2026-06-16T00:00:00.000Z',
    ]);
    expect(busyOf(calendar(...event('UID:e', ...lines, 'DTEND:20150125T090000Z')), ...window)).toEqual([
      '2026-06-15T12:00:00.000Z / 2026-06-16T00:00:00.000Z',
    ]);
  });
});

describe('busyIntervals, rules ical.js cannot expand', () => {
  it('refuses a rule ical.js cannot expand as a calendar format error naming the event', () => {
    const ics = calendar(
      ...event('UID:b', 'DTSTART:20260601T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY;BYDAY=9MO'),
    );
    expect(() => read(ics, 'UTC', '2026-06-01T00:00Z', '2026-07-01T00:00Z')).toThrow(
      new CalendarFormatError('the repeat rule of the event "b" cannot be expanded (Malformed values in BYDAY part)'),
    );
  });
});

describe('busyIntervals, time zones', () => {
  /** A VTIMEZONE of fixed offset, or with a daylight time from the last Sunday of March to the last of October. */
  const vtimezone = (tzid: string, standard: string, daylight?: string) => [
    'BEGIN:VTIMEZONE',
    `TZID:${tzid}`,
    'BEGIN:STANDARD',
    'DTSTART:19701025T030000',
    ...(daylight
      ? ['RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU', `TZOFFSETFROM:${daylight}`]
      : [`TZOFFSETFROM:${standard}`]),
    `TZOFFSETTO:${standard}`,
    'END:STANDARD',
    ...(daylight
      ? [
          'BEGIN:DAYLIGHT',
          'DTSTART:19700329T020000',
          'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
          `TZOFFSETFROM:${standard}`,
          `TZOFFSETTO:${daylight}`,
          'END:DAYLIGHT',
        ]
      : []),
    'END:VTIMEZONE',
  ];

  it("reads a TZID by the file's VTIMEZONE, even one that names an IANA zone or no known zone", () => {
    const ics = calendar(
      ...vtimezone('Bombay Office', '+0530'),
      ...vtimezone('America/New_York', '+0300'),
      ...event('UID:a', 'DTSTART;TZID=Bombay Office:20260601T080000', 'DTEND;TZID=Bombay Office:20260601T090000'),
      ...event('UID:b', 'DTSTART;TZID=America/New_York:20260602T080000', 'DURATION:PT1H'),
    );
    expect(read(ics, 'Europe/Berlin', '2026-06-01T00:00Z', '2026-06-03T00:00Z')).toEqual([
      '2026-06-01T02:30:00.000Z / 2026-06-01T03:30:00.000Z',
      '2026-06-02T05:00:00.000Z / 2026-06-02T06:00:00.000Z',
    ]);
  });

  it("finds a VTIMEZONE's TZID wherever it stands among its properties", () => {
    const [begin, tzid, ...rest] = vtimezone('Bombay Office', '+0530');
    const ics = calendar(
      begin,
      'LAST-MODIFIED:20260101T000000Z',
      tzid,
      ...rest,
      ...event('UID:a', 'DTSTART;TZID=Bombay Office:20260601T080000', 'DURATION:PT1H'),
    );
    expect(read(ics, 'Europe/Berlin', '2026-06-01T00:00Z', '2026-06-02T00:00Z')).toEqual([
      '2026-06-01T02:30:00.000Z / 2026-06-01T03:30:00.000Z',
    ]);
  });

  it('reads times on the day a VTIMEZONE changes its offset, before and after the change', () => {
    const ics = calendar(
      ...vtimezone('Office', '+0100', '+0200'),
      ...event('UID:a', 'DTSTART;TZID=Office:20260329T013000', 'DURATION:PT15M'),
      ...event('UID:b', 'DTSTART;TZID=Office:20260329T120000', 'DURATION:PT15M'),
      ...event('UID:c', 'DTSTART;TZID=Office:20261025T120000', 'DURATION:PT15M'),
    );
    expect(read(ics, 'UTC', '2026-03-28T00:00Z', '2026-10-26T00:00Z')).toEqual([
      '2026-03-29T00:30:00.000Z / 2026-03-29T00:45:00.000Z',
      '2026-03-29T10:00:00.000Z / 2026-03-29T10:15:00.000Z',
      '2026-10-25T11:00:00.000Z / 2026-10-25T11:15:00.000Z',
    ]);
  });

  it('reads IANA wall times at and around the instants a zone changes, and all-day events on those days', () => {
    const ics = calendar(
      ...event('UID:a', 'DTSTART;TZID=Europe/Berlin:20260329T030000', 'DURATION:PT10M'), // the first minute of CEST
      ...event('UID:b', 'DTSTART;TZID=Europe/Berlin:20260329T015900', 'DURATION:PT1M'), // the last minute of CET
      ...event('UID:c', 'DTSTART;TZID=America/New_York:20261101T010000', 'DURATION:PT10M'), // twice: the first, EDT
      ...event('UID:d', 'DTSTART;TZID=America/New_York:20261101T020000', 'DURATION:PT10M'), // once, EST
      // a 30-minute gap: +10:30 before it
      ...event('UID:e', 'DTSTART;TZID=Australia/Lord_Howe:20261004T021500', 'DURATION:PT10M'),
      ...event('UID:f', 'DTSTART;VALUE=DATE:20261025'),
    );
    expect(read(ics, 'Europe/Berlin', '2026-03-28T00:00Z', '2026-11-02T00:00Z')).toEqual([
      '2026-03-29T00:59:00.000Z / 2026-03-29T01:10:00.000Z', // 01:59 CET and 03:00 CEST touch
      '2026-10-03T15:45:00.000Z / 2026-10-03T15:55:00.000Z',
      '2026-10-24T22:00:00.000Z / 2026-10-25T23:00:00.000Z', // Berlin's 25-hour day
      '2026-11-01T05:00:00.000Z / 2026-11-01T05:10:00.000Z',
      '2026-11-01T07:00:00.000Z / 2026-11-01T07:10:00.000Z',
    ]);
  });
});

describe('busyIntervals, skipping the past of a series', () => {
  it('skips the past of a monthly series on the 31st only in months that have one', () => {
    // whole periods from 2015-01-31 would land on 2025-11-31, a day November lacks
    const ics = calendar(...event('UID:a', 'DTSTART:20150131T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY'));
    expect(read(ics, 'UTC', '2026-04-05T00:00Z', '2026-06-05T00:00Z')).toEqual([
      '2026-05-31T08:00:00.000Z / 2026-05-31T09:00:00.000Z',
    ]);
  });

  it("ends a weekly COUNT series on DTSTART's weekday begun in 1880 without stepping through its past", () => {
    const ics = calendar(
      ...event('UID:w', 'DTSTART:18800105T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=7640'),
    );
    expect(read(ics, 'UTC', '2026-06-01T00:00Z', '2026-06-20T00:00Z')).toEqual([
      '2026-06-01T08:00:00.000Z / 2026-06-01T09:00:00.000Z',
    ]);
  });
});
