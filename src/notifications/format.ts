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

/**
 * "Freitag, 12. Juni 2026, 10:00–11:00 Uhr (Europe/Berlin, MESZ)": the period in the provider's
 * zone with the zone named, so a reader elsewhere is not misled.
 */
export function formatPeriod(startIso: string, endIso: string, zone: string, locale: MailLocale): string {
  const start = at(startIso, zone, locale);
  const end = at(endIso, zone, locale);
  const time = (d: DateTime) => d.toLocaleString(DateTime.TIME_24_SIMPLE);
  const suffix = locale === 'de' ? ' Uhr' : '';
  const zoneName = `${zone}, ${start.offsetNameShort ?? start.toFormat('ZZ')}`;
  const range = start.hasSame(end, 'day')
    ? `${start.toLocaleString(DAY)}, ${time(start)}–${time(end)}${suffix}`
    : `${start.toLocaleString(DAY)}, ${time(start)}${suffix} – ${end.toLocaleString(DAY)}, ${time(end)}${suffix}`;
  return `${range} (${zoneName})`;
}
