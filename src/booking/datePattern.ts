/**
 * Java-style (DateTimeFormatter / SimpleDateFormat) date-time patterns, rendered with luxon.
 *
 * The DateTime handed to a compiled formatter carries the zone and locale: month and weekday
 * names, AM/PM and zone names come from its locale (full ICU); numbers are always ASCII digits.
 *
 * Supported letters (count = number of repeated letters):
 *   G        era (1-3 short 'AD' / 'n. Chr.', 4 long, 5 narrow)
 *   y        year: 1 full, 2 two-digit, 3+ zero-padded to count
 *   Y        ISO week-based year: same widths as y
 *   M / L    month (format / standalone): 1 number, 2 padded, 3 short name, 4 full name, 5 narrow
 *   d        day of month (1-2); D day of year (1-3, padded to count)
 *   E        weekday name: 1-3 short, 4 full, 5 narrow
 *   e        day of week 1 = Monday: 1-2 number (padded), 3 short, 4 full, 5 narrow name
 *   u        day of week number 1 = Monday (padded to count, 1-2)
 *   H 0-23, k 1-24, h 1-12, K 0-11, m minute, s second (1-2 each)
 *   S        fraction of second, truncated to count digits (1-9; beyond ms filled with 0)
 *   a        AM/PM marker of the locale
 *   z        zone name: 1-3 short (e.g. 'MEZ' in de, 'GMT+1' where none), 4 long
 *   Z        offset: 1-3 '+0100', 4 'GMT+01:00' (or 'GMT'), 5 '+01:00' (or 'Z')
 *   X / x    offset: 1 '+01' ('+0130'), 2 '+0100', 3 '+01:00'; X writes 'Z' for zero
 *   VV       zone id such as 'Europe/Berlin'
 *   w        ISO week of week-based year (1-2)
 *   'text'   literal text; '' is a literal single quote (inside and outside quotes)
 * Any other ASCII letter, a count outside the listed range, or an unterminated quote is a
 * PatternError naming the letter. Every other character (punctuation, digits, space, non-ASCII)
 * is literal.
 */
import type { DateTime } from 'luxon';

export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

type Part = (dt: DateTime) => string;
export type CompiledPattern = (dt: DateTime) => string;

/** Patterns longer than this are rejected (they come from query parameters). */
export const MAX_PATTERN_LENGTH = 200;

function pad(n: number, width: number): string {
  const neg = n < 0;
  let s = String(Math.abs(n));
  while (s.length < width) s = `0${s}`;
  return neg ? `-${s}` : s;
}

function num(get: (dt: DateTime) => number, width: number): Part {
  return width <= 1 ? (dt) => String(get(dt)) : (dt) => pad(get(dt), width);
}

/**
 * Memo of locale-dependent texts. luxon builds them through Intl on every call, which is slow; they depend only on
 * locale, calendar settings and one small value, so they are cached. Bounded: cleared when it grows beyond
 * NAME_CACHE_LIMIT entries.
 */
const NAME_CACHE_LIMIT = 20_000;
const names = new Map<string, string>();

function memoName(key: string, compute: () => string): string {
  let v = names.get(key);
  if (v === undefined) {
    if (names.size >= NAME_CACHE_LIMIT) names.clear();
    v = compute();
    names.set(key, v);
  }
  return v;
}

function locKey(dt: DateTime): string {
  return `${dt.locale}|${dt.outputCalendar}|${dt.numberingSystem}`;
}

/** luxon's own (locale-aware) token, for names only; `value` is what the name depends on. */
function luxonToken(token: string, value: (dt: DateTime) => number): Part {
  return (dt) => memoName(`${locKey(dt)}|${token}|${value(dt)}`, () => dt.toFormat(token));
}
const byMonth = (dt: DateTime) => dt.month;
const byWeekday = (dt: DateTime) => dt.weekday;
const byMeridiem = (dt: DateTime) => (dt.hour < 12 ? 0 : 1);
const byEra = (dt: DateTime) => (dt.year > 0 ? 1 : 0);

function zoneName(long: boolean): Part {
  return (dt) =>
    memoName(
      `${locKey(dt)}|z${long ? 'L' : 'S'}|${dt.zoneName}|${dt.offset}`,
      () => (long ? dt.offsetNameLong : dt.offsetNameShort) ?? offsetGmt(dt),
    );
}

