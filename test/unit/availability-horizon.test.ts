/**
 * The horizon of a rule (DESIGN.md §7.14), pure: which dates a rule publishes on a day, and when
 * the horizon job is due for it next (midnight in the provider's zone).
 */
import { describe, expect, it } from 'vitest';
import { datesToPublish, horizonEnd, nextExtendAt } from '../../src/availability/publish.js';

const open = { valid_from: '2026-06-01', valid_until: null };

describe("a rule's horizon", () => {
  it('is today and the 399 days after it', () => {
    expect(horizonEnd('2026-06-01')).toBe('2027-07-05');
    expect(datesToPublish(open, '2026-06-01')).toEqual({ first: '2026-06-01', last: '2027-07-05' });
  });

  it('starts at validFrom, not before today, and ends at validUntil when that comes first', () => {
    expect(datesToPublish({ valid_from: '2026-05-01', valid_until: null }, '2026-06-01').first).toBe('2026-06-01');
    expect(datesToPublish({ valid_from: '2026-08-01', valid_until: '2026-08-31' }, '2026-06-01')).toEqual({
      first: '2026-08-01',
      last: '2026-08-31',
    });
    const none = datesToPublish({ valid_from: '2027-08-01', valid_until: null }, '2026-06-01');
    expect(none.first > none.last).toBe(true);
  });

  it('goes on after what is published, catching up the days missed', () => {
    expect(datesToPublish(open, '2026-06-05', '2027-07-05')).toEqual({ first: '2027-07-06', last: '2027-07-09' });
    expect(datesToPublish(open, '2026-06-01', '2027-07-05')).toEqual({ first: '2027-07-06', last: '2027-07-05' });
  });

  it("is due again at midnight in the provider's zone of the day it reaches the next date", () => {
    expect(nextExtendAt(open, '2027-07-05', 'Europe/Berlin')).toEqual(new Date('2026-06-01T22:00:00Z'));
    expect(nextExtendAt(open, '2027-07-05', 'America/New_York')).toEqual(new Date('2026-06-02T04:00:00Z'));
    // a rule starting beyond the horizon: the day the horizon reaches validFrom
    expect(nextExtendAt({ valid_from: '2027-09-01', valid_until: null }, '2027-07-05', 'UTC')).toEqual(
      new Date('2026-07-29T00:00:00Z'),
    );
  });

  it('is never due again once validUntil is published', () => {
    expect(
      nextExtendAt({ valid_from: '2026-06-01', valid_until: '2026-12-31' }, '2026-12-31', 'Europe/Berlin'),
    ).toBeNull();
  });
});
