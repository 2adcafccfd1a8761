import { DateTime } from 'luxon';

export type MailLocale = 'de' | 'en';

/** de/en from a language tag such as "en", "en-GB" or "de_DE"; anything else is German. */
export function mailLocale(raw: string | null | undefined): MailLocale {
  return raw?.trim().toLowerCase().split(/[-_]/)[0] === 'en' ? 'en' : 'de';
}

const INTL_LOCALE: Record<MailLocale, string> = { de: 'de-DE', en: 'en-GB' };

/**
 * The Intl formatters a mail's times are written with, per locale and zone, with the options of
 * luxon's DATE_FULL, TIME_24_SIMPLE and offsetNameShort (the same text: test/unit/mail-format.test.ts).
 * Made once: an Intl.DateTimeFormat costs far more to make than to use, and luxon's DateTime per
 * call was a third of a mail's rendering time (issue 55).
 */
interface ZoneFormatters {
  date: Intl.DateTimeFormat;
  day: Intl.DateTimeFormat;
  time: Intl.DateTimeFormat;
  zoneName: Intl.DateTimeFormat;
}
const FORMATTERS = new Map<string, ZoneFormatters | null>();

/** The formatters of a valid IANA zone; null for a zone Intl does not know. */
function formattersOf(zone: string, locale: MailLocale): ZoneFormatters | null {
  const key = `${locale}|${zone}`;
  let found = FORMATTERS.get(key);
  if (found !== undefined) return found;
  const make = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(INTL_LOCALE[locale], { ...options, timeZone: zone });
  try {
    found = {
      date: make({ year: 'numeric', month: 'long', day: 'numeric' }),
      day: make({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }),
      time: make({ hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }),
      zoneName: make({
        timeZoneName: 'short',
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
      }),
    };
  } catch {
    found = null; // RangeError: not a zone
  }
  if (FORMATTERS.size < 1000) FORMATTERS.set(key, found);
  return found;
}

/** An instant's milliseconds and its zone's formatters; null when either is not valid. */
function instant(iso: string, zone: string, locale: MailLocale): { ms: number; f: ZoneFormatters } | null {
  const ms = Date.parse(iso);
  const f = formattersOf(zone, locale);
  return Number.isNaN(ms) || !f ? null : { ms, f };
}

/** "12. Juni 2026" / "12 June 2026", the day in the provider's zone (the text as given when it is no instant). */
export function formatDay(iso: string, zone: string, locale: MailLocale): string {
  const at = instant(iso, zone, locale);
  return at ? at.f.date.format(at.ms) : iso;
}

/**
 * "Freitag, 12. Juni 2026, 10:00–11:00 Uhr (Europe/Berlin, MESZ)": the period in the provider's
 * zone with the zone named, so a reader elsewhere is not misled. An instant or zone that cannot be
 * formatted (never stored) is written as given.
 */
export function formatPeriod(startIso: string, endIso: string, zone: string, locale: MailLocale): string {
  const start = instant(startIso, zone, locale);
  const end = instant(endIso, zone, locale);
  if (!start || !end) return `${startIso} – ${endIso} (${zone})`;
  const { f } = start;
  const suffix = locale === 'de' ? ' Uhr' : '';
  const zoneName =
    f.zoneName.formatToParts(start.ms).find((p) => p.type === 'timeZoneName')?.value ??
    DateTime.fromMillis(start.ms, { zone }).toFormat('ZZ');
  const startDay = f.day.format(start.ms);
  const endDay = f.day.format(end.ms);
  const range =
    startDay === endDay
      ? `${startDay}, ${f.time.format(start.ms)}–${f.time.format(end.ms)}${suffix}`
      : `${startDay}, ${f.time.format(start.ms)}${suffix} – ${endDay}, ${f.time.format(end.ms)}${suffix}`;
  return `${range} (${zone}, ${zoneName})`;
}