function yearPart(get: (dt: DateTime) => number, count: number): Part {
  if (count === 2) return (dt) => pad(((get(dt) % 100) + 100) % 100, 2);
  return num(get, count === 1 ? 1 : count);
}

function offsetParts(dt: DateTime): { sign: string; hh: string; mm: string; zero: boolean; min: number } {
  const off = dt.offset; // minutes
  const abs = Math.abs(off);
  return {
    sign: off < 0 ? '-' : '+',
    hh: pad(Math.floor(abs / 60), 2),
    mm: pad(abs % 60, 2),
    zero: off === 0,
    min: abs % 60,
  };
}

function offsetX(count: number, zeroAsZ: boolean): Part {
  return (dt) => {
    const o = offsetParts(dt);
    if (o.zero && zeroAsZ) return 'Z';
    if (count === 1) return o.min === 0 ? `${o.sign}${o.hh}` : `${o.sign}${o.hh}${o.mm}`;
    if (count === 2) return `${o.sign}${o.hh}${o.mm}`;
    return `${o.sign}${o.hh}:${o.mm}`;
  };
}

function offsetGmt(dt: DateTime): string {
  const o = offsetParts(dt);
  return o.zero ? 'GMT' : `GMT${o.sign}${o.hh}:${o.mm}`;
}

interface LetterSpec {
  max: number;
  min?: number;
  build: (count: number) => Part;
}

const LETTERS: Record<string, LetterSpec> = {
  G: { max: 5, build: (c) => luxonToken(c <= 3 ? 'G' : c === 4 ? 'GG' : 'GGGGG', byEra) },
  y: { max: 9, build: (c) => yearPart((dt) => dt.year, c) },
  Y: { max: 9, build: (c) => yearPart((dt) => dt.weekYear, c) },
  M: {
    max: 5,
    build: (c) =>
      c <= 2 ? num((dt) => dt.month, c) : luxonToken(c === 3 ? 'MMM' : c === 4 ? 'MMMM' : 'MMMMM', byMonth),
  },
  L: {
    max: 5,
    build: (c) =>
      c <= 2 ? num((dt) => dt.month, c) : luxonToken(c === 3 ? 'LLL' : c === 4 ? 'LLLL' : 'LLLLL', byMonth),
  },
  d: { max: 2, build: (c) => num((dt) => dt.day, c) },
  D: { max: 3, build: (c) => num((dt) => dt.ordinal, c) },
  E: { max: 5, build: (c) => luxonToken(c <= 3 ? 'EEE' : c === 4 ? 'EEEE' : 'EEEEE', byWeekday) },
  e: {
    max: 5,
    build: (c) =>
      c <= 2 ? num((dt) => dt.weekday, c) : luxonToken(c === 3 ? 'EEE' : c === 4 ? 'EEEE' : 'EEEEE', byWeekday),
  },
  u: { max: 2, build: (c) => num((dt) => dt.weekday, c) },
  H: { max: 2, build: (c) => num((dt) => dt.hour, c) },
  k: { max: 2, build: (c) => num((dt) => (dt.hour === 0 ? 24 : dt.hour), c) },
  h: { max: 2, build: (c) => num((dt) => (dt.hour % 12 === 0 ? 12 : dt.hour % 12), c) },
  K: { max: 2, build: (c) => num((dt) => dt.hour % 12, c) },
  m: { max: 2, build: (c) => num((dt) => dt.minute, c) },
  s: { max: 2, build: (c) => num((dt) => dt.second, c) },
  S: {
    max: 9,
    build: (c) => (dt) => {
      const ms = pad(dt.millisecond, 3);
      return c <= 3 ? ms.slice(0, c) : ms + '0'.repeat(c - 3);
    },
  },
  a: { max: 1, build: () => luxonToken('a', byMeridiem) },
  z: {
    max: 4,
    build: (c) => zoneName(c === 4),
  },
  Z: {
    max: 5,
    build: (c) => (c <= 3 ? offsetX(2, false) : c === 4 ? offsetGmt : offsetX(3, true)),
  },
  X: { max: 3, build: (c) => offsetX(c, true) },
  x: { max: 3, build: (c) => offsetX(c, false) },
  V: { min: 2, max: 2, build: () => (dt) => dt.zoneName ?? offsetGmt(dt) },
  w: { max: 2, build: (c) => num((dt) => dt.weekNumber, c) },
};

/**
 * The patterns `parse` takes, as a regular expression (the request schemas publish it): literal
 * characters, '' or quoted text, and runs of the supported letters of an allowed length (a run is
 * never continued by the same letter: the lookahead).
 */
