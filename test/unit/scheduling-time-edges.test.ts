/**
 * Edges of the time helpers and the booking window (issue 40, mutation testing): the accepted
 * ISO forms exactly, the year bounds, the messages, and the boundaries of every comparison.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/errors.js';
import {
  assertBookable,
  bookingWindowOf,
  insideWindow,
  mergeBookingWindow,
  NO_WINDOW,
  startBounds,
  withinCancelNotice,
} from '../../src/offerings/bookingWindow.js';
import {
  assertEndAfterStart,
  formatInstant,
  ISO_DATE_TIME_RULE,
  isIsoDateTime,
  nowRoundedUp,
  parseInstant,
  parseLocalDate,
  parseTimeOfDay,
} from '../../src/scheduling/time.js';

const BERLIN = 'Europe/Berlin';

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('the ISO forms a request time may take', () => {
  it.each([
    ['2026-06-01', '2026-05-31T22:00:00.000Z'],
    ['2026-06-01T10:00', '2026-06-01T08:00:00.000Z'],
    ['2026-06-01T10:00:30', '2026-06-01T08:00:30.000Z'],
    ['2026-06-01T10:00:30.5', '2026-06-01T08:00:30.500Z'],
    ['2026-06-01T10:00:30.123456789', '2026-06-01T08:00:30.123Z'],
    ['2026-06-01T10:00Z', '2026-06-01T10:00:00.000Z'],
    ['2026-06-01T10:00+01', '2026-06-01T09:00:00.000Z'],
    ['2026-06-01T10:00+0130', '2026-06-01T08:30:00.000Z'],
    ['2026-06-01T10:00-01:30', '2026-06-01T11:30:00.000Z'],
  ])('takes %j', (value, instant) => {
    expect(parseInstant(value, BERLIN, 'f').toISOString()).toBe(instant);
    expect(isIsoDateTime(value)).toBe(true);
  });

  it.each([
    'x2026-06-01T10:00',
    '2026-06-01T10:00x',
    '2026-06-01T10',
    '2026-06-01T10:00:30.',
    '2026-06-01T10:00:30.1234567890',
    '2026-06-01T10:00+1',
    '2026-06-01T10:00+01:3',
    '2026-06-01Z',
    '26-06-01',
    '2026-6-01',
  ])('refuses %j with the field and the value in the message', (value) => {
    const err = refusal(() => parseInstant(value, BERLIN, 'body.start'));
    expect(err.code).toBe('VALIDATION');
    expect(err.message).toBe(`body.start ${ISO_DATE_TIME_RULE}, got "${value}"`);
    expect(isIsoDateTime(value)).toBe(false);
  });

  it('takes the written years 1901 to 9998 (instants within 1900 to 9999 in any zone) and no others', () => {
    expect(parseInstant('1901-01-01T00:00+23:59', 'UTC', 'f').toISOString()).toBe('1900-12-31T00:01:00.000Z');
    expect(parseInstant('9998-12-31T23:59-23:59', 'UTC', 'f').toISOString()).toBe('9999-01-01T23:58:00.000Z');
    for (const value of ['1900-12-31T23:59Z', '9999-01-01T00:00Z', '0000-01-01']) {
      const err = refusal(() => parseInstant(value, 'UTC', 'body.end'));
      expect(err.message).toBe(`body.end ${ISO_DATE_TIME_RULE}, got "${value}"`);
    }
  });

  it('takes real dates only: leap days in leap years, no day 31 in a month of 30', () => {
    for (const value of ['2024-02-29', '2000-02-29T10:00', '2026-04-30', '2026-12-31T23:59:59.999']) {
      expect(isIsoDateTime(value)).toBe(true);
    }
    const unreal = [
      '2026-02-29',
      '1900-02-29',
      '2100-02-29',
      '2026-04-31',
      '2026-00-10',
      '2026-06-00',
      '2026-06-01T24:00',
    ];
    for (const value of [...unreal, '2026-06-01T10:60']) {
      expect(isIsoDateTime(value)).toBe(false);
    }
  });

  it('reads a value with an offset as the instant in any zone, also when asked in another zone first', () => {
    expect(parseInstant('2026-06-01T10:00:00+02:00', 'Asia/Tokyo', 'f').toISOString()).toBe('2026-06-01T08:00:00.000Z');
    expect(parseInstant('2026-06-01T10:00:00+02:00', 'UTC', 'f').toISOString()).toBe('2026-06-01T08:00:00.000Z');
    // without an offset the zone counts, also for a value asked before in another zone
    expect(parseInstant('2026-06-01T10:00', 'Asia/Tokyo', 'f').toISOString()).toBe('2026-06-01T01:00:00.000Z');
    expect(parseInstant('2026-06-01T10:00', 'UTC', 'f').toISOString()).toBe('2026-06-01T10:00:00.000Z');
  });
});

describe('assertEndAfterStart', () => {
  it('refuses an end at or before the start of the same form, naming both fields', () => {
    expect(() => assertEndAfterStart('2026-06-01T10:00', '2026-06-01T10:01', 's', 'e')).not.toThrow();
    expect(
      refusal(() => assertEndAfterStart('2026-06-01T10:00', '2026-06-01T10:00', 'body.start', 'body.end')).message,
    ).toBe('body.end must be after body.start');
    expect(() => assertEndAfterStart('2026-06-01T10:00', '2026-06-01T09:59', 's', 'e')).toThrow(DomainError);
    expect(() => assertEndAfterStart('2026-06-01T10:00Z', '2026-06-01T10:00Z', 's', 'e')).toThrow(DomainError);
    expect(() => assertEndAfterStart('2026-06-01T10:00+02:00', '2026-06-01T09:00Z', 's', 'e')).not.toThrow();
  });

  it.each([
    '2026-06-01T10:00Z',
    '2026-06-01T10:00+01',
    '2026-06-01T10:00+0130',
    '2026-06-01T10:00+01:30',
    '2026-06-01T10:00-01:30',
  ])('compares %j with an earlier instant as two instants (both have an offset)', (start) => {
    expect(refusal(() => assertEndAfterStart(start, '2026-06-01T05:00Z', 'body.start', 'body.end')).message).toBe(
      'body.end must be after body.start',
    );
  });

  it('refuses a start whose offset is followed by anything, even next to an end without offset', () => {
    expect(
      refusal(() => assertEndAfterStart('2026-06-01T10:00+01x', '2026-06-01T11:00', 'body.start', 'body.end')).message,
    ).toContain('body.start must be an ISO 8601');
  });

  it('leaves mixed forms to the caller, who knows the zone', () => {
    expect(() => assertEndAfterStart('2026-06-01T10:00', '2026-06-01T09:00Z', 's', 'e')).not.toThrow();
    expect(() => assertEndAfterStart('2026-06-01T10:00Z', '2026-06-01T09:00', 's', 'e')).not.toThrow();
  });

  it('names the field of the value that is not a date-time', () => {
    expect(refusal(() => assertEndAfterStart('2026-06-01T10:00', 'soon', 'body.start', 'body.end')).message).toContain(
      'body.end must be an ISO 8601',
    );
    expect(refusal(() => assertEndAfterStart('later', '2026-06-01T10:00', 'body.start', 'body.end')).message).toContain(
      'body.start must be an ISO 8601',
    );
  });
});

describe('formatInstant, parseLocalDate, parseTimeOfDay, nowRoundedUp', () => {
  it('drops the milliseconds and answers each second on its own', () => {
    expect(formatInstant(new Date('2026-06-01T08:00:00.999Z'), 'UTC')).toBe('2026-06-01T08:00:00Z');
    expect(formatInstant(new Date('2026-06-01T08:00:01.000Z'), 'UTC')).toBe('2026-06-01T08:00:01Z');
    expect(formatInstant(new Date('2026-06-01T08:00:59.500Z'), BERLIN)).toBe('2026-06-01T10:00:59+02:00');
  });

  it('takes the date and time of day in the zone, with seconds', () => {
    expect(parseLocalDate('2026-06-01T00:30', BERLIN, 'f').toISO()).toBe('2026-06-01T00:00:00.000+02:00');
    expect(parseTimeOfDay('2026-06-01T09:15:42', BERLIN, 'f')).toEqual({ hour: 9, minute: 15, second: 42 });
    expect(() => parseTimeOfDay('9:15', BERLIN, 'body.from')).toThrow(/body\.from/);
    expect(() => parseLocalDate('someday', BERLIN, 'body.day')).toThrow(/body\.day/);
  });

  it('keeps a full minute and rounds anything after it up', () => {
    expect(nowRoundedUp(new Date('2026-06-01T08:00:00.000Z')).toISOString()).toBe('2026-06-01T08:00:00.000Z');
    expect(nowRoundedUp(new Date('2026-06-01T08:00:59.999Z')).toISOString()).toBe('2026-06-01T08:01:00.000Z');
  });
});

describe('booking window edges', () => {
  it('fills missing members with null', () => {
    expect(bookingWindowOf(null)).toEqual(NO_WINDOW);
    expect(bookingWindowOf(undefined)).toEqual(NO_WINDOW);
    expect(bookingWindowOf({ cancelNoticeMinutes: 15 })).toEqual({
      minNoticeMinutes: null,
      maxAdvanceDays: null,
      cancelNoticeMinutes: 15,
    });
  });

  it('keeps stored members the changes do not name (undefined is not null)', () => {
    expect(
      mergeBookingWindow(
        { minNoticeMinutes: 30, cancelNoticeMinutes: 60 },
        { maxAdvanceDays: undefined, cancelNoticeMinutes: 10 },
      ),
    ).toEqual({
      minNoticeMinutes: 30,
      maxAdvanceDays: null,
      cancelNoticeMinutes: 10,
    });
    expect(mergeBookingWindow(null, {})).toBeNull();
    expect(mergeBookingWindow({ maxAdvanceDays: 3 }, {})).toEqual({
      minNoticeMinutes: null,
      maxAdvanceDays: 3,
      cancelNoticeMinutes: null,
    });
  });

  it('is inside from fromMs on and up to, not including, untilMs', () => {
    const b = { fromMs: 1000, untilMs: 2000 };
    expect(insideWindow(b, 999)).toBe(false);
    expect(insideWindow(b, 1000)).toBe(true);
    expect(insideWindow(b, 1999)).toBe(true);
    expect(insideWindow(b, 2000)).toBe(false);
  });

  it('starts at now without minNotice and ends maxAdvanceDays + 1 midnights ahead', () => {
    const now = Date.parse('2026-06-01T08:00:00Z');
    expect(startBounds({ ...NO_WINDOW, maxAdvanceDays: 2 }, now, BERLIN)).toEqual({
      fromMs: now,
      untilMs: Date.parse('2026-06-03T22:00:00Z'),
    });
    expect(startBounds({ ...NO_WINDOW, minNoticeMinutes: 0 }, now, BERLIN)).toEqual({ fromMs: now, untilMs: Infinity });
  });

  it('refuses exactly at the bounds with messages that name the field and the limit', () => {
    const w = { minNoticeMinutes: 30, maxAdvanceDays: 1, cancelNoticeMinutes: null };
    const now = new Date('2026-06-01T08:00:00Z');
    expect(() => assertBookable(w, new Date('2026-06-01T08:30:00Z'), now, BERLIN, 'body.from')).not.toThrow();
    const early = refusal(() => assertBookable(w, new Date('2026-06-01T08:29:59.999Z'), now, BERLIN, 'body.from'));
    expect(early.code).toBe('BOOKING_WINDOW');
    expect(early.message).toBe('body.from: this slot can be booked until 30 minutes before it starts');
    expect(() => assertBookable(w, new Date('2026-06-02T21:59:59.999Z'), now, BERLIN, 'body.from')).not.toThrow();
    const late = refusal(() => assertBookable(w, new Date('2026-06-02T22:00:00Z'), now, BERLIN, 'body.from'));
    expect(late.code).toBe('BOOKING_WINDOW');
    expect(late.message).toBe('body.from: this slot lies more than 1 days ahead and cannot be booked yet');
    expect(() => assertBookable(NO_WINDOW, new Date('2026-06-01T08:00:00Z'), now, BERLIN, 'body.from')).not.toThrow();
    expect(() => assertBookable(NO_WINDOW, new Date('2026-06-01T07:59:59.999Z'), now, BERLIN, 'body.from')).toThrow(
      DomainError,
    );
  });

  it('is within the cancel notice from the minute after start - notice on; with a notice of 0 once started', () => {
    const start = new Date('2026-06-01T12:00:00Z');
    expect(withinCancelNotice(60, start, new Date('2026-06-01T11:00:00.000Z'))).toBe(false);
    expect(withinCancelNotice(60, start, new Date('2026-06-01T11:00:00.001Z'))).toBe(true);
    expect(withinCancelNotice(0, start, new Date('2026-06-01T12:00:00.000Z'))).toBe(false);
    expect(withinCancelNotice(0, start, new Date('2026-06-01T12:00:00.001Z'))).toBe(true);
    // without a notice there is no limit at all, also once started
    expect(withinCancelNotice(null, start, new Date('2026-06-01T12:00:00.001Z'))).toBe(false);
    expect(withinCancelNotice(null, start, new Date('2026-06-02T12:00:00Z'))).toBe(false);
  });
});
