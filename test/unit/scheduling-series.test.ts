import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../src/errors.js';
import { expandSeries, type SeriesPlan } from '../../src/scheduling/series.js';
import { formatInstant } from '../../src/scheduling/time.js';

const zone = 'Europe/Berlin';
const day = (iso: string) => DateTime.fromISO(iso, { zone });

function plan(over: Partial<SeriesPlan> = {}): SeriesPlan {
  return {
    zone,
    firstDay: day('2026-06-01'),
    lastDay: day('2026-06-01'),
    windowFrom: { hour: 9, minute: 0, second: 0 },
    windowTo: { hour: 10, minute: 0, second: 0 },
    weekdays: null,
    rasterMin: 30,
    ...over,
  };
}

const local = (items: { start: Date; end: Date }[]) =>
  items.map((i) => `${formatInstant(i.start, zone)}/${formatInstant(i.end, zone)}`);

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as DomainError).code).toBe('VALIDATION');
    return (err as DomainError).message;
  }
  throw new Error('expected a validation error');
}

describe('expandSeries', () => {
  it('cuts a one-day window into raster-minute appointments', () => {
    expect(local(expandSeries(plan()))).toEqual([
      '2026-06-01T09:00:00+02:00/2026-06-01T09:30:00+02:00',
      '2026-06-01T09:30:00+02:00/2026-06-01T10:00:00+02:00',
    ]);
  });

  it('drops a trailing part shorter than the raster', () => {
    expect(expandSeries(plan({ windowTo: { hour: 10, minute: 20, second: 0 } }))).toHaveLength(2);
  });

  it('keeps only the listed ISO weekdays, both end dates included', () => {
    // 2026-06-01 is a Monday; Monday, Wednesday and Sunday of one week
    const items = expandSeries(plan({ lastDay: day('2026-06-07'), weekdays: [1, 3, 7], rasterMin: 60 }));
    expect(local(items)).toEqual([
      '2026-06-01T09:00:00+02:00/2026-06-01T10:00:00+02:00',
      '2026-06-03T09:00:00+02:00/2026-06-03T10:00:00+02:00',
      '2026-06-07T09:00:00+02:00/2026-06-07T10:00:00+02:00',
    ]);
  });

  it('keeps the wall-clock window across the spring-forward change', () => {
    const items = expandSeries(
      plan({ firstDay: day('2026-03-28'), lastDay: day('2026-03-30'), weekdays: [1, 2, 3, 4, 5, 6, 7], rasterMin: 60 }),
    );
    expect(local(items)).toEqual([
      '2026-03-28T09:00:00+01:00/2026-03-28T10:00:00+01:00',
      '2026-03-29T09:00:00+02:00/2026-03-29T10:00:00+02:00',
      '2026-03-30T09:00:00+02:00/2026-03-30T10:00:00+02:00',
    ]);
    expect(items.map((i) => i.start.toISOString())).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
  });

  it('keeps the wall-clock window across the fall-back change', () => {
    const items = expandSeries(
      plan({ firstDay: day('2026-10-24'), lastDay: day('2026-10-26'), weekdays: [1, 6, 7], rasterMin: 60 }),
    );
    expect(items.map((i) => i.start.toISOString())).toEqual([
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
    ]);
  });

  it('counts a raster in real minutes when the window spans the change itself', () => {
    // 01:00-04:00 local on 2026-03-29 is two real hours: 01:00+01, 03:00+02 (02:00 does not exist)
    const items = expandSeries(
      plan({
        firstDay: day('2026-03-29'),
        lastDay: day('2026-03-29'),
        windowFrom: { hour: 1, minute: 0, second: 0 },
        windowTo: { hour: 4, minute: 0, second: 0 },
        rasterMin: 60,
      }),
    );
    expect(local(items)).toEqual([
      '2026-03-29T01:00:00+01:00/2026-03-29T03:00:00+02:00',
      '2026-03-29T03:00:00+02:00/2026-03-29T04:00:00+02:00',
    ]);
  });

  it('requires weekdays when the series spans more than one day', () => {
    expect(messageOf(() => expandSeries(plan({ lastDay: day('2026-06-02') })))).toContain('body.series_data.weekdays');
  });

  it('refuses a last day before the first day', () => {
    expect(messageOf(() => expandSeries(plan({ lastDay: day('2026-05-31'), weekdays: [1] })))).toContain(
      'body.series_data.to',
    );
  });

  it('refuses a daily window that ends before it starts', () => {
    expect(messageOf(() => expandSeries(plan({ windowTo: { hour: 8, minute: 0, second: 0 } })))).toContain('body.to');
  });

  it('refuses a series that gives no appointment', () => {
    expect(messageOf(() => expandSeries(plan({ weekdays: [2] })))).toContain('no appointment');
  });

  it('refuses series beyond the limits', () => {
    expect(messageOf(() => expandSeries(plan({ lastDay: day('2030-01-01'), weekdays: [1] })))).toContain('days');
    expect(
      messageOf(() =>
        expandSeries(
          plan({
            lastDay: day('2026-12-31'),
            weekdays: [1, 2, 3, 4, 5, 6, 7],
            rasterMin: 5,
            windowTo: { hour: 17, minute: 0, second: 0 },
          }),
        ),
      ),
    ).toContain('at most');
  });
});