export const DATE_PATTERN_FORM = `^(?:[^A-Za-z'\\u0000]|''|'(?:[^'\\u0000]|'')*'|${Object.entries(LETTERS)
  .map(([letter, spec]) => `${letter}{${spec.min ?? 1},${spec.max}}(?!${letter})`)
  .join('|')})*$`;
export const DATE_PATTERN_RULE =
  `must be a date pattern of the letters ${Object.keys(LETTERS).join(' ')} (each in its allowed counts) ` +
  'and text in single quotes';

function isAsciiLetter(ch: string): boolean {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
}

function parse(pattern: string): Part[] {
  if (typeof pattern !== 'string') throw new PatternError('pattern must be a string');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  const parts: Part[] = [];
  let literal = '';
  const flush = (): void => {
    if (literal) {
      const text = literal;
      parts.push(() => text);
      literal = '';
    }
  };
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === "'") {
      if (pattern[i + 1] === "'") {
        literal += "'";
        i += 2;
        continue;
      }
      // Quoted text up to the next lone quote; '' inside is a quote.
      let j = i + 1;
      let closed = false;
      while (j < pattern.length) {
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") {
            literal += "'";
            j += 2;
            continue;
          }
          closed = true;
          break;
        }
        literal += pattern[j];
        j++;
      }
      if (!closed) throw new PatternError(`unterminated quote at position ${i} in pattern '${pattern}'`);
      i = j + 1;
      continue;
    }
    if (isAsciiLetter(ch)) {
      let j = i + 1;
      while (j < pattern.length && pattern[j] === ch) j++;
      const count = j - i;
      const spec = LETTERS[ch];
      if (!spec) throw new PatternError(`unsupported pattern letter '${ch}' in pattern '${pattern}'`);
      if (count > spec.max || count < (spec.min ?? 1)) {
        throw new PatternError(`invalid number of pattern letters '${ch}' (${count}) in pattern '${pattern}'`);
      }
      flush();
      parts.push(spec.build(count));
      i = j;
      continue;
    }
    literal += ch;
    i++;
  }
  flush();
  return parts;
}

const CACHE_LIMIT = 256;
const cache = new Map<string, CompiledPattern>();

/**
 * Compiles a Java-style pattern into a formatter; throws PatternError
 * naming the bad letter for unsupported/invalid patterns.
 */
export function compilePattern(pattern: string): (dt: DateTime) => string {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const parts = parse(pattern);
  let fn: CompiledPattern;
  if (parts.length === 0) fn = () => '';
  else if (parts.length === 1) fn = parts[0];
  else
    fn = (dt) => {
      let s = '';
      for (const p of parts) s += p(dt);
      return s;
    };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, fn);
  return fn;
}

export const DEFAULT_LOCALE = 'de-DE';
const TAG_RE = /^([A-Za-z]{2,3})(?:[_-]([A-Za-z]{4}))?(?:[_-]([A-Za-z]{2}|[0-9]{3}))?$/;

/**
 * 'de_DE' | 'de-DE' | 'en' | undefined -> a luxon locale string such as 'de-DE'; undefined -> 'de-DE'.
 * An empty/blank tag also gives the default. A well-formed tag whose language the runtime's ICU
 * does not know (e.g. 'xx') falls back to 'de-DE' rather than to the host's locale.
 * Throws PatternError for a malformed tag.
 */
export function localeFromLanguageTag(tag: string | undefined): string {
  if (tag === undefined || tag === null) return DEFAULT_LOCALE;
  const t = String(tag).trim();
  if (t === '') return DEFAULT_LOCALE;
  const m = TAG_RE.exec(t);
  if (!m) throw new PatternError(`malformed languageTag '${tag}' (expected e.g. de_DE, en_US or en)`);
  const [, lang, script, region] = m;
  let locale = lang.toLowerCase();
  if (script) locale += `-${script[0].toUpperCase()}${script.slice(1).toLowerCase()}`;
  if (region) locale += `-${region.toUpperCase()}`;
  let canonical: string;
  try {
    canonical = Intl.getCanonicalLocales(locale)[0];
  } catch {
    throw new PatternError(`malformed languageTag '${tag}'`);
  }
  if (Intl.DateTimeFormat.supportedLocalesOf([canonical]).length === 0) return DEFAULT_LOCALE;
  return canonical;
}
