/**
 * One event's busy spans: a series (RRULE, RDATE, EXDATE) expanded by ical.js in the event's own
 * zone, and the length of each instance; all-day ones as whole days in the provider's zone.
 */
import ICAL from 'ical.js';
import { CalendarFormatError } from './calendarFormatError.js';
import type { Interval } from './intervals.js';
import { ianaZone, wallToMs } from './zones.js';

const DAY = 86_400_000;
/** Steps of one series' expansion before the window's end, and of a whole calendar's: beyond, the
 * calendar is refused (a FREQ=SECONDLY rule from 1970 would otherwise hold a worker for minutes). */
export const MAX_STEPS_PER_EVENT = 100_000;
export const MAX_STEPS_PER_CALENDAR = 1_000_000;

export interface Window {
  fromMs: number;
  toMs: number;
  providerZone: string;
}

export class StepBudget {
  private total = 0;
  private event = 0;

  startEvent(): void {
    this.event = 0;
  }

  step(uid: string): void {
    if (++this.event > MAX_STEPS_PER_EVENT) throw new CalendarFormatError(`the event ${JSON.stringify(uid)} repeats too often to read (more than ${MAX_STEPS_PER_EVENT} occurrences)`);
    if (++this.total > MAX_STEPS_PER_CALENDAR) throw new CalendarFormatError(`the calendar's events repeat too often to read (more than ${MAX_STEPS_PER_CALENDAR} occurrences)`);
  }
}

/** An instance's length: whole days (all-day), exact milliseconds (DTEND), or a DURATION's nominal days plus exact ms. */
type Length = { days: number; ms: number; nominal: boolean };

function lengthOf(event: ICAL.Component, start: ICAL.Time): Length | null {
  const end = event.getFirstPropertyValue('dtend');
  const duration = event.getFirstPropertyValue('duration');
  if (start.isDate) {
    if (end instanceof ICAL.Time) return { days: Math.max(1, Math.round((dateMs(end) - dateMs(start)) / DAY)), ms: 0, nominal: true };
    if (duration instanceof ICAL.Duration && !duration.isNegative) return { days: Math.max(1, Math.ceil(duration.toSeconds() / 86_400)), ms: 0, nominal: true };
    return { days: 1, ms: 0, nominal: true };
  }
  if (end instanceof ICAL.Time) return { days: 0, ms: msOf(end) - msOf(start), nominal: false };
  if (duration instanceof ICAL.Duration && !duration.isNegative) {
    return { days: duration.weeks * 7 + duration.days, ms: ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000, nominal: true };
  }
  return null; // a date-time with neither DTEND nor DURATION lasts no time: not busy
}

const msOf = (t: ICAL.Time) => t.toUnixTime() * 1000;
const dateMs = (t: ICAL.Time) => Date.UTC(t.year, t.month - 1, t.day);
/** When an instance starts: a date at the start of that day in the provider's zone. */
const startOf = (t: ICAL.Time, providerZone: string) => (t.isDate ? wallToMs(ianaZone(providerZone), dateMs(t)) : msOf(t));

/** The span of an instance starting at `start` with the event's length. */
function spanOf(length: Length, start: ICAL.Time, providerZone: string): Interval | null {
  if (start.isDate) {
    return { startMs: startOf(start, providerZone), endMs: wallToMs(ianaZone(providerZone), dateMs(start) + length.days * DAY) };
  }
  const startMs = msOf(start);
  let base = startMs;
  if (length.days) {
    const later = start.clone();
    later.adjust(length.days, 0, 0, 0);
    base = msOf(later);
  }
  const endMs = base + length.ms;
  return endMs > startMs ? { startMs, endMs } : null;
}

/** The span of one event (an override, or a single event) at `start`, by its own DTEND or DURATION. */
export function itemSpan(event: ICAL.Component, start: ICAL.Time, window: Window): Interval | null {
  const length = lengthOf(event, start);
  const span = length && spanOf(length, start, window.providerZone);
  return span && span.endMs > window.fromMs && span.startMs < window.toMs ? span : null;
}

/**
 * Pushes the spans of a series' instances that overlap the window, except those `overridden`
 * (recurrence ids as ical.js unix seconds). Stops at the first instance starting at or after toMs.
 */
export function expandSeries(master: ICAL.Component, uid: string, overridden: Set<number>, window: Window, budget: StepBudget, out: Interval[]): void {
  const dtstart = master.getFirstPropertyValue('dtstart');
  if (!(dtstart instanceof ICAL.Time)) throw new CalendarFormatError(`the event ${JSON.stringify(uid)} has no valid DTSTART`);
  const length = lengthOf(master, dtstart);
  if (!length) return;
  const emit = (t: ICAL.Time) => {
    if (overridden.has(t.toUnixTime())) return;
    const span = spanOf(length, t, window.providerZone);
    if (span && span.endMs > window.fromMs && span.startMs < window.toMs) out.push(span);
  };
  // DTSTART is always the first instance (RFC 5545 3.8.5.3); ical.js leaves it out when there is no RRULE
  if (!excluded(master, dtstart)) emit(dtstart);
  if (!master.hasProperty('rrule') && !master.hasProperty('rdate')) return;
  budget.startEvent();
  const startKey = dtstart.toUnixTime();
  let expansion: ICAL.RecurExpansion;
  try {
    expansion = new ICAL.RecurExpansion({ component: master, dtstart });
  } catch (err) {
    throw new CalendarFormatError(`the repeat rule of the event ${JSON.stringify(uid)} cannot be read (${(err as Error).message})`);
  }
  for (;;) {
    let t: ICAL.Time | undefined;
    try {
      t = expansion.next() as ICAL.Time | undefined;
    } catch (err) {
      throw new CalendarFormatError(`the repeat rule of the event ${JSON.stringify(uid)} cannot be expanded (${(err as Error).message})`);
    }
    if (!t) return;
    budget.step(uid);
    if (t.toUnixTime() === startKey) continue;
    if (startOf(t, window.providerZone) >= window.toMs) return;
    emit(t);
  }
}

/** Whether an EXDATE of the event removes the instance at `t` (a DATE EXDATE removes that day's). */
function excluded(event: ICAL.Component, t: ICAL.Time): boolean {
  for (const prop of event.getAllProperties('exdate')) {
    for (const value of prop.getValues()) {
      if (!(value instanceof ICAL.Time)) continue;
      if (value.isDate ? dateMs(value) === dateMs(t) : value.toUnixTime() === t.toUnixTime()) return true;
    }
  }
  return false;
}
