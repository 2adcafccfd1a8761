import { describe, expect, it } from 'vitest';
import { pageLocale } from '../../src/http/htmlPage.js';
import { mailLocale } from '../../src/notifications/format.js';
import { calendarMethodFor } from '../../src/notifications/ics.js';
import { MAIL_TEMPLATES } from '../../src/notifications/templateNames.js';
import { backoffMs, DEFAULT_WORKER_OPTIONS } from '../../src/notifications/worker.js';

describe('mail retry policy', () => {
  it('waits 2^attempts seconds, capped at an hour', () => {
    expect([1, 2, 3, 10, 11, 12, 20].map((a) => backoffMs(a, DEFAULT_WORKER_OPTIONS) / 1000)).toEqual([
      2, 4, 8, 1024, 2048, 3600, 3600,
    ]);
  });

  it('keeps retrying for hours before it gives a row up', () => {
    let total = 0;
    for (let a = 1; a < DEFAULT_WORKER_OPTIONS.maxAttempts; a++) total += backoffMs(a, DEFAULT_WORKER_OPTIONS);
    expect(total / 3_600_000).toBeGreaterThan(3);
  });
});

describe('mail languages', () => {
  it('takes English for any en tag and German for everything else', () => {
    expect(['en', 'EN', 'en-GB', 'en_US'].map(mailLocale)).toEqual(['en', 'en', 'en', 'en']);
    expect(['de', 'de-AT', 'fr', '', null, undefined, 'eng'].map(mailLocale)).toEqual([
      'de',
      'de',
      'de',
      'de',
      'de',
      'de',
      'de',
    ]);
  });

  it('lets the cancel page follow ?lang=, then the booking, then the browser, then German', () => {
    expect(pageLocale('en', 'de', 'de-DE')).toBe('en');
    expect(pageLocale(undefined, 'en', 'de-DE')).toBe('en');
    expect(pageLocale('xx', null, 'en-US,en;q=0.9')).toBe('en');
    expect(pageLocale(undefined, 'fr', 'fr-FR')).toBe('de');
  });
});

describe('calendar parts', () => {
  it('invite on confirmed bookings and reminders, update on a move, cancel on every cancellation, else nothing', () => {
    const byMethod = (m: string | null, state?: string) =>
      MAIL_TEMPLATES.filter((t) => calendarMethodFor(t, state) === m).sort();
    expect(byMethod('REQUEST')).toEqual(['booking-confirmed', 'booking-reminder', 'participation-booked']);
    expect(byMethod('REQUEST', 'BOOKED')).toEqual([
      'booking-confirmed',
      'booking-reminder',
      'booking-rescheduled',
      'participation-booked',
    ]);
    expect(byMethod('REQUEST', 'REQUESTED')).toEqual(['booking-confirmed', 'booking-reminder', 'participation-booked']);
    expect(byMethod('CANCEL')).toEqual([
      'appointment-cancelled',
      'customer-removed',
      'participation-canceled',
      'resource-deleted-cancellation',
      'self-cancel-confirmation',
    ]);
  });
});
