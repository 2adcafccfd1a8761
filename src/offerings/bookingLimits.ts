/**
 * A resource's booking limits (DESIGN 7.11, docs/api.md "Booking limits"): at most `perDay` live
 * participations (holds while live, REQUESTED, BOOKED) in the resource's current appointments that
 * start on one date, at most `perWeek` in one ISO week (Monday to Sunday), both in the provider's
 * zone. null: no limit.
 *
 * Pure rules: A1 leaves out the dates and weeks at their limit with `closedSpans`; the database
 * enforces the limits when a place is taken (scheduling/booking_limits.sql).
 */
import { DateTime } from 'luxon';

export interface BookingLimits {
  perDay: number | null;
  perWeek: number | null;
}

export const NO_LIMITS: BookingLimits = { perDay: null, perWeek: null };

/** The stored columns (resources.booking_limit_per_day, booking_limit_per_week) as limits. */
export function bookingLimitsOf(row: {
  booking_limit_per_day?: number | null;
  booking_limit_per_week?: number | null;
}): BookingLimits {
  return { perDay: row.booking_limit_per_day ?? null, perWeek: row.booking_limit_per_week ?? null };
}

/** B3/B4's member as column values: the whole object replaces the stored one; null clears both. */
export function bookingLimitColumns(limits: Partial<BookingLimits> | null) {
  return { booking_limit_per_day: limits?.perDay ?? null, booking_limit_per_week: limits?.perWeek ?? null };
}

export const hasLimits = (limits: BookingLimits) => limits.perDay !== null || limits.perWeek !== null;

/** A span of time, epoch milliseconds, half-open: [startMs, endMs). */
export interface Span {
  startMs: number;
  endMs: number;
}

/** What an appointment adds to its date's and week's counts: its live participations, by its start. */
export interface CountedAppointment {
  startMs: number;
  live: number;
}

/**
 * The dates and weeks at their limit, as the spans in which no slot of the resource may start
 * (computed in `zone` with luxon, so A1's hot loop compares epoch numbers only). `appointments` are
 * the resource's current appointments with their live participations at the listing's time; those
 * of a week reaching outside them must be among them too (the listing reads a week more each way).
 */
export function closedSpans(limits: BookingLimits, zone: string, appointments: Iterable<CountedAppointment>): Span[] {
  if (!hasLimits(limits)) return [];
  const days = new Map<number, number>();
  const weeks = new Map<number, number>();
  const add = (counts: Map<number, number>, key: number, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);
  for (const a of appointments) {
    if (a.live <= 0) continue;
    const start = DateTime.fromMillis(a.startMs, { zone });
    if (limits.perDay !== null) add(days, start.startOf('day').toMillis(), a.live);
    if (limits.perWeek !== null) add(weeks, start.startOf('week').toMillis(), a.live);
  }
  const spans: Span[] = [];
  const close = (counts: Map<number, number>, max: number | null, length: { days: number } | { weeks: number }) => {
    for (const [startMs, n] of counts) {
      if (max === null || n < max) continue;
      spans.push({ startMs, endMs: DateTime.fromMillis(startMs, { zone }).plus(length).toMillis() });
    }
  };
  close(days, limits.perDay, { days: 1 });
  close(weeks, limits.perWeek, { weeks: 1 });
  return spans.sort((x, y) => x.startMs - y.startMs);
}

/** Which limit a refused place met (the kernel's BKLIM detail, scheduling/claimPlace.ts). */
export interface LimitReached {
  period: 'day' | 'week';
  /** the local date (2026-06-02) or ISO week (2026-W23) */
  value: string;
  /** the period's first and last local date */
  from: string;
  to: string;
  max: number;
  zone: string;
}

/**
 * The refusal in the provider's zone and words, e.g. "2026-06-02 (Europe/Berlin) has reached this
 * resource's limit of 3 bookings a day; choose another day".
 */
export function limitReachedText(limit: LimitReached): string {
  const bookings = `${limit.max} booking${limit.max === 1 ? '' : 's'}`;
  const reached = `has reached this resource's limit of ${bookings}`;
  if (limit.period === 'day') return `${limit.value} (${limit.zone}) ${reached} a day; choose another day`;
  const week = `the week ${limit.value} (Monday ${limit.from} to Sunday ${limit.to}, ${limit.zone})`;
  return `${week} ${reached} a week; choose another week`;
}
