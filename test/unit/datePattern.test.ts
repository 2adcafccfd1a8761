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
    for (const p of [
      'A',
      'B',
      'C',
      'F',
      'I',
      'N',
      'O',
      'Q',
      'R',
      'T',
      'U',
      'W',
      'c',
      'f',
      'g',
      'i',
      'j',
      'l',
      'n',
      'o',
      'p',
      'r',
      't',
      'v',
    ]) {
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

/*
 * The expected texts below are what luxon (`toFormat`) and Intl.DateTimeFormat give for the same
 * fields (e.g. luxon 'GG' = Intl era 'long', 'LLL' = standalone month 'short'), written out as
 * literals; the offsets are those of java.time's DateTimeFormatter for X, x and Z.
 */
describe('widths of the name fields', () => {
  const en = winter.setLocale('en-US');

  it('writes the era short for G to GGG, long for GGGG and narrow for GGGGG', () => {
    expect(fmt('G|GG|GGG|GGGG|GGGGG', en)).toBe('AD|AD|AD|Anno Domini|A');
    const caesar = DateTime.fromObject({ year: -43, month: 3, day: 15, hour: 10 }, { zone: 'UTC' }).setLocale('en-US');
    expect(fmt('G|GG|GGG|GGGG|GGGGG', caesar)).toBe('BC|BC|BC|Before Christ|B');
    expect(fmt('G', en)).toBe('AD');
    expect(fmt('GGGG', winter)).toBe('n. Chr.');
  });

  it('writes years before year 1 with a minus sign, as luxon does (year 0 is 1 BC)', () => {
    const bc = DateTime.fromObject({ year: -43, month: 3, day: 15, hour: 10 }, { zone: 'UTC' });
    expect(fmt('y|yyyy|yyyyyy', bc)).toBe('-43|-0043|-000043');
  });

  it('puts year 1 in the common era and year 0 (1 BC) before it', () => {
    const de = (year: number) =>
      DateTime.fromObject({ year, month: 6, day: 1, hour: 12 }, { zone: 'UTC' }).setLocale('de-DE');
    expect(fmt('G y', de(1))).toBe('n. Chr. 1');
    expect(fmt('G', de(0))).toBe('v. Chr.');
    expect(fmt('G', de(1))).toBe('n. Chr.');
  });

  it('switches the AM/PM marker at noon exactly', () => {
    const at = (hm: string) => DateTime.fromISO(`2026-03-01T${hm}`, { zone }).setLocale('en-US');
    expect(fmt('a', at('11:59'))).toBe('AM');
    expect(fmt('a', at('12:00'))).toBe('PM');
    expect(fmt('h:mm a', at('12:00'))).toBe('12:00 PM');
    expect(fmt('a', at('00:00'))).toBe('AM');
    expect(fmt('a', at('23:59'))).toBe('PM');
  });

  it('writes months as number, padded number, short, full and narrow name (M and L)', () => {
    expect(fmt('M|MM|MMM|MMMM|MMMMM', en)).toBe('3|03|Mar|March|M');
    expect(fmt('L|LL|LLL|LLLL|LLLLL', en)).toBe('3|03|Mar|March|M');
    expect(fmt('L LL', summer)).toBe('6 06');
    // German has a distinct standalone short month: 'März' in a date, 'Mär' on its own
    expect(fmt('MMM|LLL|MMMMM|LLLLL')).toBe('März|Mär|M|M');
  });

  it('writes weekdays short for E to EEE, full for EEEE and narrow for EEEEE', () => {
    expect(fmt('E|EEE|EEEE|EEEEE', en)).toBe('Sun|Sun|Sunday|S');
    expect(fmt('EEEE|EEEEE', summer.setLocale('en-US'))).toBe('Monday|M');
    expect(fmt('EEEEE')).toBe('S');
  });

  it('writes e as padded number up to ee and as names from eee on', () => {
    expect(fmt('e|ee|eee|eeee|eeeee', en)).toBe('7|07|Sun|Sunday|S');
    expect(fmt('u|uu', summer)).toBe('1|01');
  });
});

describe('fractions of a second', () => {
  it('truncates to the count of S and fills beyond milliseconds with zeros', () => {
    expect(fmt('SSSS|SSSSS|SSSSSSSSS')).toBe('0890|08900|089000000');
    const late = DateTime.fromISO('2026-03-01T09:05:07.987', { zone });
    expect(fmt('S|SS|SSS|SSSS', late)).toBe('9|98|987|9870');
    const early = DateTime.fromISO('2026-03-01T09:05:07.005', { zone });
    expect(fmt('S|SS|SSS|SSSS', early)).toBe('0|00|005|0050');
  });
});

describe('offsets', () => {
  const kolkata = winter.setZone('Asia/Kolkata'); // +05:30
  const stJohns = winter.setZone('America/St_Johns'); // -03:30
  const ny = winter.setZone('America/New_York'); // -05:00
  const utc = winter.setZone('UTC');

  it('writes x like X but never Z for a zero offset', () => {
    expect(fmt('x|xx|xxx', kolkata)).toBe('+0530|+0530|+05:30');
    expect(fmt('x|xx|xxx', summer)).toBe('+02|+0200|+02:00');
    expect(fmt('x|xx|xxx', utc)).toBe('+00|+0000|+00:00');
    expect(fmt('x|xx|xxx', ny)).toBe('-05|-0500|-05:00');
  });

  it('writes negative offsets with minutes', () => {
    expect(fmt('X|XX|XXX', stJohns)).toBe('-0330|-0330|-03:30');
    expect(fmt('x|ZZZZ|ZZZZZ', stJohns)).toBe('-0330|GMT-03:30|-03:30');
    expect(fmt('X|XX', ny)).toBe('-05|-0500');
  });

  it('writes Z to ZZZ as +HHMM, ZZZZ as GMT+HH:MM and ZZZZZ as +HH:MM or Z', () => {
    expect(fmt('Z|ZZ|ZZZ')).toBe('+0100|+0100|+0100');
    expect(fmt('Z|ZZ|ZZZ', utc)).toBe('+0000|+0000|+0000');
    expect(fmt('ZZZZZ', utc)).toBe('Z');
    expect(fmt('ZZZZ|ZZZZZ', kolkata)).toBe('GMT+05:30|+05:30');
  });
});

describe('pattern limits and arguments', () => {
  it('accepts a pattern of exactly 200 characters and rejects 201', () => {
    const p200 = `yyyy${'-'.repeat(196)}`;
    expect(p200).toHaveLength(200);
    expect(fmt(p200)).toBe(`2026${'-'.repeat(196)}`);
    expect(() => compilePattern(`${p200}-`)).toThrow(/longer than 200 characters/);
  });

  it('rejects a pattern that is not a string', () => {
    expect(() => compilePattern(42 as unknown as string)).toThrow(PatternError);
    expect(() => compilePattern(undefined as unknown as string)).toThrow(/pattern must be a string/);
  });

  it('names the letter and its count when a letter repeats too often', () => {
    expect(() => compilePattern('yyyy-MM-ddd')).toThrow(
      "invalid number of pattern letters 'd' (3) in pattern 'yyyy-MM-ddd'",
    );
    expect(() => compilePattern('yyyy-bb')).toThrow("unsupported pattern letter 'b' in pattern 'yyyy-bb'");
    expect(() => compilePattern("yy 'at")).toThrow("unterminated quote at position 3 in pattern 'yy 'at'");
  });

  it('accepts every letter at its longest listed width', () => {
    for (const p of [
      'GGGGG',
      'yyyyyyyyy',
      'YYYYYYYYY',
      'MMMMM',
      'LLLLL',
      'dd',
      'DDD',
      'EEEEE',
      'eeeee',
      'uu',
      'HH',
      'kk',
      'hh',
      'KK',
      'mm',
      'ss',
      'SSSSSSSSS',
      'a',
      'zzzz',
      'ZZZZZ',
      'XXX',
      'xxx',
      'VV',
      'ww',
    ]) {
      expect(() => compilePattern(p), p).not.toThrow();
    }
    expect(fmt('yyyyyyyyy|YYYYYYYYY|DDD|kk|KK', summer)).toBe('000002026|000002026|166|21|09');
  });
});

describe('compiled pattern cache bound', () => {
  it('keeps a pattern while fewer than 256 others were compiled after it, and not after 256 more', () => {
    const fill = (tag: string, n: number) => {
      for (let i = 0; i < n; i++) compilePattern(`'${tag}${i}'`);
    };
    fill('a', 300); // the cache now holds only patterns of this test
    const kept = compilePattern("'kept' yyyy");
    fill('b', 255);
    expect(compilePattern("'kept' yyyy")).toBe(kept);

    fill('c', 300);
    const dropped = compilePattern("'dropped' yyyy");
    fill('d', 256);
    const again = compilePattern("'dropped' yyyy");
    expect(again).not.toBe(dropped);
    expect(again(winter)).toBe('dropped 2026');
  });
});

describe('language tag normalisation', () => {
  it('gives the default for null and blank tags', () => {
    expect(localeFromLanguageTag(null as unknown as string)).toBe('de-DE');
    expect(localeFromLanguageTag('   ')).toBe('de-DE');
  });

  it('trims and normalises case of language, script and region', () => {
    expect(localeFromLanguageTag(' en_US ')).toBe('en-US');
    expect(localeFromLanguageTag('de-de')).toBe('de-DE');
    expect(localeFromLanguageTag('sr_latn_rs')).toBe('sr-Latn-RS');
    expect(localeFromLanguageTag('SR-LATN')).toBe('sr-Latn');
  });

  it('accepts three-letter languages and numeric regions', () => {
    expect(localeFromLanguageTag('fil_PH')).toBe('fil-PH');
    expect(localeFromLanguageTag('haw')).toBe('haw');
    expect(localeFromLanguageTag('es_419')).toBe('es-419');
  });

  it('rejects malformed tags with a message naming the tag', () => {
    for (const t of ['de_1234', 'de_D', 'de_DEU', 'deut_DE', 'sr_Lat_RS', '1de_DE', 'de_DE1', 'de-Latn-']) {
      expect(() => localeFromLanguageTag(t), t).toThrow(`malformed languageTag '${t}'`);
    }
  });
});
