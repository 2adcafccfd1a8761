/**
 * The booking window of a resource (docs/lifecycle.md): how soon before a slot it can be booked at the
 * latest (minNoticeMinutes), how far ahead at most (maxAdvanceDays: until the end of the day that
 * many days from today, in the provider's zone), and until when before its start a booking can be
 * cancelled or moved through the consumer's link (cancelNoticeMinutes). null: no limit.
 * Pure rules: A1 filters with them, A2/A3/reschedule refuse with them.
 */
import { DateTime } from 'luxon';
import { DomainError } from '../errors.js';

export interface BookingWindow {
  minNoticeMinutes: number | null;
  maxAdvanceDays: number | null;
  cancelNoticeMinutes: number | null;
}

export const NO_WINDOW: BookingWindow = { minNoticeMinutes: null, maxAdvanceDays: null, cancelNoticeMinutes: null };

const MINUTE_MS = 60_000;

/** The stored column (NULL, or an object with some members) as a whole window. */
export function bookingWindowOf(stored: Partial<BookingWindow> | null | undefined): BookingWindow {
  return {
    minNoticeMinutes: stored?.minNoticeMinutes ?? null,
    maxAdvanceDays: stored?.maxAdvanceDays ?? null,
    cancelNoticeMinutes: stored?.cancelNoticeMinutes ?? null,
  };
}

/** Given members replace stored ones (null clears one); `null` as a whole clears every limit. */
export function mergeBookingWindow(
  stored: Partial<BookingWindow> | null | undefined,
  changes: Partial<BookingWindow> | null,
): BookingWindow | null {
  if (changes === null) return null;
  const merged = {
    ...bookingWindowOf(stored),
    ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)),
  };
  return Object.values(merged).every((v) => v === null) ? null : merged;
}

/** Slots starting in [fromMs, untilMs) can be booked at nowMs. */
export interface StartBounds {
  fromMs: number;
  untilMs: number;
}

export function startBounds(window: BookingWindow, nowMs: number, zone: string): StartBounds {
  const fromMs = nowMs + (window.minNoticeMinutes ?? 0) * MINUTE_MS;
  if (window.maxAdvanceDays === null) return { fromMs, untilMs: Infinity };
  const today = DateTime.fromMillis(nowMs, { zone }).startOf('day');
  return {
    fromMs,
    untilMs: today
      .plus({ days: window.maxAdvanceDays + 1 })
      .startOf('day')
      .toMillis(),
  };
}

/**
 * When the bounds of a window next move on their own: the next
 * midnight in the zone (maxAdvanceDays); minNotice moves continuously.
 */
export function nextDayStartMs(nowMs: number, zone: string): number {
  return DateTime.fromMillis(nowMs, { zone }).startOf('day').plus({ days: 1 }).startOf('day').toMillis();
}

export const insideWindow = (b: StartBounds, startMs: number) => startMs >= b.fromMs && startMs < b.untilMs;

/** A2, A3 and reschedule: 412 BOOKING_WINDOW for a slot the resource does not take bookings for now. */
export function assertBookable(window: BookingWindow, start: Date, now: Date, zone: string, field: string): void {
  const b = startBounds(window, now.getTime(), zone);
  if (start.getTime() < b.fromMs) {
    throw new DomainError(
      'BOOKING_WINDOW',
      `${field}: this slot can be booked until ${window.minNoticeMinutes} minutes before it starts`,
    );
  }
  if (start.getTime() >= b.untilMs) {
    throw new DomainError(
      'BOOKING_WINDOW',
      `${field}: this slot lies more than ${window.maxAdvanceDays} days ahead and cannot be booked yet`,
    );
  }
}

/** Cancelling or moving by the consumer's link is possible until cancelNoticeMinutes before the start. */
export function withinCancelNotice(cancelNoticeMinutes: number | null, start: Date, now: Date): boolean {
  return cancelNoticeMinutes !== null && now.getTime() > start.getTime() - cancelNoticeMinutes * MINUTE_MS;
}
