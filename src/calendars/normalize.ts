/**
 * Makes a parsed calendar's time zones explicit before ical.js reads its times (the STACK.md
 * pitfall): a TZID that has no VTIMEZONE becomes an IANA name (zones.resolveTzid), and a floating
 * date-time (no TZID, no Z) gets the provider's zone. Works on ICAL.parse's jCal, in place.
 */
import { IANAZone } from 'luxon';
import { registerIanaZone, resolveTzid } from './zones.js';

type JCal = unknown[];
type JProp = [string, Record<string, unknown>, string, ...unknown[]];

const TIMED = new Set(['date-time', 'period']);

/** Returns the TZIDs the calendar's VTIMEZONEs define. */
export function normalizeZones(vcalendar: JCal, providerZone: string): Set<string> {
  if (!IANAZone.isValidZone(providerZone)) throw new RangeError(`providerZone ${JSON.stringify(providerZone)} is not an IANA time zone`);
  const components = (vcalendar[2] ?? []) as JCal[];
  const defined = new Set<string>();
  for (const c of components) {
    if (c[0] !== 'vtimezone') continue;
    const tzid = (c[1] as JProp[]).find((p) => p[0] === 'tzid');
    if (tzid && typeof tzid[3] === 'string') defined.add(tzid[3]);
  }
  const resolved = new Map<string, string>();
  const zoneOf = (tzid: string | undefined) => {
    const key = tzid ?? '';
    let zone = resolved.get(key);
    if (zone === undefined) {
      zone = tzid === undefined ? providerZone : resolveTzid(tzid, providerZone);
      registerIanaZone(zone);
      resolved.set(key, zone);
    }
    return zone;
  };
  for (const c of components) if (c[0] !== 'vtimezone') normalizeComponent(c, defined, zoneOf);
  return defined;
}

function normalizeComponent(component: JCal, defined: Set<string>, zoneOf: (tzid: string | undefined) => string): void {
  for (const prop of component[1] as JProp[]) {
    if (!TIMED.has(prop[2])) continue;
    const params = prop[1];
    const tzid = typeof params.tzid === 'string' ? params.tzid : undefined;
    if (tzid !== undefined && defined.has(tzid)) continue;
    const floating = prop.slice(3).some((v) => typeof v === 'string' ? !v.endsWith('Z') : Array.isArray(v) && typeof v[0] === 'string' && !v[0].endsWith('Z'));
    if (tzid === undefined && !floating) continue;
    params.tzid = zoneOf(tzid);
  }
  for (const sub of (component[2] ?? []) as JCal[]) normalizeComponent(sub, defined, zoneOf);
}
