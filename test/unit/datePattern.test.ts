import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { compilePattern, localeFromLanguageTag, PatternError } from '../../src/booking/datePattern.js';

const zone = 'Europe/Berlin';
/** Sunday 2026-03-01 09:05:07.089 in Berlin (CET, +01:00). */
const winter = DateTime.fromISO('2026-03-01T09:05:07.089', { zone }).setLocale('de-DE');
/** Monday 2026-06-15 21:30 in Berlin (CEST, +02:00). */
const summer = DateTime.fromISO('2026-06-15T21:30:00', { zone }).setLocale('de-DE');

const fmt = (pattern: string, dt: DateTime = winter) => compilePattern(pattern)(dt);

describe('default patterns', () => {
  it('formats the default group pattern yyyy-MM-dd', () => {
    expect(fmt('yyyy-MM-dd')).toBe('2026-03-01');
  });

  it('formats the default time pattern yyyy-MM-dd HH:mm', () => {
    expect(fmt('yyyy-MM-dd HH:mm')).toBe('2026-03-01 09:05');
    expect(fmt('yyyy-MM-dd HH:mm', summer)).toBe('2026-06-15 21:30');
  });

  it('renders in the zone of the DateTime', () => {
    expect(fmt('yyyy-MM-dd HH:mm', winter.setZone('America/New_York'))).toBe('2026-03-01 03:05');
  });
});

describe('numeric fields', () => {
  it('formats years in full, two-digit and padded widths', () => {
    expect(fmt('y yy yyy yyyy yyyyy')).toBe('2026 26 2026 2026 02026');
  });

  it('formats months, days and day of year with and without padding', () => {
    expect(fmt('M MM d dd D DDD')).toBe('3 03 1 01 60 060');
  });

  it('formats hours in the four Java hour styles', () => {
    expect(fmt('H HH h hh k K')).toBe('9 09 9 09 9 9');
    expect(fmt('H HH h hh k K', summer)).toBe('21 21 9 09 21 9');
    const midnight = DateTime.fromISO('2026-03-01T00:00', { zone });
    expect(fmt('H h k K', midnight)).toBe('0 12 24 0');
    const noon = DateTime.fromISO('2026-03-01T12:00', { zone });
    expect(fmt('H h k K', noon)).toBe('12 12 12 0');
  });

  it('formats minutes, seconds and fractions of a second', () => {
    expect(fmt('m mm s ss S SS SSS SSSSSS')).toBe('5 05 7 07 0 08 089 089000');
  });

  it('formats the ISO day of week with 1 for Monday', () => {
    expect(fmt('e u')).toBe('7 7');
    expect(fmt('e u', summer)).toBe('1 1');
  });

  it('formats the ISO week and week-based year', () => {
    expect(fmt('w ww')).toBe('9 09');
    const jan1 = DateTime.fromISO('2027-01-01T10:00', { zone });
    expect(fmt('YYYY-ww yyyy', jan1)).toBe('2026-53 2027');
  });
});

describe('names from the locale', () => {
  it('uses German month and weekday names', () => {
    expect(fmt('EEEE, d. MMMM yyyy')).toBe('Sonntag, 1. März 2026');
    expect(fmt('EEE LLLL')).toBe('So. März');
    expect(fmt('EEEE', summer)).toBe('Montag');
    expect(fmt('MMMM', summer)).toBe('Juni');
  });

  it('keeps names of different locales apart', () => {
    const f = compilePattern('EEEE MMMM a');
    expect(f(winter)).toBe('Sonntag März AM');
    expect(f(winter.setLocale('en-GB'))).toBe('Sunday March am');
    expect(f(winter.setLocale('fr-FR'))).toBe('dimanche mars AM');
    expect(f(winter)).toBe('Sonntag März AM');
  });

  it('writes numbers with ASCII digits whatever the locale', () => {
    expect(fmt('dd.MM.yyyy HH:mm', winter.setLocale('ar-EG'))).toBe('01.03.2026 09:05');
  });

  it('uses English month and weekday names', () => {
    const en = winter.setLocale('en-US');
    expect(fmt('EEEE, MMMM d, yyyy', en)).toBe('Sunday, March 1, 2026');
    expect(fmt('E EE EEE MMM', en)).toBe('Sun Sun Sun Mar');
    expect(fmt('h:mm a', summer.setLocale('en-US'))).toBe('9:30 PM');
  });

  it('writes zone names, offsets and the zone id', () => {
    expect(fmt('z')).toBe('MEZ');
    expect(fmt('z', summer)).toBe('MESZ');
    expect(fmt('zzzz')).toBe('Mitteleuropäische Normalzeit');
    expect(fmt('zzzz', winter.setLocale('en-US'))).toBe('Central European Standard Time');
    expect(fmt('zzzz', summer)).toBe('Mitteleuropäische Sommerzeit');
    expect(fmt('Z|ZZZZ|ZZZZZ')).toBe('+0100|GMT+01:00|+01:00');
    expect(fmt('X|XX|XXX', summer)).toBe('+02|+0200|+02:00');
    expect(fmt('VV')).toBe('Europe/Berlin');
    const utc = winter.setZone('UTC');
    expect(fmt('X XX XXX x Z ZZZZ', utc)).toBe('Z Z Z +00 +0000 GMT');
    const kolkata = winter.setZone('Asia/Kolkata');
    expect(fmt('X XX XXX', kolkata)).toBe('+0530 +0530 +05:30');
    const ny = winter.setZone('America/New_York');
    expect(fmt('XXX', ny)).toBe('-05:00');
  });
});

