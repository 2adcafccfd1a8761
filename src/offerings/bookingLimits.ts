/**
 * A resource's booking limits (DESIGN 7.11, docs/api.md "Booking limits"): at most `perDay` live
 * participations (holds while live, REQUESTED, BOOKED) in the resource's current appointments that
 * start on one date, at most `perWeek` in one ISO week (Monday to Sunday), both in the provider's
 * zone. null: no limit.
 *
 * Pure rules: A1 leaves out the dates and weeks at their limit with `closedSpans`; the database
 * enforces the limits when a place is taken (scheduling/check_booking_limits.sql).
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

/** One limit's periods (dates or weeks) in a zone: the live participations counted per period. */
class PeriodCounts {
  private readonly counts = new Map<number, { span: Span; n: number }>();
  private last: Span | null = null;

  constructor(
    private readonly max: number,
    private readonly zone: string,
    private readonly unit: 'day' | 'week',
  ) {}

  /** Luxon only when `startMs` leaves the period of the one before (appointments come sorted). */
  add(startMs: number, n: number): void {
    let span = this.last;
    // (always computing the span anew, or at its very start, gives the same span: only slower)
    if (!span || startMs < span.startMs || startMs >= span.endMs) {
      const first = DateTime.fromMillis(startMs, { zone: this.zone }).startOf(this.unit);
      span = this.last = { startMs: first.toMillis(), endMs: first.plus({ [this.unit]: 1 }).toMillis() };
    }
    const counted = this.counts.get(span.startMs);
    if (counted) counted.n += n;
    else this.counts.set(span.startMs, { span, n });
  }

  /** The periods at their limit. */
  full(): Span[] {
    return [...this.counts.values()].filter((c) => c.n >= this.max).map((c) => c.span);
  }
}

/**
 * The dates and weeks at their limit, as the spans in which no slot of the resource may start
 * (computed in `zone` with luxon, so A1's hot loop compares epoch numbers only). `appointments` are
 * the resource's current appointments with their live participations at the listing's time; those
 * of a week reaching outside them must be among them too (the listing reads a week more each way).
 */
export function closedSpans(limits: BookingLimits, zone: string, appointments: Iterable<CountedAppointment>): Span[] {
  const periods: PeriodCounts[] = [];
  if (limits.perDay !== null) periods.push(new PeriodCounts(limits.perDay, zone, 'day'));
  if (limits.perWeek !== null) periods.push(new PeriodCounts(limits.perWeek, zone, 'week'));
  for (const a of appointments) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: live 0 adds nothing; skipped, it costs no luxon
    if (a.live > 0) for (const p of periods) p.add(a.startMs, a.live);
  }
  return periods.flatMap((p) => p.full()).sort((x, y) => x.startMs - y.startMs);
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
