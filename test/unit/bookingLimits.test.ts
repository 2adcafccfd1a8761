/**
 * Booking limits as A1 applies them (offerings/bookingLimits.ts, the slot engine's closed spans):
 * the dates and ISO weeks at their limit in the provider's zone, across a month's end and both
 * clock changes, whatever zone the process runs in; and the words of a refusal.
 */
import { isMainThread } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bookingLimitColumns,
  bookingLimitsOf,
  closedSpans,
  hasLimits,
  limitReachedText,
  NO_LIMITS,
  type CountedAppointment,
} from '../../src/offerings/bookingLimits.js';
import { computeBookables, type EngineAppointment, type EngineTimeslot } from '../../src/booking/slotEngine.js';

const BERLIN = 'Europe/Berlin';
const ms = (iso: string) => Date.parse(iso);
const iso = (spans: { startMs: number; endMs: number }[]) =>
  spans.map((s) => `${new Date(s.startMs).toISOString()} / ${new Date(s.endMs).toISOString()}`);
const at = (start: string, live = 1): CountedAppointment => ({ startMs: ms(start), live });
/** Tuesday 2026-06-02 in Berlin */
const SECOND_OF_JUNE = '2026-06-01T22:00:00.000Z / 2026-06-02T22:00:00.000Z';

/** process.env.TZ reaches Date and Intl on the main thread only (see calendars-busy.test.ts). */
const ZONES = isMainThread
  ? ['America/New_York', 'Asia/Tokyo', 'UTC']
  : [new Intl.DateTimeFormat().resolvedOptions().timeZone];

describe.each(ZONES)('closedSpans with the process in %s', (tz) => {
  const before = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = tz;
  });
  afterAll(() => {
    // unset stays unset: "undefined" would be a zone for the next file of this process
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });

  it('closes a date at its limit from midnight to midnight in the provider zone, not in UTC', () => {
    const limits = { perDay: 2, perWeek: null };
    // 09:00 and 23:30 on the 2nd in Berlin; 00:30 on the 3rd in Berlin is still the 2nd in UTC
    const appointments = [at('2026-06-02T07:00:00Z'), at('2026-06-02T21:30:00Z'), at('2026-06-02T22:30:00Z')];
    expect(iso(closedSpans(limits, BERLIN, appointments))).toEqual([SECOND_OF_JUNE]);
    // one short of the limit: nothing closed
    expect(closedSpans({ perDay: 3, perWeek: null }, BERLIN, appointments)).toEqual([]);
  });

  it('counts live participations, not appointments: a group appointment with two counts two; none live nothing', () => {
    const appointments = [at('2026-06-02T07:00:00Z', 2), at('2026-06-03T07:00:00Z', 0)];
    expect(iso(closedSpans({ perDay: 2, perWeek: null }, BERLIN, appointments))).toEqual([SECOND_OF_JUNE]);
  });

  it('closes an ISO week from Monday to Sunday across a month end', () => {
    // Tuesday 2026-06-30 and Thursday 2026-07-02 are in week 2026-W27 (Monday 06-29 to Sunday 07-05)
    const appointments = [at('2026-06-30T07:00:00Z'), at('2026-07-02T07:00:00Z')];
    const spans = closedSpans({ perDay: null, perWeek: 2 }, BERLIN, appointments);
    expect(iso(spans)).toEqual(['2026-06-28T22:00:00.000Z / 2026-07-05T22:00:00.000Z']);
  });

  it('gives the weeks of the clock changes their 167 and 169 hours, and the autumn Sunday its 25', () => {
    const spring = closedSpans({ perDay: null, perWeek: 1 }, BERLIN, [at('2026-03-25T09:00:00Z')]);
    expect(iso(spring)).toEqual(['2026-03-22T23:00:00.000Z / 2026-03-29T22:00:00.000Z']);
    const autumn = closedSpans({ perDay: 1, perWeek: 1 }, BERLIN, [at('2026-10-25T12:00:00Z')]);
    expect(iso(autumn)).toEqual([
      '2026-10-18T22:00:00.000Z / 2026-10-25T23:00:00.000Z',
      '2026-10-24T22:00:00.000Z / 2026-10-25T23:00:00.000Z',
    ]);
    expect((autumn[0].endMs - autumn[0].startMs) / 3_600_000).toBe(169);
    expect((autumn[1].endMs - autumn[1].startMs) / 3_600_000).toBe(25);
  });

  it('counts an appointment at midnight for the new date and week, not the one before', () => {
    // 23:00 on Sunday 2026-06-07 and 00:00 on Monday the 8th in Berlin
    const appointments = [at('2026-06-07T21:00:00Z'), at('2026-06-07T22:00:00Z')];
    expect(closedSpans({ perDay: 2, perWeek: 2 }, BERLIN, appointments)).toEqual([]);
    expect(closedSpans({ perDay: 1, perWeek: null }, BERLIN, appointments)).toHaveLength(2);
  });

  it('counts appointments in any order alike', () => {
    const appointments = ['06-09T07', '06-02T07', '06-09T09', '06-03T07'].map((x) => `2026-${x}:00:00Z`);
    const limits = { perDay: 2, perWeek: 2 };
    const sorted = closedSpans(
      limits,
      BERLIN,
      [...appointments].sort().map((x) => at(x)),
    );
    expect(
      closedSpans(
        limits,
        BERLIN,
        appointments.map((x) => at(x)),
      ),
    ).toEqual(sorted);
    expect(iso(sorted)).toEqual([
      '2026-05-31T22:00:00.000Z / 2026-06-07T22:00:00.000Z',
      '2026-06-07T22:00:00.000Z / 2026-06-14T22:00:00.000Z',
      '2026-06-08T22:00:00.000Z / 2026-06-09T22:00:00.000Z',
    ]);
  });

  it('uses the zone of the provider: the same instants close other days in Tokyo', () => {
    // 01:00 on the 3rd in Tokyo
    const spans = closedSpans({ perDay: 1, perWeek: null }, 'Asia/Tokyo', [at('2026-06-02T16:00:00Z')]);
    expect(iso(spans)).toEqual(['2026-06-02T15:00:00.000Z / 2026-06-03T15:00:00.000Z']);
  });
});

