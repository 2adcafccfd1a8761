/**
 * The mail's dates and periods (notifications/format.ts), written with Intl formatters made once per
 * zone, against the text luxon wrote before (the oracle below, the old implementation): random
 * instants over ten years, zones with and without DST, half-hour offsets and the southern
 * hemisphere, periods within a day, across midnight and across a DST change, both languages.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { formatDay, formatPeriod, type MailLocale } from '../../src/notifications/format.js';

const LOCALE: Record<MailLocale, string> = { de: 'de-DE', en: 'en-GB' };
const ZONES = [
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'Africa/Casablanca',
  'UTC',
];

function luxonPeriod(startIso: string, endIso: string, zone: string, locale: MailLocale): string {
  const at = (iso: string) => DateTime.fromISO(iso, { zone }).setLocale(LOCALE[locale]);
  const start = at(startIso);
  const end = at(endIso);
  const day = (d: DateTime) => d.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
  const time = (d: DateTime) => d.toLocaleString(DateTime.TIME_24_SIMPLE);
  const suffix = locale === 'de' ? ' Uhr' : '';
  const range = start.hasSame(end, 'day')
    ? `${day(start)}, ${time(start)}–${time(end)}${suffix}`
    : `${day(start)}, ${time(start)}${suffix} – ${day(end)}, ${time(end)}${suffix}`;
  return `${range} (${zone}, ${start.offsetNameShort ?? start.toFormat('ZZ')})`;
}

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('mail dates and periods', () => {
  it('write what luxon wrote, for random instants, zones and lengths in both languages', () => {
    const next = random(55);
    const from = Date.UTC(2022, 0, 1);
    const span = 10 * 365 * 86_400_000;
    for (let i = 0; i < 1000; i++) {
      const zone = ZONES[Math.floor(next() * ZONES.length)];
      const locale: MailLocale = next() < 0.5 ? 'de' : 'en';
      const startMs = from + Math.floor((next() * span) / 60_000) * 60_000;
      const minutes = [15, 30, 60, 90, 600, 1440, 2 * 1440 + 45][Math.floor(next() * 7)];
      const start = DateTime.fromMillis(startMs, { zone }).toISO()!;
      const end = DateTime.fromMillis(startMs + minutes * 60_000, { zone }).toISO()!;
      expect(formatPeriod(start, end, zone, locale), `${start} ${end} ${zone} ${locale}`).toBe(
        luxonPeriod(start, end, zone, locale),
      );
      expect(formatDay(start, zone, locale)).toBe(
        DateTime.fromISO(start, { zone }).setLocale(LOCALE[locale]).toLocaleString(DateTime.DATE_FULL),
      );
    }
  });

  it('names the zone as it is at the start, on the days the clocks change', () => {
    // Berlin: 29 March 2026 02:00 CET -> 03:00 CEST; 25 October 2026 03:00 CEST -> 02:00 CET
    expect(formatPeriod('2026-03-29T01:30:00+01:00', '2026-03-29T03:30:00+02:00', 'Europe/Berlin', 'de')).toBe(
      'Sonntag, 29. März 2026, 01:30–03:30 Uhr (Europe/Berlin, MEZ)',
    );
    expect(formatPeriod('2026-10-25T02:30:00+01:00', '2026-10-25T03:00:00+01:00', 'Europe/Berlin', 'en')).toBe(
      'Sunday, 25 October 2026, 02:30–03:00 (Europe/Berlin, CET)',
    );
  });

  it('writes an instant or zone it cannot format as given, never throws', () => {
    expect(formatPeriod('2026-06-12T10:00:00Z', '2026-06-12T11:00:00Z', 'Not/AZone', 'de')).toBe(
      '2026-06-12T10:00:00Z – 2026-06-12T11:00:00Z (Not/AZone)',
    );
    expect(formatDay('not a date', 'Europe/Berlin', 'en')).toBe('not a date');
  });
});
