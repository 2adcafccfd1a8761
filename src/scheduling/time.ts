/**
 * Request times and response times. A request time without an offset is a wall-clock time in the
 * provider's zone; with an offset (or Z) it is an exact instant. Responses carry the zone's offset.
 */
import { DateTime } from 'luxon';
import { invalid } from '../errors.js';

// Date, or date and time to the minute/second/fraction, optionally with Z or ±HH:MM / ±HHMM / ±HH.
export const ISO_DATE_TIME_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}(?:T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}(?::?\\d{2})?)?)?$';
const ISO_FORM = new RegExp(ISO_DATE_TIME_PATTERN);

// Instants the service stores and answers; outside, storage fails (year 0) and zones fall back to local mean time.
const MIN_YEAR = 1900;
const MAX_YEAR = 9999;

const HAS_OFFSET = /T.*(?:Z|[+-]\d{2}(?::?\d{2})?)$/;

function parse(value: string, zone: string, field: string): DateTime {
  // A time with an offset is an instant whatever the zone: read in UTC, it needs no zone rules (Intl,
  // costly on every booking). Every caller takes the instant, or sets the zone itself.
  const dt = ISO_FORM.test(value) ? DateTime.fromISO(value, { zone: HAS_OFFSET.test(value) ? 'UTC' : zone }) : null;
  if (!dt?.isValid) {
    throw invalid(
      `${field} must be an ISO 8601 date-time such as 2026-06-01T10:00 or 2026-06-01T10:00:00+02:00, got "${value}"`,
    );
  }
  return inYearRange(dt, value, field);
}

function inYearRange(dt: DateTime, value: string, field: string): DateTime {
  const year = dt.toUTC().year;
  if (year < MIN_YEAR || year > MAX_YEAR)
    throw invalid(`${field} must lie between the years ${MIN_YEAR} and ${MAX_YEAR}, got "${value}"`);
  return dt;
}

/**
 * The instant a request time stands for. Without an offset it is read in `zone` (a time that does
 * not exist there, in the spring-forward gap, moves forward; an ambiguous one takes the later offset).
 */
export function parseInstant(value: string, zone: string, field: string): Date {
  return parse(value, zone, field).toJSDate();
}

/**
 * A request time read once, before the provider's zone is known (400 naming the field when it is no
 * ISO 8601 date-time): an exact instant when it carries an offset, else a wall-clock time that
 * `instantIn` reads in the provider's zone.
 */
export interface RequestTime {
  text: string;
  field: string;
  /** it carried an offset (or Z): `time` is the instant */
  exact: boolean;
  /** the instant, or the wall-clock time as if it were UTC */
  time: DateTime;
}

export function readRequestTime(value: string, field: string): RequestTime {
  return { text: value, field, exact: HAS_OFFSET.test(value), time: parse(value, 'UTC', field) };
}

/** The instant of a request time in `zone` (the same as parseInstant of its text, parsed once). */
export function instantIn(t: RequestTime, zone: string): Date {
  return t.exact
    ? t.time.toJSDate()
    : inYearRange(t.time.setZone(zone, { keepLocalTime: true }), t.text, t.field).toJSDate();
}

/** A request's start and end, read once; their order is checked where no zone is needed (400 naming the end). */
export interface RequestSpan {
  start: RequestTime;
  end: RequestTime;
}

export function readRequestSpan(start: string, end: string, fields: { start: string; end: string }): RequestSpan {
  const span = { start: readRequestTime(start, fields.start), end: readRequestTime(end, fields.end) };
  // both exact, or both wall-clock times of the same zone: ordered without knowing it
  if (span.start.exact === span.end.exact && span.end.time.toMillis() <= span.start.time.toMillis()) {
    throw invalid(`${fields.end} must be after ${fields.start}`);
  }
  return span;
}

/** The span's instants in `zone`; 400 naming the end unless it is after the start. */
export function spanIn(span: RequestSpan, zone: string): { start: Date; end: Date } {
  const start = instantIn(span.start, zone);
  const end = instantIn(span.end, zone);
  if (end.getTime() <= start.getTime()) throw invalid(`${span.end.field} must be after ${span.start.field}`);
  return { start, end };
}

/** Fails with a 400 naming the field unless the value is an ISO 8601 date-time; needs no zone. */
export function assertInstantSyntax(value: string, field: string): void {
  parse(value, 'UTC', field);
}

/**
 * 400 unless `end` is after `start`, decided before any lookup wherever no zone is needed: both
 * with an offset (exact instants) or both without (wall-clock times of the same zone). Mixed forms
 * are compared once the provider's zone is known.
 */
export function assertEndAfterStart(start: string, end: string, startField: string, endField: string): void {
  if (HAS_OFFSET.test(start) !== HAS_OFFSET.test(end)) return;
  if (parseInstant(end, 'UTC', endField).getTime() <= parseInstant(start, 'UTC', startField).getTime()) {
    throw invalid(`${endField} must be after ${startField}`);
  }
}

// Answers repeat the same instants (a slot's start and end, booking after booking); the zone's offset
// at an instant costs luxon an Intl call each time.
const formatted = new Map<string, string>();
const FORMATTED_LIMIT = 20_000;

/** ISO 8601 with the zone's offset and no milliseconds, e.g. 2026-06-01T10:00:00+02:00. */
export function formatInstant(d: Date, zone: string): string {
  const key = `${zone}|${Math.floor(d.getTime() / 1000)}`;
  let iso = formatted.get(key);
  if (iso === undefined) {
    iso = DateTime.fromJSDate(d, { zone }).set({ millisecond: 0 }).toISO({ suppressMilliseconds: true })!;
    if (formatted.size >= FORMATTED_LIMIT) formatted.clear();
    formatted.set(key, iso);
  }
  return iso;
}

/** The calendar date (in `zone`) of a date or date-time, e.g. a series' first and last day. */
export function parseLocalDate(value: string, zone: string, field: string): DateTime {
  return parse(value, zone, field).setZone(zone).startOf('day');
}

export interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock time of day (in `zone`) of a date-time, e.g. a series' daily window. */
export function parseTimeOfDay(value: string, zone: string, field: string): TimeOfDay {
  const dt = parse(value, zone, field).setZone(zone);
  return { hour: dt.hour, minute: dt.minute, second: dt.second };
}

/** Now, rounded up to the next full minute: the default start of a timeslot. */
export function nowRoundedUp(now: Date): Date {
  const ms = now.getTime();
  return new Date(Math.ceil(ms / 60_000) * 60_000);
}
