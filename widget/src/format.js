/**
 * Dates and times. Days are yyyy-MM-dd texts and times HH:mm texts of the provider's wall clock,
 * as the service sends them; names of days and months come from Intl in the widget's language.
 */

/**
 * yyyy-MM-dd of a group key or of an ISO timestamp in its own offset (the provider's wall clock). @param {unknown} text
 */
export function dayOf(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(text || ''));
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** HH:mm of an ISO timestamp in its own offset. @param {unknown} iso */
export function timeOf(iso) {
  const m = /T(\d{2}):(\d{2})/.exec(String(iso || ''));
  return m ? `${m[1]}:${m[2]}` : '';
}

/** Noon UTC of a yyyy-MM-dd day; formatted in UTC, so no time zone shifts the date. @param {string} day */
export function dayDate(day) {
  const [y, mo, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, mo - 1, d, 12));
}

/** The same instant as ISO 8601 in UTC (A2 wants from/to so); unparsable text is passed on. @param {string} iso */
export function toUtcIso(iso) {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString();
}

/** m:ss of a duration, never negative, rounded up (the countdown shows 0:00 only at the end). @param {number} ms */
export function mmss(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const HH_MM = /^\d{1,2}:\d{2}$/;

/**
 * Start time of a bookable as shown: the server's formattedStart (A1 with timeFormat HH:mm), else
 * taken from its ISO start.
 * @param {{ formattedStart?: unknown, start?: string }} b
 */
export const startText = (b) =>
  typeof b.formattedStart === 'string' && HH_MM.test(b.formattedStart) ? b.formattedStart : timeOf(b.start);

/** End time of a bookable as shown. @param {{ formattedEnd?: unknown, end?: string }} b */
export const endText = (b) =>
  typeof b.formattedEnd === 'string' && HH_MM.test(b.formattedEnd) ? b.formattedEnd : timeOf(b.end);

/**
 * The Intl formatters of one locale, all in UTC (see dayDate).
 * @param {string} locale e.g. de-DE
 */
export function createFormatters(locale) {
  const make = (/** @type {Intl.DateTimeFormatOptions} */ o) =>
    new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...o });
  const weekday = make({ weekday: 'short' });
  const month = make({ month: 'short' });
  const long = make({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
  const monthYear = make({ month: 'long', year: 'numeric' });
  return {
    /** "Mo." / "Mon" @param {string} day */
    weekdayShort: (day) => weekday.format(dayDate(day)),
    /** "Juli" / "Jul" @param {string} day */
    monthShort: (day) => month.format(dayDate(day)),
    /** "Montag, 20. Juli 2026" / "Monday, 20 July 2026" @param {string} day */
    longDate: (day) => long.format(dayDate(day)),
    /** "Juli 2026", or "Juli – August 2026" style when the days span months @param {string[]} days */
    monthRange(days) {
      const first = monthYear.format(dayDate(days[0]));
      const last = monthYear.format(dayDate(days[days.length - 1]));
      return first === last ? first : `${first} – ${last}`;
    },
  };
}

/** @typedef {ReturnType<typeof createFormatters>} Formatters */
