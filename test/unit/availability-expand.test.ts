/**
 * A rule's timeslots in wall-clock time (DESIGN.md §7.14), pure: named DST days of Berlin, New York,
 * Sydney and Casablanca, and a property over random rules in those zones checked against an
 * independent computation (test/helpers/wallClockOracle.ts: Intl.DateTimeFormat and a minute scan,
 * no luxon). Everything runs with the process in a zone other than UTC: the result must not
 * depend on TZ. Seeded: PROPERTY_SEED replays a run.
 */
import { isMainThread } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleSlots, type RuleWindow } from '../../src/availability/expand.js';
import { wallInstant } from '../../src/availability/wallClock.js';
import { seeded } from '../helpers/property.js';
import { oracleSlots } from '../helpers/wallClockOracle.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Africa/Casablanca'] as const;
/** process.env.TZ reaches Date and Intl on a process's main thread only (as in calendars-busy.test.ts). */
const PROCESS_ZONE = isMainThread ? 'Pacific/Chatham' : new Intl.DateTimeFormat().resolvedOptions().timeZone;

const before = process.env.TZ;
beforeAll(() => {
  process.env.TZ = PROCESS_ZONE;
});
afterAll(() => {
  // unset stays unset: "undefined" would be a zone for the next file of this process
  if (before === undefined) delete process.env.TZ;
  else process.env.TZ = before;
});

const iso = (ms: number) => new Date(ms).toISOString();
const at = (date: string, hhmm: string, zone: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return iso(wallInstant(date, h * 60 + m, zone));
};
const slots = (windows: RuleWindow[], date: string, zone: string) =>
  ruleSlots({ weekdays: [1, 2, 3, 4, 5, 6, 7], windows }, zone, date, date).map(
    (s) => `${iso(s.startMs)} ${iso(s.endMs)}`,
  );

