/**
 * Makes a parsed calendar's time zones explicit before ical.js reads its times (the STACK.md
 * pitfall): a TZID that has no VTIMEZONE becomes an IANA name (zones.resolveTzid), and a floating
 * date-time (no TZID, no Z) gets the provider's zone. Works on ICAL.parse's jCal, in place.
 *
 * Every timed property without a VTIMEZONE of its own gets its zone, in every component: ical.js
 * reads a time ending in Z as UTC and a VTIMEZONE observance's times as local whatever TZID they
 * carry, so those need no exception.
 */
import { IANAZone } from 'luxon';
import { registerIanaZone, resolveTzid } from './zones.js';

type JCal = unknown[];
type JProp = [string, Record<string, unknown>, string, ...unknown[]];
type ZoneOf = (tzid: string | undefined) => string;

const TIMED = new Set(['date-time', 'period']);

/** Returns the TZIDs the calendar's VTIMEZONEs define. */
export function normalizeZones(vcalendar: JCal, providerZone: string): Set<string> {
  if (!IANAZone.isValidZone(providerZone))
    throw new RangeError(`providerZone ${JSON.stringify(providerZone)} is not an IANA time zone`);
  const components = (vcalendar[2] ?? []) as JCal[];
  const defined = new Set<string>();
  for (const c of components) {
    if (c[0] !== 'vtimezone') continue;
    for (const p of c[1] as JProp[]) if (p[0] === 'tzid') defined.add(p[3] as string);
  }
  const resolved = new Map<string | undefined, string>();
  const resolve: ZoneOf = (tzid) => {
    const zone = tzid === undefined ? providerZone : resolveTzid(tzid, providerZone);
    registerIanaZone(zone);
    resolved.set(tzid, zone);
    return zone;
  };
  for (const c of components) normalizeComponent(c, defined, (tzid) => resolved.get(tzid) ?? resolve(tzid));
  return defined;
}

function normalizeComponent(component: JCal, defined: ReadonlySet<string | undefined>, zoneOf: ZoneOf): void {
  for (const [, params, type] of component[1] as JProp[]) {
    const tzid = params.tzid as string | undefined;
    if (TIMED.has(type) && !defined.has(tzid)) params.tzid = zoneOf(tzid);
  }
  for (const sub of (component[2] ?? []) as JCal[]) normalizeComponent(sub, defined, zoneOf);
}
