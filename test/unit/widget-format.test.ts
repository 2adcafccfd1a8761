/** The widget's date, time and text helpers (widget/src/format.js, i18n.js): pure, run in Node. */
import { describe, expect, it } from 'vitest';
import {
  createFormatters,
  dayDate,
  dayOf,
  endText,
  mmss,
  startText,
  timeOf,
  toUtcIso,
} from '../../widget/src/format.js';
import { countText, fill, languageTagOf, localeOf, pickLang, TEXT } from '../../widget/src/i18n.js';

describe('widget dates and times', () => {
  it('reads the day and time of the provider wall clock from the offset the service sends', () => {
    expect(dayOf('2026-07-20T23:30:00+02:00')).toBe('2026-07-20'); // 21:30 UTC, still the 20th there
    expect(dayOf('2026-07-20')).toBe('2026-07-20');
    expect(dayOf('20.07.2026')).toBeNull();
    expect(dayOf(undefined)).toBeNull();
    expect(timeOf('2026-07-20T09:05:00+02:00')).toBe('09:05');
    expect(timeOf('no time')).toBe('');
  });

  it('takes the server-formatted times and falls back to the ISO time', () => {
    expect(startText({ formattedStart: '9:30', start: '2026-07-20T10:00:00+02:00' })).toBe('9:30');
    expect(startText({ formattedStart: '2026-07-20 09:30', start: '2026-07-20T10:00:00+02:00' })).toBe('10:00');
    expect(endText({ end: '2026-07-20T10:30:00+02:00' })).toBe('10:30');
  });

  it('sends A2 its from/to in UTC and passes on what it cannot parse', () => {
    expect(toUtcIso('2026-07-20T10:00:00+02:00')).toBe('2026-07-20T08:00:00.000Z');
    expect(toUtcIso('garbage')).toBe('garbage');
  });

  it('counts the hold down as m:ss, rounding up and never below 0:00', () => {
    expect(mmss(180_000)).toBe('3:00');
    expect(mmss(179_001)).toBe('3:00');
    expect(mmss(65_000)).toBe('1:05');
    expect(mmss(1)).toBe('0:01');
    expect(mmss(-5_000)).toBe('0:00');
  });

  it('names days and months in the widget language whatever the time zone', () => {
    expect(dayDate('2026-03-29').toISOString()).toBe('2026-03-29T12:00:00.000Z');
    const de = createFormatters(localeOf('de'));
    // exact short forms differ between ICU versions (Mo / Mo.)
    expect(de.weekdayShort('2026-07-20')).toMatch(/^Mo\.?$/);
    expect(de.monthShort('2026-07-20')).toMatch(/^Juli?\.?$/);
    expect(de.longDate('2026-07-20')).toBe('Montag, 20. Juli 2026');
    expect(de.monthRange(['2026-07-20', '2026-07-31'])).toBe('Juli 2026');
    expect(de.monthRange(['2026-07-28', '2026-08-03'])).toBe('Juli 2026 – August 2026');
    const en = createFormatters(localeOf('en'));
    expect(en.weekdayShort('2026-07-20')).toBe('Mon');
    expect(en.longDate('2026-07-20')).toMatch(/^Monday,? 20 July 2026$/);
  });
});

describe('widget texts', () => {
  it('has every text in both languages', () => {
    expect(Object.keys(TEXT.de).sort()).toEqual(Object.keys(TEXT.en).sort());
    for (const lang of ['de', 'en'] as const)
      for (const [k, v] of Object.entries(TEXT[lang])) expect(v, `${lang}.${k}`).not.toBe('');
  });

  it('picks the first language given: the wanted one, the page, the browser; German otherwise', () => {
    expect(pickLang(['en', 'de-DE', 'de'])).toBe('en');
    expect(pickLang([undefined, 'en-US', 'de'])).toBe('en');
    expect(pickLang([undefined, '', 'EN-gb'])).toBe('en');
    expect(pickLang(['fr', 'en'])).toBe('de');
    expect(pickLang([undefined, null])).toBe('de');
    expect(languageTagOf('de')).toBe('de_DE');
    expect(languageTagOf('en')).toBe('en_GB');
  });

  it('fills placeholders and counts in the singular and plural', () => {
    expect(fill('{start} to {end}', { start: '09:00', end: '09:30' })).toBe('09:00 to 09:30');
    expect(fill('{a} {missing}', { a: 1 })).toBe('1 {missing}');
    expect(countText(TEXT.en, 1)).toBe('1 free time');
    expect(countText(TEXT.de, 6)).toBe('6 freie Zeiten');
  });
});
