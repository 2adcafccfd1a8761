/**
 * Reading a calendar (DESIGN.md §7.6): an iCalendar text in, the provider's busy intervals out.
 * Pure: no I/O, no clock, independent of the process's TZ. Recurrence is expanded by ical.js;
 * time zones as zones.ts explains; all-day events block whole days in the provider's zone.
 *
 * Choices beyond §7.6, for a reader who wonders:
 * - A TZID with neither a VTIMEZONE nor a known IANA or Windows name is read in the provider's zone.
 * - An override (RECURRENCE-ID) is read on its own, at its own DTSTART and end, and removes the
 *   series' instance it names; one whose instance the series lacks still blocks (as Google shows it).
 *   RANGE=THISANDFUTURE is not supported (the override changes only its own instance).
 * - The length of every instance is the series' DTEND - DTSTART as an exact duration (RFC 5545
 *   3.8.5.3), or its DURATION (days and weeks in wall time, hours and less exact).
 * - An RDATE given as a PERIOD uses the series' length, not the period's.
 */
import ICAL from 'ical.js';
import { expandSeries, itemSpan, StepBudget } from './expand.js';
import { normalizeZones } from './normalize.js';
import { memoizeOffsets } from './zones.js';
import { CalendarFormatError } from './calendarFormatError.js';
import { mergeIntervals, type Interval } from './intervals.js';

export { CalendarFormatError } from './calendarFormatError.js';
export type { Interval } from './intervals.js';

export interface BusyOptions {
  /** IANA zone of the provider: all-day events and floating times are read in it */
  providerZone: string;
  /** the window, [fromMs, toMs) in epoch milliseconds */
  fromMs: number;
  toMs: number;
  /** true for the UIDs of this service's own appointments (its feed, its write-back): never busy */
  isOwnUid: (uid: string) => boolean;
}

/** The busy intervals of an iCalendar text within [fromMs, toMs): sorted, merged, clipped. */
export function busyIntervals(ics: string, opts: BusyOptions): Interval[] {
  const calendars = parseCalendars(ics, opts.providerZone);
  const window = { fromMs: opts.fromMs, toMs: opts.toMs, providerZone: opts.providerZone };
  const budget = new StepBudget();
  const out: Interval[] = [];
  for (const calendar of calendars) {
    const byUid = new Map<string, { masters: ICAL.Component[]; overrides: ICAL.Component[] }>();
    for (const event of calendar.getAllSubcomponents('vevent')) {
      const uid = String(event.getFirstPropertyValue('uid') ?? '');
      if (uid && opts.isOwnUid(uid)) continue;
      let group = byUid.get(uid);
      if (!group) {
        group = { masters: [], overrides: [] };
        byUid.set(uid, group);
      }
      (event.hasProperty('recurrence-id') ? group.overrides : group.masters).push(event);
    }
    for (const [uid, { masters, overrides }] of byUid) {
      const overridden = new Set<number>();
      for (const override of overrides) {
        overridden.add(timeOf(override, 'recurrence-id', uid).toUnixTime());
        if (!blocks(override)) continue;
        const start =
          (override.getFirstPropertyValue('dtstart') as ICAL.Time | null) ?? timeOf(override, 'recurrence-id', uid);
        const span = itemSpan(override, start, window);
        if (span) out.push(span);
      }
      for (const master of masters) {
        if (blocks(master)) expandSeries(master, uid, overridden, window, budget, out);
      }
    }
  }
  return mergeIntervals(out, opts.fromMs, opts.toMs);
}

/** Whether an event blocks at all: not TRANSP:TRANSPARENT, not STATUS:CANCELLED. */
function blocks(event: ICAL.Component): boolean {
  const transp = String(event.getFirstPropertyValue('transp') ?? '')
    .trim()
    .toUpperCase();
  const status = String(event.getFirstPropertyValue('status') ?? '')
    .trim()
    .toUpperCase();
  return transp !== 'TRANSPARENT' && status !== 'CANCELLED';
}

function timeOf(event: ICAL.Component, name: string, uid: string): ICAL.Time {
  const value = event.getFirstPropertyValue(name);
  if (!(value instanceof ICAL.Time))
    throw new CalendarFormatError(`the event ${JSON.stringify(uid)} has no valid ${name.toUpperCase()}`);
  return value;
}

/** The text's VCALENDARs as ical.js components, their time zones made explicit. */
function parseCalendars(ics: string, providerZone: string): ICAL.Component[] {
  if (!/BEGIN:VCALENDAR/i.test(ics.slice(0, 4096)))
    throw new CalendarFormatError('not an iCalendar file (no BEGIN:VCALENDAR)');
  let parsed: unknown;
  try {
    parsed = ICAL.parse(ics);
  } catch (err) {
    throw new CalendarFormatError(`not a readable iCalendar file (${(err as Error).message})`);
  }
  const jcals = (Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed : [parsed]) as unknown[][];
  return jcals.map((jcal) => {
    if (jcal[0] !== 'vcalendar') throw new CalendarFormatError('not an iCalendar file (no BEGIN:VCALENDAR)');
    const defined = normalizeZones(jcal, providerZone);
    const calendar = new ICAL.Component(jcal);
    for (const tzid of defined) {
      const zone = calendar.getTimeZoneByID(tzid);
      if (zone) memoizeOffsets(zone);
    }
    return calendar;
  });
}
