/**
 * Wall-clock times of a rule's windows ("09:00", "24:00") as instants on a date in the provider's
 * zone, with luxon (DESIGN.md §7.14): a time that does not exist that day (the spring-forward gap)
 * moves forward by the gap; one that occurs twice (the hour repeated in autumn) takes its first
 * occurrence. Pure: no clock, no I/O, whatever the process's TZ.
 */
import { DateTime } from 'luxon';

/** "HH:mm" from 00:00 to 23:59, and 24:00 (the end of the day) where a window ends. */
export const WALL_TIME_PATTERN = '^(?:[01][0-9]|2[0-3]):[0-5][0-9]$';
export const WALL_END_PATTERN = '^(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';

export const MINUTES_PER_DAY = 1440;

/** Minutes since midnight of "HH:mm" (24:00 is 1440). */
export function minuteOfDay(text: string): number {
  const [hours, minutes] = text.split(':').map(Number);
  return hours * 60 + minutes;
}

/** A calendar date (yyyy-MM-dd) shifted by whole days, in plain calendar arithmetic. */
export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate()!;
}

/** The ISO weekday (1 Monday .. 7 Sunday) of a calendar date. */
export const weekdayOf = (date: string) => DateTime.fromISO(date, { zone: 'UTC' }).weekday;

/** Today's date (yyyy-MM-dd) in `zone` at the instant `now`. */
export const dateIn = (now: Date, zone: string) => DateTime.fromJSDate(now, { zone }).toISODate()!;

/**
 * The instant (epoch ms) of the wall-clock time `minute` (0..1440) of `date` in `zone`. 1440 is
 * the next date's 00:00. luxon moves a time in a gap forward by the gap, as wanted, but resolves a
 * time that occurs twice to its later occurrence: of the possible offsets the earliest instant is
 * taken here.
 */
export function wallInstant(date: string, minute: number, zone: string): number {
  const day = minute === MINUTES_PER_DAY ? addDays(date, 1) : date;
  const [year, month, dayOfMonth] = day.split('-').map(Number);
  const within = minute % MINUTES_PER_DAY;
  const local = DateTime.fromObject({ year, month, day: dayOfMonth, hour: Math.floor(within / 60), minute: within % 60 }, { zone });
  let first = local.toMillis();
  for (const candidate of local.getPossibleOffsets()) first = Math.min(first, candidate.toMillis());
  return first;
}

/** The first instant of a date in `zone` (its 00:00, or the first minute after a gap there). */
export const startOfDate = (date: string, zone: string) => new Date(wallInstant(date, 0, zone));
