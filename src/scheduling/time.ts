/**
 * Request times and response times. A request time without an offset is a wall-clock time in the
 * provider's zone; with an offset (or Z) it is an exact instant. Responses carry the zone's offset.
 */
import { DateTime } from 'luxon';
import { invalid } from '../errors.js';

// Date, or date and time to the minute/second/fraction, optionally with Z or ±HH:MM / ±HHMM / ±HH.
// Only real dates (leap years counted) and times (00:00 to 23:59:59), in the years 1901 to 9998: every
// value of this form is an instant the service can store and answer in any zone (1900 to 9999 in UTC).
const YEAR = '(?:190[1-9]|19[1-9]\\d|[2-8]\\d{3}|9[0-8]\\d{2}|99[0-8]\\d|999[0-8])';
const LEAP_YEAR_END = '(?:0[48]|[2468][048]|[13579][26])';
const LEAP_YEAR = `(?:19${LEAP_YEAR_END}|[2-9]\\d${LEAP_YEAR_END}|(?:[2468][048]|[3579][26])00)`;
const MONTH_DAY =
  '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))';
const TIME = 'T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?';
const OFFSET = '(?:Z|[+-](?:[01]\\d|2[0-3])(?::?[0-5]\\d)?)';
export const ISO_DATE_TIME_PATTERN = `^(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)(?:${TIME}${OFFSET}?)?$`;
const ISO_FORM = new RegExp(ISO_DATE_TIME_PATTERN);

/** Whether a request time has the form of ISO_DATE_TIME_PATTERN (the document's format `iso-date-time`). */
export const isIsoDateTime = (value: string): boolean => ISO_FORM.test(value);

/** How a 400 words the rule: "<field> must be ...". */
export const ISO_DATE_TIME_RULE =
  'must be an ISO 8601 date-time such as 2026-06-01T10:00 or 2026-06-01T10:00:00+02:00, or a date ' +
  '(a real one, in the years 1901 to 9998)';

const HAS_OFFSET = /T.*(?:Z|[+-]\d{2}(?::?\d{2})?)$/;

function parse(value: string, zone: string, field: string): DateTime {
  // A time with an offset is an instant whatever the zone: read in UTC, it needs no zone rules (Intl,
  // costly on every booking). Every caller takes the instant, or sets the zone itself.
  const dt = ISO_FORM.test(value) ? DateTime.fromISO(value, { zone: HAS_OFFSET.test(value) ? 'UTC' : zone }) : null;
  if (!dt?.isValid) throw invalid(`${field} ${ISO_DATE_TIME_RULE}, got "${value}"`);
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
  return t.exact ? t.time.toJSDate() : t.time.setZone(zone, { keepLocalTime: true }).toJSDate();
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
