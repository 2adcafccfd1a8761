/**
 * One event's busy spans: a series (RRULE, RDATE, EXDATE) expanded by ical.js in the event's own
 * zone, and the length of each instance; all-day ones as whole days in the provider's zone.
 */
import ICAL from 'ical.js';
import { CalendarFormatError } from './calendarFormatError.js';
import type { Interval } from './intervals.js';
import { ianaZone, wallToMs } from './zones.js';

const DAY = 86_400_000;
/**
 * Candidates ical.js may examine for one series, and for a whole calendar (an ical.js step costs
 * 10-30 µs; the 5 MiB bench calendar needs ~26,000): beyond, the calendar is refused, never read
 * as partly free (a FREQ=SECONDLY rule from 1970 would otherwise hold a worker for minutes).
 */
export const MAX_STEPS_PER_EVENT = 50_000;
export const MAX_STEPS_PER_CALENDAR = 300_000;

export interface Window {
  fromMs: number;
  toMs: number;
  providerZone: string;
}

export class StepBudget {
  private total = 0;
  private event = 0;

  constructor(private readonly limits = { perEvent: MAX_STEPS_PER_EVENT, perCalendar: MAX_STEPS_PER_CALENDAR }) {}

  startEvent(): void {
    this.event = 0;
  }

  step(uid: string): void {
    const { perEvent, perCalendar } = this.limits;
    if (++this.event > perEvent)
      throw new CalendarFormatError(
        `the event ${JSON.stringify(uid)} repeats too often to read (more than ${perEvent} occurrences)`,
      );
    if (++this.total > perCalendar)
      throw new CalendarFormatError(
        `the calendar's events repeat too often to read (more than ${perCalendar} occurrences)`,
      );
  }
}

/** An instance's length: whole days (all-day), exact ms (DTEND), or a DURATION's wall-clock days plus exact ms. */
type Length = { days: number; ms: number };

function lengthOf(event: ICAL.Component, start: ICAL.Time): Length | null {
  const end = event.getFirstPropertyValue('dtend');
  const duration = event.getFirstPropertyValue('duration');
  if (start.isDate) {
    if (end instanceof ICAL.Time) return { days: Math.max(1, Math.round((dateMs(end) - dateMs(start)) / DAY)), ms: 0 };
    if (duration instanceof ICAL.Duration && !duration.isNegative)
      return { days: Math.max(1, Math.ceil(duration.toSeconds() / 86_400)), ms: 0 };
    return { days: 1, ms: 0 };
  }
  if (end instanceof ICAL.Time) return { days: 0, ms: msOf(end) - msOf(start) };
  if (duration instanceof ICAL.Duration && !duration.isNegative) {
    return {
      days: duration.weeks * 7 + duration.days,
      ms: ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000,
    };
  }
  return null; // a date-time with neither DTEND nor DURATION lasts no time: not busy
}

const msOf = (t: ICAL.Time) => t.toUnixTime() * 1000;
const dateMs = (t: ICAL.Time) => Date.UTC(t.year, t.month - 1, t.day);
/** When an instance starts: a date at the start of that day in the provider's zone. */
const startOf = (t: ICAL.Time, providerZone: string) =>
  t.isDate ? wallToMs(ianaZone(providerZone), dateMs(t)) : msOf(t);

