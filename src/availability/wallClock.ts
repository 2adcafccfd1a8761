/**
 * Wall-clock times of a rule's windows ("09:00", "24:00") as instants on a date in the provider's
 * zone (DESIGN.md §7.14): a time that does not exist that day (the spring-forward gap) moves
 * forward by the gap; one that occurs twice (the hour repeated in autumn) takes its first
 * occurrence. These are RFC 5545's rules for local times, so the one home of that rule serves
 * (calendars/zones.ts wallToMs: luxon's zone offsets, kept in tables per year, and not luxon's own
 * resolution, which takes the later occurrence). Pure: no clock, no I/O, whatever the process's TZ.
 */
import { ianaZone, offsetAt, wallToMs } from '../calendars/zones.js';

/** "HH:mm" from 00:00 to 23:59, and 24:00 (the end of the day) where a window ends. */
export const WALL_TIME_PATTERN = '^(?:[01][0-9]|2[0-3]):[0-5][0-9]$';
export const WALL_END_PATTERN = '^(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Minutes since midnight of "HH:mm" (24:00 is 1440). */
export function minuteOfDay(text: string): number {
  const [hours, minutes] = text.split(':').map(Number);
  return hours * 60 + minutes;
}

/** A date's midnight read as UTC: calendar arithmetic needs no zone. */
const utcMidnight = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** A calendar date (yyyy-MM-dd) shifted by whole days. */
export const addDays = (date: string, days: number) =>
  new Date(utcMidnight(date) + days * DAY_MS).toISOString().slice(0, 10);

/** The ISO weekday (1 Monday .. 7 Sunday) of a calendar date. */
export const weekdayOf = (date: string) => ((new Date(utcMidnight(date)).getUTCDay() + 6) % 7) + 1;

/** The date (yyyy-MM-dd) in `zone` at the instant `at`: today's, or a timeslot's. */
export function dateIn(at: Date, zone: string): string {
  const ms = at.getTime();
  return new Date(ms + offsetAt(ianaZone(zone), ms) * MINUTE_MS).toISOString().slice(0, 10);
}

/** The instant (epoch ms) of the wall-clock time `minute` (0..1440, 1440 the next date's 00:00) of `date` in `zone`. */
export const wallInstant = (date: string, minute: number, zone: string) =>
  wallToMs(ianaZone(zone), utcMidnight(date) + minute * MINUTE_MS);

/** The first instant of a date in `zone` (its 00:00, or the first minute after a gap there). */
export const startOfDate = (date: string, zone: string) => new Date(wallInstant(date, 0, zone));