describe('the limits as stored and worded', () => {
  it('turns B3/B4 limits into columns: the object replaces both, null clears both', () => {
    expect(bookingLimitColumns({ perDay: 3 })).toEqual({ booking_limit_per_day: 3, booking_limit_per_week: null });
    expect(bookingLimitColumns({ perWeek: 9 })).toEqual({ booking_limit_per_day: null, booking_limit_per_week: 9 });
    expect(bookingLimitColumns(null)).toEqual({ booking_limit_per_day: null, booking_limit_per_week: null });
  });

  it('has limits when either member is set', () => {
    expect(hasLimits(NO_LIMITS)).toBe(false);
    expect(hasLimits({ perDay: 1, perWeek: null })).toBe(true);
    expect(hasLimits({ perDay: null, perWeek: 1 })).toBe(true);
  });

  it('reads the columns, null for none, and closes nothing without limits', () => {
    const stored = { booking_limit_per_day: 3, booking_limit_per_week: null };
    expect(bookingLimitsOf(stored)).toEqual({ perDay: 3, perWeek: null });
    expect(bookingLimitsOf({})).toEqual(NO_LIMITS);
    expect(closedSpans(NO_LIMITS, BERLIN, [at('2026-06-02T07:00:00Z', 50)])).toEqual([]);
  });

  it('words a date and a week in the provider zone', () => {
    const day = { period: 'day', value: '2026-06-02', from: '2026-06-02', to: '2026-06-02', max: 1, zone: BERLIN };
    expect(limitReachedText({ ...day, period: 'day' })).toBe(
      "2026-06-02 (Europe/Berlin) has reached this resource's limit of 1 booking a day; choose another day",
    );
    const week = { period: 'week', value: '2026-W27', from: '2026-06-29', to: '2026-07-05', max: 5, zone: BERLIN };
    expect(limitReachedText({ ...week, period: 'week' })).toBe(
      'the week 2026-W27 (Monday 2026-06-29 to Sunday 2026-07-05, Europe/Berlin) ' +
        "has reached this resource's limit of 5 bookings a week; choose another week",
    );
  });
});

describe('the slot engine leaves out starts in closed spans', () => {
  const T = ms('2026-06-02T06:00:00Z');
  const HOUR = 3_600_000;
  const timeslot: EngineTimeslot = {
    id: 'ts',
    resourceId: 'r1',
    startMs: T,
    endMs: T + 4 * HOUR,
    rasterMin: 60,
    defaultCapacity: 2,
    defaultAcceptBookings: true,
    state: 'BOOKABLE',
  };
  const group: EngineAppointment = {
    id: 'a',
    resourceId: 'r1',
    timeslotId: 'ts',
    productId: null,
    startMs: T + 5 * HOUR,
    endMs: T + 6 * HOUR,
    capacity: 3,
    acceptBookings: true,
    live: 1,
    state: 'ACTIVE',
    archived: false,
  };
  const query = { nowMs: T - HOUR, untilMs: T + 30 * HOUR, product: null };
  const starts = (closed: { resourceId: string; startMs: number; endMs: number }[]) =>
    computeBookables([timeslot], [group], query, [], closed).map(
      (b) => `${b.kind === 'models.Bookable' ? 'B' : 'L'}+${(b.startMs - T) / HOUR}`,
    );
  const r1 = (from: number, to: number) => ({ resourceId: 'r1', startMs: T + from * HOUR, endMs: T + to * HOUR });

  it('lists every slot without closed spans', () => {
    expect(starts([])).toEqual(['B+0', 'B+1', 'B+2', 'B+3', 'L+5']);
  });

  it('drops the slots and group appointments starting inside a span (half-open), keeps one starting before it', () => {
    // [T+1.5h, T+3h): the 1:00 slot ends inside it and stays, 2:00 goes, 3:00 starts at its end and stays
    expect(starts([r1(1.5, 3)])).toEqual(['B+0', 'B+1', 'B+3', 'L+5']);
    expect(starts([r1(5, 6)])).toEqual(['B+0', 'B+1', 'B+2', 'B+3']);
    // overlapping spans (a date inside its closed week) and another resource's span
    const spans = [r1(0, 2), r1(1, 1.5), { resourceId: 'r2', startMs: T, endMs: T + 10 * HOUR }];
    expect(starts(spans)).toEqual(['B+2', 'B+3', 'L+5']);
  });
});
