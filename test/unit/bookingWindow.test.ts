import { describe, expect, it } from 'vitest';
import {
  assertBookable,
  mergeBookingWindow,
  nextDayStartMs,
  startBounds,
  withinCancelNotice,
  NO_WINDOW,
} from '../../src/offerings/bookingWindow.js';

const BERLIN = 'Europe/Berlin';
const at = (iso: string) => new Date(iso);

describe('booking window rules', () => {
  it('starts the window minNotice after now and ends it at the end of the day maxAdvanceDays ahead in the zone', () => {
    const now = Date.parse('2026-06-01T21:30:00Z'); // 23:30 in Berlin
    const b = startBounds({ minNoticeMinutes: 45, maxAdvanceDays: 1, cancelNoticeMinutes: null }, now, BERLIN);
    expect(new Date(b.fromMs).toISOString()).toBe('2026-06-01T22:15:00.000Z');
    expect(new Date(b.untilMs).toISOString()).toBe('2026-06-02T22:00:00.000Z'); // midnight 3 June in Berlin
    expect(startBounds(NO_WINDOW, now, BERLIN)).toEqual({ fromMs: now, untilMs: Infinity });
    expect(
      new Date(startBounds({ ...NO_WINDOW, maxAdvanceDays: 0 }, now, 'America/New_York').untilMs).toISOString(),
    ).toBe('2026-06-02T04:00:00.000Z');
  });

  it('knows a day of 23 hours: the window moves at the zone midnight', () => {
    expect(new Date(nextDayStartMs(Date.parse('2026-03-28T12:00:00Z'), BERLIN)).toISOString()).toBe(
      '2026-03-28T23:00:00.000Z',
    );
    expect(new Date(nextDayStartMs(Date.parse('2026-03-29T12:00:00Z'), BERLIN)).toISOString()).toBe(
      '2026-03-29T22:00:00.000Z',
    );
  });

  it('refuses with BOOKING_WINDOW before minNotice and from the end of the last day on', () => {
    const w = { minNoticeMinutes: 60, maxAdvanceDays: 0, cancelNoticeMinutes: null };
    const now = at('2026-06-01T08:00:00Z');
    expect(() => assertBookable(w, at('2026-06-01T09:00:00Z'), now, BERLIN, 'body.from')).not.toThrow();
    expect(() => assertBookable(w, at('2026-06-01T08:59:00Z'), now, BERLIN, 'body.from')).toThrow(
      expect.objectContaining({ code: 'BOOKING_WINDOW' }),
    );
    expect(() => assertBookable(w, at('2026-06-01T21:59:00Z'), now, BERLIN, 'body.from')).not.toThrow();
    expect(() => assertBookable(w, at('2026-06-01T22:00:00Z'), now, BERLIN, 'body.from')).toThrow(
      /more than 0 days ahead/,
    );
  });

  it('is inside the cancel notice only with less than cancelNoticeMinutes left', () => {
    const start = at('2026-06-01T12:00:00Z');
    expect(withinCancelNotice(null, start, at('2026-06-01T11:59:00Z'))).toBe(false);
    expect(withinCancelNotice(60, start, at('2026-06-01T11:00:00Z'))).toBe(false);
    expect(withinCancelNotice(60, start, at('2026-06-01T11:00:01Z'))).toBe(true);
  });

  it('merges given members, clears one with null and all with null', () => {
    expect(mergeBookingWindow(null, { minNoticeMinutes: 30 })).toEqual({
      minNoticeMinutes: 30,
      maxAdvanceDays: null,
      cancelNoticeMinutes: null,
    });
    expect(mergeBookingWindow({ minNoticeMinutes: 30, maxAdvanceDays: 5 }, { maxAdvanceDays: null })).toEqual({
      minNoticeMinutes: 30,
      maxAdvanceDays: null,
      cancelNoticeMinutes: null,
    });
    expect(mergeBookingWindow({ minNoticeMinutes: 30 }, { minNoticeMinutes: null })).toBeNull();
    expect(mergeBookingWindow({ minNoticeMinutes: 30 }, null)).toBeNull();
  });
});
