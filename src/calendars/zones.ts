/**
 * Time zones for reading calendars, independent of the process's TZ.
 *
 * ical.js resolves a TZID through the file's VTIMEZONE; a TZID with no VTIMEZONE it silently reads
 * as floating time (STACK.md). So before ical.js sees a file, every TZID without a VTIMEZONE is
 * rewritten to an IANA name (resolveTzid), and each IANA name ical.js meets is registered (once, in
 * its global TimezoneService: an IANA name means the same rules in every file) as an ianaTimezone,
 * whose offsets come from Intl's tz database through luxon.
 */
import ICAL from 'ical.js';
import { IANAZone } from 'luxon';
import { ianaOfWindowsZone } from './windowsZones.js';

const DAY = 86_400_000;

/**
 * The IANA zone a TZID that has no VTIMEZONE stands for: an IANA name as it is, a Windows name
 * (Outlook, Exchange) by CLDR's table, a prefixed IANA name ("/mozilla.org/20050126_1/Europe/Berlin",
 * "/Europe/Berlin") by its end; anything else is unknown and taken as the provider's zone.
 */
export function resolveTzid(tzid: string, providerZone: string): string {
  const name = tzid.trim(); // ical.js hands a TZID parameter over without its quotes
  if (IANAZone.isValidZone(name)) return name;
  const windows = ianaOfWindowsZone(name);
  if (windows) return windows;
  const parts = name.split('/').filter(Boolean);
  for (let take = Math.min(3, parts.length); take >= 2; take--) {
    const tail = parts.slice(-take).join('/');
    if (IANAZone.isValidZone(tail)) return tail;
  }
  return providerZone;
}

/** A zone's UTC offsets (minutes) by UTC year: the offset at the year's start and each change in it. */
interface YearTable {
  first: number;
  at: number[];
  offset: number[];
}

const tables = new Map<string, Map<number, YearTable>>();

function yearTable(zone: IANAZone, year: number): YearTable {
  let years = tables.get(zone.name);
  if (!years) {
    years = new Map();
    tables.set(zone.name, years);
  }
  let table = years.get(year);
  if (table) return table;
  const start = Date.UTC(year, 0, 1);
  const end = Date.UTC(year + 1, 0, 1);
  table = { first: zone.offset(start), at: [], offset: [] };
  let before = table.first;
  // Stryker disable next-line all: the last step differs only for a zone changing its offset at a UTC new year
  for (let t = start + DAY; t <= end; t += DAY) {
    // Stryker disable next-line all: as above
    const now = t === end ? zone.offset(t - 1) : zone.offset(t);
    if (now === before) continue;
    // the change lies in (t - DAY, t]: find its first minute
    let lo = t - DAY;
    // Stryker disable next-line all: as above (a change in the year's last day)
    let hi = Math.min(t, end - 1);
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (zone.offset(mid) === before) lo = mid;
      else hi = mid;
    }
    table.at.push(hi);
    table.offset.push(zone.offset(hi));
    before = table.offset[table.offset.length - 1];
  }
  years.set(year, table);
  return table;
}

/** The UTC offset in minutes of an IANA zone at an instant (tables per year: Intl is slow per call). */
export function offsetAt(zone: IANAZone, ms: number): number {
  const table = yearTable(zone, new Date(ms).getUTCFullYear());
  let offset = table.first;
  for (let i = 0; i < table.at.length && table.at[i] <= ms; i++) offset = table.offset[i];
  return offset;
}

/**
 * The instant of a wall time in a zone, `wall` being the wall time's fields read as UTC
 * (Date.UTC(y, m - 1, d, h, mi, s)). As RFC 5545 3.3.5 says: a time that occurs twice (autumn)
 * is the first one; a time that does not exist (the spring gap) uses the offset before the gap.
 */
export function wallToMs(zone: IANAZone, wall: number): number {
  const before = offsetAt(zone, wall - DAY);
  const after = offsetAt(zone, wall + DAY);
  const fits = (offset: number) => offsetAt(zone, wall - offset * 60_000) === offset;
  if (before === after)
    return fits(before) ? wall - before * 60_000 : wall - offsetAt(zone, wall - before * 60_000) * 60_000;
  const early = fits(before);
  const late = fits(after);
  if (early && late) return Math.min(wall - before * 60_000, wall - after * 60_000);
  if (late) return wall - after * 60_000;
  return wall - before * 60_000;
}

const zones = new Map<string, IANAZone>();

/** luxon's IANAZone of a valid IANA name, kept. */
export function ianaZone(name: string): IANAZone {
  let zone = zones.get(name);
  if (!zone) {
    zone = IANAZone.create(name);
    zones.set(name, zone);
  }
  return zone;
}

const MEMO_LIMIT = 100_000;

/**
 * An ical.js zone's utcOffset (seconds, of a wall time) answered from memos: ical.js asks for it at
 * every step of a rule, and a VTIMEZONE's own answer costs deep clones of its changes (most of a
 * large calendar's CPU before this). A day whose first and last second have the same offset has
 * no change in it (a zone changes at most once a day), so one answer serves all its wall times;
 * the times of a day with a change are asked one by one, as ical.js would.
 */
// Stryker disable next-line all: a memo: without it ical.js asks the zone itself, with the same answers
export function memoizeOffsets(zone: ICAL.Timezone): void {
  const offsetOf = zone.utcOffset.bind(zone);
  const days = new Map<number, number>();
  const times = new Map<number, number>();
  const remember = (memo: Map<number, number>, key: number, value: number) => {
    // Stryker disable next-line all: the memo's bound: clearing sooner or later gives the same answers
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, value);
    return value;
  };
  const at = (year: number, month: number, day: number, hour: number, minute: number, second: number) =>
    offsetOf(new ICAL.Time({ year, month, day, hour, minute, second, isDate: false }, zone));
  zone.utcOffset = (tt: ICAL.Time) => {
    const { year, month, day } = tt;
    // Stryker disable next-line all: a memo key: any key that tells days apart gives the same answers
    const date = Date.UTC(year, month - 1, day);
    let whole = days.get(date);
    if (whole === undefined) {
      const first = at(year, month, day, 0, 0, 0);
      whole = remember(days, date, first === at(year, month, day, 23, 59, 59) ? first : NaN);
    }
    if (!Number.isNaN(whole)) return whole;
    // Stryker disable next-line all: a memo key, as above, of the wall times of a day with a change
    const wall = date + ((tt.hour * 60 + tt.minute) * 60 + tt.second) * 1000;
    return times.get(wall) ?? remember(times, wall, offsetOf(tt));
  };
}

/** An ical.js time zone whose offsets are an IANA zone's (ical.js asks for the offset of a wall time). */
class IanaTimezone extends ICAL.Timezone {
  private readonly zone: IANAZone;

  constructor(name: string) {
    // Stryker disable next-line all: ical.js registers the zone under the name given to register(), not this one
    super({ tzid: name });
    this.zone = ianaZone(name);
  }

  override utcOffset(tt: ICAL.Time): number {
    const wall = Date.UTC(tt.year, tt.month - 1, tt.day, tt.hour, tt.minute, tt.second);
    return (wall - wallToMs(this.zone, wall)) / 1000;
  }
}

/** Registers an IANA zone with ical.js (once) so that a TZID naming it resolves. */
export function registerIanaZone(name: string): void {
  if (ICAL.TimezoneService.has(name)) return;
  const zone = new IanaTimezone(name);
  memoizeOffsets(zone);
  ICAL.TimezoneService.register(zone, name);
}
