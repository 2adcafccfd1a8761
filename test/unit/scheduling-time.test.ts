import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/errors.js';
import {
  formatInstant,
  isIsoDateTime,
  nowRoundedUp,
  parseInstant,
  parseLocalDate,
  parseTimeOfDay,
} from '../../src/scheduling/time.js';

const BERLIN = 'Europe/Berlin';

function validationMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('VALIDATION');
    return (err as DomainError).message;
  }
  throw new Error('expected a validation error');
}

describe('parseInstant', () => {
  it('reads a time without offset as wall-clock time in the zone (summer)', () => {
    expect(parseInstant('2026-06-01T10:00', BERLIN, 'body.start').toISOString()).toBe('2026-06-01T08:00:00.000Z');
  });

  it('reads a time without offset as wall-clock time in the zone (winter)', () => {
    expect(parseInstant('2026-01-15T10:00:00', BERLIN, 'body.start').toISOString()).toBe('2026-01-15T09:00:00.000Z');
  });

  it('takes a time with an offset or Z as the exact instant whatever the zone', () => {
    expect(parseInstant('2026-06-01T10:00:00+05:00', BERLIN, 'f').toISOString()).toBe('2026-06-01T05:00:00.000Z');
    expect(parseInstant('2026-06-01T10:00:00Z', BERLIN, 'f').toISOString()).toBe('2026-06-01T10:00:00.000Z');
    expect(parseInstant('2026-06-01T10:00:00.250-0130', 'UTC', 'f').toISOString()).toBe('2026-06-01T11:30:00.250Z');
  });

  it('moves a wall-clock time in the spring-forward gap forward', () => {
    expect(parseInstant('2026-03-29T02:30', BERLIN, 'f').toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  it('reads a date alone as midnight in the zone', () => {
    expect(parseInstant('2026-10-25', BERLIN, 'f').toISOString()).toBe('2026-10-24T22:00:00.000Z');
  });

  it('reads a value again alike: a wall-clock time per zone, an instant whatever the zone, a new Date', () => {
    for (let i = 0; i < 2; i++) {
      expect(parseInstant('2026-07-01T10:00', BERLIN, 'f').toISOString()).toBe('2026-07-01T08:00:00.000Z');
      expect(parseInstant('2026-07-01T10:00', 'America/New_York', 'f').toISOString()).toBe('2026-07-01T14:00:00.000Z');
      expect(parseInstant('2026-07-01T10:00:00+02:00', 'America/New_York', 'f').toISOString()).toBe(
        '2026-07-01T08:00:00.000Z',
      );
    }
    const first = parseInstant('2026-07-01T10:00', BERLIN, 'f');
    first.setTime(0);
    expect(parseInstant('2026-07-01T10:00', BERLIN, 'f').toISOString()).toBe('2026-07-01T08:00:00.000Z');
    // a rejected value stays rejected
    expect(() => parseInstant('2026-07-01T25:00', BERLIN, 'f')).toThrow(DomainError);
    expect(() => parseInstant('2026-07-01T25:00', BERLIN, 'f')).toThrow(DomainError);
  });

  it.each(['', 'tomorrow', '2026-13-01T10:00', '2026-06-01 10:00', '2026-W10', '2026-06-01T25:00', '1717228800'])(
    'rejects %j with a message naming the field',
    (value) => {
      expect(validationMessage(() => parseInstant(value, BERLIN, 'body.timeslots[0].end'))).toContain(
        'body.timeslots[0].end',
      );
      expect(isIsoDateTime(value)).toBe(false);
    },
  );
});

describe('formatInstant', () => {
  it('answers with the offset of the zone on each side of a DST change and no milliseconds', () => {
    expect(formatInstant(new Date('2026-03-29T00:30:00.123Z'), BERLIN)).toBe('2026-03-29T01:30:00+01:00');
    expect(formatInstant(new Date('2026-03-29T01:30:00Z'), BERLIN)).toBe('2026-03-29T03:30:00+02:00');
    expect(formatInstant(new Date('2026-10-25T00:30:00Z'), BERLIN)).toBe('2026-10-25T02:30:00+02:00');
    expect(formatInstant(new Date('2026-10-25T01:30:00Z'), BERLIN)).toBe('2026-10-25T02:30:00+01:00');
  });

  it('writes UTC with Z', () => {
    expect(formatInstant(new Date('2026-06-01T08:00:00Z'), 'UTC')).toBe('2026-06-01T08:00:00Z');
  });

  it("answers one instant in each zone with that zone's offset, however often and in whatever order asked", () => {
    const expected: Record<string, string> = {
      [BERLIN]: '2026-06-01T10:00:00+02:00',
      'America/New_York': '2026-06-01T04:00:00-04:00',
      UTC: '2026-06-01T08:00:00Z',
    };
    for (let round = 0; round < 2; round++) {
      for (const zone of round ? Object.keys(expected).reverse() : Object.keys(expected)) {
        expect(formatInstant(new Date(`2026-06-01T08:00:00.${round ? '999' : '000'}Z`), zone)).toBe(expected[zone]);
      }
    }
  });
});

describe('series helpers', () => {
  it('takes the calendar date in the zone of a date-time with offset', () => {
    expect(parseLocalDate('2026-06-01T23:30:00Z', BERLIN, 'f').toISODate()).toBe('2026-06-02');
    expect(parseLocalDate('2026-06-01', BERLIN, 'f').toISODate()).toBe('2026-06-01');
  });

  it('takes the wall-clock time of day in the zone', () => {
    expect(parseTimeOfDay('2026-06-01T09:15', BERLIN, 'f')).toEqual({ hour: 9, minute: 15, second: 0 });
    expect(parseTimeOfDay('2026-01-01T08:00:00Z', BERLIN, 'f')).toEqual({ hour: 9, minute: 0, second: 0 });
  });
});

describe('nowRoundedUp', () => {
  it('rounds up to the next full minute and keeps a full minute', () => {
    expect(nowRoundedUp(new Date('2026-06-01T08:00:00.001Z')).toISOString()).toBe('2026-06-01T08:01:00.000Z');
    expect(nowRoundedUp(new Date('2026-06-01T08:00:00.000Z')).toISOString()).toBe('2026-06-01T08:00:00.000Z');
  });
});
