import { DateTime } from 'luxon';

export type MailLocale = 'de' | 'en';

/** de/en from a language tag such as "en", "en-GB" or "de_DE"; anything else is German. */
export function mailLocale(raw: string | null | undefined): MailLocale {
  return raw?.trim().toLowerCase().split(/[-_]/)[0] === 'en' ? 'en' : 'de';
}

const LUXON_LOCALE: Record<MailLocale, string> = { de: 'de-DE', en: 'en-GB' };
const DAY = { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' } as const;

function at(iso: string, zone: string, locale: MailLocale): DateTime {
  return DateTime.fromISO(iso, { zone }).setLocale(LUXON_LOCALE[locale]);
}

/** "12. Juni 2026" / "12 June 2026", the day in the provider's zone. */
export function formatDay(iso: string, zone: string, locale: MailLocale): string {
  return at(iso, zone, locale).toLocaleString(DateTime.DATE_FULL);
}

/** Intl formatters naming a zone's offset, by locale and zone: each costs far more to make than to use. */
const ZONE_NAMERS = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone's short name at that instant ("MESZ", "BST", "GMT+2"), as luxon's offsetNameShort
 * gives it (its options, its answer), from a formatter made once per locale and zone: luxon makes
 * a new Intl.DateTimeFormat on every call, a third of a mail's rendering time (issue 55).
 */
function shortZoneName(d: DateTime): string | null {
  if (!d.isValid || d.zone.type !== 'iana') return d.offsetNameShort;
  const key = `${d.locale}|${d.zone.name}`;
  let namer = ZONE_NAMERS.get(key);
  if (!namer) {
    namer = new Intl.DateTimeFormat(d.locale ?? undefined, {
      timeZoneName: 'short',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: d.zone.name,
    });
    if (ZONE_NAMERS.size < 1000) ZONE_NAMERS.set(key, namer);
  }
  return namer.formatToParts(d.toMillis()).find((p) => p.type.toLowerCase() === 'timezonename')?.value ?? null;
}

/**
 * "Freitag, 12. Juni 2026, 10:00–11:00 Uhr (Europe/Berlin, MESZ)": the period in the provider's
 * zone with the zone named, so a reader elsewhere is not misled.
 */
export function formatPeriod(startIso: string, endIso: string, zone: string, locale: MailLocale): string {
  const start = at(startIso, zone, locale);
  const end = at(endIso, zone, locale);
  const time = (d: DateTime) => d.toLocaleString(DateTime.TIME_24_SIMPLE);
  const suffix = locale === 'de' ? ' Uhr' : '';
  const zoneName = `${zone}, ${shortZoneName(start) ?? start.toFormat('ZZ')}`;
  const range = start.hasSame(end, 'day')
    ? `${start.toLocaleString(DAY)}, ${time(start)}–${time(end)}${suffix}`
    : `${start.toLocaleString(DAY)}, ${time(start)}${suffix} – ${end.toLocaleString(DAY)}, ${time(end)}${suffix}`;
  return `${range} (${zoneName})`;
}