describe('literals', () => {
  it('keeps punctuation, digits and spaces as literals', () => {
    expect(fmt('dd.MM.yyyy, HH:mm / 1')).toBe('01.03.2026, 09:05 / 1');
  });

  it('writes quoted text as it is, letters included', () => {
    expect(fmt("yyyy-MM-dd'T'HH:mm")).toBe('2026-03-01T09:05');
    expect(fmt("EEEE 'um' HH:mm 'Uhr'")).toBe('Sonntag um 09:05 Uhr');
  });

  it("writes '' as a single quote, outside and inside quoted text", () => {
    expect(fmt("HH''mm")).toBe("09'05");
    expect(fmt("'o''clock' H")).toBe("o'clock 9");
    expect(fmt("''")).toBe("'");
  });

  it('keeps non-ASCII letters as literals', () => {
    expect(fmt('d. MMMM – HH:mm ü')).toBe('1. März – 09:05 ü');
  });

  it('formats an empty pattern as empty text', () => {
    expect(fmt('')).toBe('');
  });
});

describe('invalid patterns', () => {
  it('rejects unsupported letters and names them', () => {
    expect(() => compilePattern('yyyy-bb')).toThrow(PatternError);
    expect(() => compilePattern('yyyy-bb')).toThrow(/'b'/);
    expect(() => compilePattern('q')).toThrow(PatternError);
    expect(() => compilePattern('q')).toThrow(/'q'/);
    for (const p of ['A', 'B', 'C', 'F', 'I', 'N', 'O', 'Q', 'R', 'T', 'U', 'W', 'c', 'f', 'g', 'i', 'j', 'l', 'n', 'o', 'p', 'r', 't', 'v']) {
      expect(() => compilePattern(p), p).toThrow(PatternError);
    }
  });

  it('rejects too many repetitions of a letter', () => {
    expect(() => compilePattern('ddd')).toThrow(/'d'/);
    expect(() => compilePattern('HHH')).toThrow(PatternError);
    expect(() => compilePattern('MMMMMM')).toThrow(PatternError);
    expect(() => compilePattern('aa')).toThrow(PatternError);
    expect(() => compilePattern('V')).toThrow(/'V'/);
  });

  it('rejects an unterminated quote', () => {
    expect(() => compilePattern("yyyy 'at HH")).toThrow(PatternError);
    expect(() => compilePattern("'")).toThrow(/unterminated quote/);
    expect(() => compilePattern("'it''s")).toThrow(PatternError);
  });

  it('rejects overlong patterns', () => {
    expect(() => compilePattern('y'.repeat(1) + '-'.repeat(500))).toThrow(PatternError);
  });

  it('is an Error subclass', () => {
    expect(() => compilePattern('q')).toThrow(PatternError);
    expect(() => compilePattern('q')).toThrow(Error);
    expect(() => compilePattern('q')).toThrow(expect.objectContaining({ name: 'PatternError' }));
  });
});

describe('compiled pattern cache', () => {
  it('returns the same formatter for the same pattern', () => {
    expect(compilePattern('dd.MM.')).toBe(compilePattern('dd.MM.'));
  });

  it('keeps working after many distinct patterns', () => {
    for (let i = 0; i < 600; i++) compilePattern(`'${i}' yyyy`);
    expect(fmt("'x' yyyy")).toBe('x 2026');
  });
});

describe('language tags', () => {
  it('defaults to de-DE', () => {
    expect(localeFromLanguageTag(undefined)).toBe('de-DE');
    expect(localeFromLanguageTag('')).toBe('de-DE');
  });

  it('accepts the language_REGION form', () => {
    expect(localeFromLanguageTag('de_DE')).toBe('de-DE');
    expect(localeFromLanguageTag('en_US')).toBe('en-US');
    expect(localeFromLanguageTag('de_CH')).toBe('de-CH');
  });

  it('accepts BCP 47 tags and a bare language', () => {
    expect(localeFromLanguageTag('de-DE')).toBe('de-DE');
    expect(localeFromLanguageTag('en')).toBe('en');
    expect(localeFromLanguageTag('EN_gb')).toBe('en-GB');
    expect(localeFromLanguageTag('zh_Hant_TW')).toBe('zh-Hant-TW');
  });

  it('falls back to de-DE for a well-formed tag of an unknown language', () => {
    expect(localeFromLanguageTag('zz_ZZ')).toBe('de-DE');
  });

  it('rejects malformed tags', () => {
    for (const t of ['de_DE.UTF-8', 'x', 'deutsch', 'de__DE', 'de_', '12', 'de DE', "de'DE"]) {
      expect(() => localeFromLanguageTag(t), t).toThrow(PatternError);
    }
  });

  it('gives locales that luxon renders month names with', () => {
    const march = DateTime.fromISO('2026-03-01T10:00', { zone });
    expect(fmt('MMMM', march.setLocale(localeFromLanguageTag('de_DE')))).toBe('März');
    expect(fmt('MMMM', march.setLocale(localeFromLanguageTag('en_US')))).toBe('March');
    expect(fmt('MMMM', march.setLocale(localeFromLanguageTag('en')))).toBe('March');
  });
});