/** The span of an instance starting at `start` with the event's length. */
function spanOf(length: Length, start: ICAL.Time, providerZone: string): Interval | null {
  if (start.isDate) {
    return {
      startMs: startOf(start, providerZone),
      endMs: wallToMs(ianaZone(providerZone), dateMs(start) + length.days * DAY),
    };
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
  return span && overlaps(span, window) ? span : null;
}

/** Whether a span overlaps the window (mergeIntervals clips again: this keeps the list short). */
const overlaps = (span: Interval, window: Window) => span.endMs > window.fromMs && span.startMs < window.toMs;

/**
 * Pushes the spans of a series' instances that overlap the window, except those `overridden`
 * (recurrence ids as ical.js unix seconds). Stops at the first instance starting at or after toMs.
 */
export function expandSeries(
  master: ICAL.Component,
  uid: string,
  overridden: Set<number>,
  window: Window,
  budget: StepBudget,
  out: Interval[],
): void {
  const dtstart = master.getFirstPropertyValue('dtstart');
  if (!(dtstart instanceof ICAL.Time))
    throw new CalendarFormatError(`the event ${JSON.stringify(uid)} has no valid DTSTART`);
  const length = lengthOf(master, dtstart);
  if (!length) return;
  const emit = (t: ICAL.Time) => {
    if (overridden.has(t.toUnixTime())) return;
    const span = spanOf(length, t, window.providerZone);
    if (span && overlaps(span, window)) out.push(span);
  };
  // DTSTART is always the first instance (RFC 5545 3.8.5.3); ical.js's rule iterator may leave it out
  const exdates = exdatesOf(master);
  if (!exdates.instants.has(dtstart.toUnixTime()) && !exdates.dates.has(dateMs(dtstart))) emit(dtstart);
  if (!master.hasProperty('rrule') && !master.hasProperty('rdate')) return;
  budget.startEvent();
  const startKey = dtstart.toUnixTime();
  const rdates = rdatesOf(master);
  let r = 0;
  const stopYear = new Date(window.toMs).getUTCFullYear() + 1;
  const iterators = rulesOf(master, uid)
    .map((rule) => countAsUntil(untilInZone(rule, dtstart), dtstart))
    .map((rule) =>
      guarded(iteratorOf(rule, fastForward(rule, dtstart, length, window.fromMs), uid), uid, budget, stopYear),
    );
  const next = iterators.map((it) => nextOf(it, uid));
  for (;;) {
    // the earliest of the rules' next instances and the next RDATE (ical.js's RecurExpansion does
    // the same merge, with a Time clone per step that cost more than the rule's own step); an
    // iterator's instance is its live Time, read before the iterator moves on
    let chosen = -1;
    for (let i = 0; i < next.length; i++)
      if (next[i] && (chosen < 0 || next[i]!.compare(next[chosen]!) < 0)) chosen = i;
    const rdate = rdates[r];
    const t =
      rdate && (chosen < 0 || rdate.compare(next[chosen]!) <= 0) ? rdate : chosen >= 0 ? next[chosen]! : undefined;
    if (!t) return;
    if (startOf(t, window.providerZone) >= window.toMs) return;
    const key = t.toUnixTime();
    if (key !== startKey && !exdates.instants.has(key) && !exdates.dates.has(dateMs(t))) emit(t);
    if (t === rdate) r++;
    // every rule at this instance moves on (one instance however many rules or RDATEs name it)
    for (let i = 0; i < next.length; i++)
      if (next[i] && next[i]!.toUnixTime() === key) next[i] = nextOf(iterators[i], uid);
  }
}

function rulesOf(master: ICAL.Component, uid: string): ICAL.Recur[] {
  return master.getAllProperties('rrule').map((prop) => {
    const rule = prop.getFirstValue();
    if (!(rule instanceof ICAL.Recur) || !rule.freq)
      throw new CalendarFormatError(`the repeat rule of the event ${JSON.stringify(uid)} cannot be read`);
    return rule;
  });
}

/**
 * The rule with its UNTIL in DTSTART's zone: a floating UNTIL (RFC 5545 asks for one when DTSTART
 * is floating, and normalize.ts gave such a DTSTART the provider's zone) is a wall time there, and
 * a DATE UNTIL of a timed series takes in that whole day. ical.js would read both as UTC.
 */
function untilInZone(rule: ICAL.Recur, dtstart: ICAL.Time): ICAL.Recur {
  const until = rule.until;
  if (!until || dtstart.isDate || (!until.isDate && until.zone === ICAL.Timezone.utcTimezone)) return rule;
  const local = new ICAL.Time(
    {
      year: until.year,
      month: until.month,
      day: until.day,
      hour: until.isDate ? 23 : until.hour,
      minute: until.isDate ? 59 : until.minute,
      second: until.isDate ? 59 : until.second,
      isDate: false,
    },
    dtstart.zone,
  );
  const fixed = rule.clone();
  fixed.until = local;
  return fixed;
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/**
 * A plain rule with COUNT as the same rule with UNTIL at its last instance, so that fastForward
 * may skip its past: plain meaning one instance per period (no BY-part, or WEEKLY on DTSTART's
 * weekday only), so the last one is COUNT - 1 periods after DTSTART.
 */
function countAsUntil(rule: ICAL.Recur, dtstart: ICAL.Time): ICAL.Recur {
  const period = PERIOD[rule.freq];
  if (!rule.count || !period || (period.months && dtstart.day > 28)) return rule;
  const parts = Object.entries(rule.parts ?? {}).filter(([, v]) => v !== undefined && (!Array.isArray(v) || v.length));
  const weekdayOnly =
    rule.freq === 'WEEKLY' &&
    parts.length === 1 &&
    parts[0][0] === 'BYDAY' &&
    String(parts[0][1]) === WEEKDAYS[dtstart.dayOfWeek() - 1];
  if (parts.length && !weekdayOnly) return rule;
  const plain = rule.clone();
  plain.count = null;
  plain.until = shifted(dtstart, period, (rule.count - 1) * Math.max(1, rule.interval || 1));
  return plain;
}

/** A time `periods` periods later in wall-clock time. */
function shifted(t: ICAL.Time, period: { days: number; months: number }, periods: number): ICAL.Time {
  const out = t.clone();
  if (period.days) out.adjust(periods * period.days, 0, 0, 0);
  else {
    const months = out.year * 12 + out.month - 1 + periods * period.months;
    out.year = Math.floor(months / 12);
    out.month = (months % 12) + 1;
  }
  return out;
}

/** Thrown inside ical.js's iterator when its candidates pass the window's year: the series is done. */
const PAST_WINDOW = new Error('past the window');

/**
 * The iterator with every candidate it examines counted against the budget, and stopped once a
 * candidate lies past the window: ical.js loops without end inside one next() on a rule no day can
 * satisfy (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30), and every candidate passes check_contracting_rules.
 */
function guarded(iterator: ICAL.RecurIterator, uid: string, budget: StepBudget, stopYear: number): ICAL.RecurIterator {
  const check = iterator.check_contracting_rules.bind(iterator);
  let calls = 0;
  iterator.check_contracting_rules = () => {
    budget.step(uid);
    if ((++calls & 63) === 0 && iterator.last.year > stopYear) throw PAST_WINDOW; // a year's look costs a normalize
    return check();
  };
  return iterator;
}

/** The rule's iterator from `start`: ical.js checks the BY-parts only here (BYDAY=9MO throws). */
function iteratorOf(rule: ICAL.Recur, start: ICAL.Time, uid: string): ICAL.RecurIterator {
  try {
    return rule.iterator(start);
  } catch (err) {
    throw unexpandable(err, uid);
  }
}

function nextOf(iterator: ICAL.RecurIterator, uid: string): ICAL.Time | undefined {
  try {
    return iterator.next() ?? undefined;
  } catch (err) {
    if (err === PAST_WINDOW) return undefined;
    throw unexpandable(err, uid);
  }
}

/** An error thrown inside ical.js's rule code as the calendar's format error (the budget's passes as it is). */
function unexpandable(err: unknown, uid: string): CalendarFormatError {
  if (err instanceof CalendarFormatError) return err;
  return new CalendarFormatError(
    `the repeat rule of the event ${JSON.stringify(uid)} cannot be expanded (${(err as Error).message})`,
  );
}

/** The RDATEs (a PERIOD's start), sorted. */
function rdatesOf(master: ICAL.Component): ICAL.Time[] {
  const out: ICAL.Time[] = [];
  for (const prop of master.getAllProperties('rdate')) {
    for (const value of prop.getValues()) {
      if (value instanceof ICAL.Time) out.push(value);
      else if (value instanceof ICAL.Period) out.push(value.start);
    }
  }
  return out.sort((a, b) => a.compare(b));
}

/** The EXDATEs: instants (unix seconds) of date-times; days (dateMs) of dates, each removing that day's instance. */
function exdatesOf(master: ICAL.Component): { instants: Set<number>; dates: Set<number> } {
  const instants = new Set<number>();
  const dates = new Set<number>();
  for (const prop of master.getAllProperties('exdate')) {
    for (const value of prop.getValues()) {
      if (!(value instanceof ICAL.Time)) continue;
      if (value.isDate) dates.add(dateMs(value));
      else instants.add(value.toUnixTime());
    }
  }
  return { instants, dates };
}

/** Wall-clock days and months a series may skip in whole periods of its rule (WEEKLY;INTERVAL=2: 14 days). */
const PERIOD: Record<string, { days: number; months: number } | undefined> = {
  DAILY: { days: 1, months: 0 },
  WEEKLY: { days: 7, months: 0 },
  MONTHLY: { days: 0, months: 1 },
  YEARLY: { days: 0, months: 12 },
};

/**
 * Where ical.js may start a series' one RRULE instead of DTSTART: whole periods of the rule later,
 * still ending two days before the window (a weekly meeting since 2015 then costs ~60 steps a year
 * ahead, not 600). The rule yields the same instances from there on: its periods stay aligned (whole
 * weeks keep the weekday and WKST's weeks, whole months the calendar months), and BY-parts select
 * within each period. Should ical.js count the new start as an instance though the rule would not
 * select it, it ends before the window. Not with COUNT (counted from DTSTART: countAsUntil turns
 * the plain ones into UNTIL), nor for a monthly or yearly start after the 28th (its day would change).
 */
function fastForward(rule: ICAL.Recur, dtstart: ICAL.Time, length: Length, fromMs: number): ICAL.Time {
  const period = PERIOD[rule.freq];
  if (!period || rule.count || (period.months && dtstart.day > 28)) return dtstart;
  const interval = Math.max(1, rule.interval || 1);
  const longest = (length.days + 2) * DAY + length.ms;
  const behind = fromMs - longest - startOf(dtstart, 'UTC');
  const span = period.days ? period.days * interval * DAY : period.months * interval * 31 * DAY;
  const periods = Math.floor(behind / span) - 1;
  if (periods < 1) return dtstart;
  return shifted(dtstart, period, periods * interval);
}