describe('wall-clock times of a window', () => {
  it('run with the process in a zone other than UTC', () => {
    expect(new Date(Date.UTC(2026, 0, 15)).getTimezoneOffset()).not.toBe(0);
  });

  it('move forward by the gap on the spring-forward day', () => {
    expect(at('2026-03-29', '02:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z'); // 03:30+02:00
    expect(at('2026-03-08', '02:15', 'America/New_York')).toBe('2026-03-08T07:15:00.000Z'); // 03:15-04:00
    expect(at('2026-10-04', '02:00', 'Australia/Sydney')).toBe('2026-10-03T16:00:00.000Z'); // 03:00+11:00
    expect(at('2026-03-22', '02:30', 'Africa/Casablanca')).toBe('2026-03-22T02:30:00.000Z'); // 03:30+01:00
  });

  it('take their first occurrence when the clock repeats an hour', () => {
    expect(at('2026-10-25', '02:30', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z'); // +02:00, not +01:00
    expect(at('2026-11-01', '01:30', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z'); // -04:00
    expect(at('2026-04-05', '02:30', 'Australia/Sydney')).toBe('2026-04-04T15:30:00.000Z'); // +11:00
    expect(at('2026-02-15', '02:30', 'Africa/Casablanca')).toBe('2026-02-15T01:30:00.000Z'); // +01:00
  });

  it('keep their wall-clock start and end on the days the clocks change', () => {
    // Berlin: 01:00-04:00 is two real hours in spring and four in autumn
    expect(slots([{ from: '01:00', to: '04:00' }], '2026-03-29', 'Europe/Berlin')).toEqual([
      '2026-03-29T00:00:00.000Z 2026-03-29T02:00:00.000Z',
    ]);
    expect(slots([{ from: '01:00', to: '04:00' }], '2026-10-25', 'Europe/Berlin')).toEqual([
      '2026-10-24T23:00:00.000Z 2026-10-25T03:00:00.000Z',
    ]);
    expect(
      slots(
        [
          { from: '09:00', to: '12:00' },
          { from: '13:00', to: '17:00' },
        ],
        '2026-03-29',
        'Europe/Berlin',
      ),
    ).toEqual([
      '2026-03-29T07:00:00.000Z 2026-03-29T10:00:00.000Z',
      '2026-03-29T11:00:00.000Z 2026-03-29T15:00:00.000Z',
    ]);
  });

  it("end at 24:00, the next day's midnight", () => {
    expect(slots([{ from: '22:00', to: '24:00' }], '2026-03-28', 'Europe/Berlin')).toEqual([
      '2026-03-28T21:00:00.000Z 2026-03-28T23:00:00.000Z',
    ]);
    expect(slots([{ from: '00:00', to: '24:00' }], '2026-03-29', 'Europe/Berlin')).toEqual([
      '2026-03-28T23:00:00.000Z 2026-03-29T22:00:00.000Z',
    ]);
  });

  it('make no timeslot for a window lying wholly in the gap, and none that overlaps the next', () => {
    // 02:00-02:30 does not exist on 2026-03-29 in Berlin: moved forward it would cover 03:00-03:30
    expect(
      slots(
        [
          { from: '02:00', to: '02:30' },
          { from: '03:00', to: '04:00' },
        ],
        '2026-03-29',
        'Europe/Berlin',
      ),
    ).toEqual(['2026-03-29T01:00:00.000Z 2026-03-29T02:00:00.000Z']);
    expect(
      slots(
        [
          { from: '01:30', to: '02:30' },
          { from: '03:00', to: '04:00' },
        ],
        '2026-03-29',
        'Europe/Berlin',
      ),
    ).toEqual([
      '2026-03-29T00:30:00.000Z 2026-03-29T01:00:00.000Z',
      '2026-03-29T01:00:00.000Z 2026-03-29T02:00:00.000Z',
    ]);
    expect(slots([{ from: '02:30', to: '03:00' }], '2026-03-29', 'Europe/Berlin')).toEqual([]);
  });

  it('come only on the listed weekdays, dates both included', () => {
    const week = ruleSlots(
      { weekdays: [1, 3], windows: [{ from: '09:00', to: '10:00' }] },
      'Europe/Berlin',
      '2026-06-01',
      '2026-06-08',
    );
    expect(week.map((s) => s.date)).toEqual(['2026-06-01', '2026-06-03', '2026-06-08']);
  });
});

/** The days the four zones change their offset in 2026 and 2027, where the property looks hardest. */
const CHANGES: Record<(typeof ZONES)[number], string[]> = {
  'Europe/Berlin': ['2026-03-29', '2026-10-25', '2027-03-28', '2027-10-31'],
  'America/New_York': ['2026-03-08', '2026-11-01', '2027-03-14', '2027-11-07'],
  'Australia/Sydney': ['2026-04-05', '2026-10-04', '2027-04-04', '2027-10-03'],
  'Africa/Casablanca': ['2026-02-15', '2026-03-22', '2027-02-07', '2027-03-14'], // around Ramadan
};

/**
 * 1 to 4 windows in time order, none overlapping (touching is allowed), the last possibly ending at
 * 24:00; mostly starting in the small hours, where the clocks change.
 */
const windowsArb = fc
  .record({
    first: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 1380 })),
    parts: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 90 }), len: fc.integer({ min: 1, max: 150 }) }), {
      minLength: 1,
      maxLength: 4,
    }),
    toMidnight: fc.boolean(),
  })
  .map(({ first, parts, toMidnight }) => {
    const windows: { from: number; to: number }[] = [];
    let cursor = first;
    for (const { gap, len } of parts) {
      const from = windows.length === 0 ? cursor : cursor + gap;
      if (from + 1 > 1440) break;
      windows.push({ from, to: Math.min(1440, from + len) });
      cursor = windows.at(-1)!.to;
    }
    if (toMidnight) windows[windows.length - 1].to = 1440;
    return windows;
  });

/** A rule in one of the zones over 1 to 21 dates, mostly including a day its zone changes its offset. */
const ruleArb = fc.constantFrom(...ZONES).chain((zone) =>
  fc.record({
    zone: fc.constant(zone),
    weekdays: fc.oneof(
      fc.constant<number[]>([1, 2, 3, 4, 5, 6, 7]),
      fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }).map((w) => w.sort()),
    ),
    windows: windowsArb,
    first: fc.oneof(
      fc
        .record({ near: fc.constantFrom(...CHANGES[zone]), shift: fc.integer({ min: -3, max: 0 }) })
        .map(({ near, shift }) => addDaysUtc(near, shift)),
      fc.integer({ min: 0, max: 730 }).map((d) => addDaysUtc('2026-01-01', d)),
    ),
    days: fc.integer({ min: 1, max: 14 }),
  }),
);

function addDaysUtc(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

describe("a rule's timeslots on random rules in Berlin, New York, Sydney and Casablanca", () => {
  it('are exactly those the independent computation finds', () => {
    fc.assert(
      fc.property(ruleArb, (r) => {
        const last = addDaysUtc(r.first, r.days - 1);
        const windows = r.windows.map((w) => ({ from: hhmm(w.from), to: w.to === 1440 ? '24:00' : hhmm(w.to) }));
        const actual = ruleSlots({ weekdays: r.weekdays, windows }, r.zone, r.first, last).map((s) => ({
          date: s.date,
          startMs: s.startMs,
          endMs: s.endMs,
        }));
        expect(actual).toEqual(oracleSlots({ weekdays: r.weekdays, windows: r.windows }, r.zone, r.first, last));
      }),
      seeded('availability: rule timeslots equal the oracle', { numRuns: 400 }),
    );
  }, 120_000);
});
