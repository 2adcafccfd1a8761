import { describe, expect, it } from 'vitest';
import { PROVIDER_SIDE } from '../../src/notifications/compose.js';
import type { AppointmentMailPayload } from '../../src/notifications/payloads.js';
import { RenderError, renderMail } from '../../src/notifications/render.js';
import { MAIL_TEMPLATES } from '../../src/notifications/templateNames.js';
import type { AppointmentTemplate } from '../../src/notifications/templates/types.js';

const MAIL_FROM = 'Booking Service <no-reply@booking.local>';

function samplePayload(over: Partial<AppointmentMailPayload> = {}): AppointmentMailPayload {
  return {
    kind: 'appointment',
    appointment: {
      uuid: '11111111-1111-4111-8111-111111111111',
      reference: 'apt-1@crm',
      start: '2026-06-12T10:00:00+02:00',
      end: '2026-06-12T11:00:00+02:00',
      timeZone: 'Europe/Berlin',
      productName: 'Besichtigung',
      resourceName: 'Wohnung <Hauptstraße 1>',
      address: 'Hauptstraße 1, 10115 Berlin, DE',
    },
    provider: { name: 'Acme & Söhne', email: 'info@acme.example', phone: '+4930123' },
    contact: { name: 'Olga Owner', email: 'olga@acme.example', phone: '+4930999', mobile: null },
    participant: { name: 'Max Muster', email: 'max@example.com', mobile: '+49170111' },
    participation: { uuid: '22222222-2222-4222-8222-222222222222', reference: 'p-1@crm', state: 'BOOKED' },
    message: 'Bitte unten <b>klingeln</b>',
    cancelLink: 'https://book.example/cancel/abc.def?x=1&y=2',
    icsUid: '11111111-1111-4111-8111-111111111111.22222222-2222-4222-8222-222222222222@booking-service',
    sequence: 1780000000,
    ...over,
  };
}

const render = (template: string, locale: string, payload: unknown = samplePayload(), recipient = 'max@example.com') =>
  renderMail({ template, locale, recipient, payload }, { mailFrom: MAIL_FROM });

/** Text with the detail columns' alignment padding folded. */
const flat = (text: string) => text.replace(/ {2,}/g, ' ');

/** ICS content lines with their folding undone (RFC 5545 §3.1). */
const unfold = (ics: string) => ics.replace(/\r?\n[ \t]/g, '');

/** Subject per template and language, and the calendar method the consumer's mail carries. */
const EXPECTED: Record<AppointmentTemplate, { de: string; en: string; calendar: 'REQUEST' | 'CANCEL' | null }> = {
  'booking-confirmed': {
    de: 'Buchungsbestätigung: Besichtigung am 12. Juni 2026',
    en: 'Booking confirmed: Besichtigung on 12 June 2026',
    calendar: 'REQUEST',
  },
  'booking-notification': {
    de: 'Neue Buchung: Besichtigung am 12. Juni 2026 (Max Muster)',
    en: 'New booking: Besichtigung on 12 June 2026 (Max Muster)',
    calendar: null,
  },
  'booking-requested': {
    de: 'Anfrage erhalten: Besichtigung am 12. Juni 2026',
    en: 'Request received: Besichtigung on 12 June 2026',
    calendar: null,
  },
  'booking-request-to-confirm': {
    de: 'Bitte bestätigen: Anfrage für Besichtigung am 12. Juni 2026 (Max Muster)',
    en: 'Please confirm: request for Besichtigung on 12 June 2026 (Max Muster)',
    calendar: null,
  },
  'booking-declined': {
    de: 'Anfrage abgelehnt: Besichtigung am 12. Juni 2026',
    en: 'Request declined: Besichtigung on 12 June 2026',
    calendar: null,
  },
  'participation-booked': {
    de: 'Termin bestätigt: Besichtigung am 12. Juni 2026',
    en: 'Appointment confirmed: Besichtigung on 12 June 2026',
    calendar: 'REQUEST',
  },
  'participation-canceled': {
    de: 'Termin abgesagt: Besichtigung am 12. Juni 2026',
    en: 'Appointment cancelled: Besichtigung on 12 June 2026',
    calendar: 'CANCEL',
  },
  'appointment-cancelled': {
    de: 'Absage: Besichtigung am 12. Juni 2026',
    en: 'Cancelled: Besichtigung on 12 June 2026',
    calendar: 'CANCEL',
  },
  'resource-deleted-cancellation': {
    de: 'Termin entfällt: Besichtigung am 12. Juni 2026',
    en: 'Appointment cancelled: Besichtigung on 12 June 2026',
    calendar: 'CANCEL',
  },
  'customer-removed': {
    de: 'Termin storniert: Besichtigung am 12. Juni 2026',
    en: 'Booking cancelled: Besichtigung on 12 June 2026',
    calendar: 'CANCEL',
  },
  'self-cancel-confirmation': {
    de: 'Stornierung bestätigt: Besichtigung am 12. Juni 2026',
    en: 'Cancellation confirmed: Besichtigung on 12 June 2026',
    calendar: 'CANCEL',
  },
  'self-cancel-notification': {
    de: 'Stornierung: Besichtigung am 12. Juni 2026 (Max Muster)',
    en: 'Cancellation: Besichtigung on 12 June 2026 (Max Muster)',
    calendar: null,
  },
  'booking-rescheduled': {
    de: 'Termin verschoben: Besichtigung am 12. Juni 2026',
    en: 'Appointment moved: Besichtigung on 12 June 2026',
    calendar: 'REQUEST',
  },
  'booking-rescheduled-notification': {
    de: 'Termin verschoben: Besichtigung am 12. Juni 2026 (Max Muster)',
    en: 'Appointment moved: Besichtigung on 12 June 2026 (Max Muster)',
    calendar: null,
  },
  'booking-reminder': {
    de: 'Erinnerung: Besichtigung am 12. Juni 2026',
    en: 'Reminder: Besichtigung on 12 June 2026',
    calendar: 'REQUEST',
  },
};

describe('mail templates', () => {
  it('cover every template name with an expectation here', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(
      MAIL_TEMPLATES.filter((t) => t !== 'user-email-verification' && t !== 'my-bookings').sort(),
    );
  });

  for (const [template, expected] of Object.entries(EXPECTED) as [
    AppointmentTemplate,
    (typeof EXPECTED)[AppointmentTemplate],
  ][]) {
    const providerSide = PROVIDER_SIDE.has(template);
    it(`${template} has a German subject, text and HTML with the time in the provider's zone`, () => {
      const mail = render(template, 'de');
      expect(mail.subject).toBe(expected.de);
      expect(flat(mail.text)).toContain('Wann: Freitag, 12. Juni 2026, 10:00–11:00 Uhr (Europe/Berlin, MESZ)');
      expect(mail.text).toContain('Hauptstraße 1, 10115 Berlin, DE');
      expect(mail.html).toContain('<html lang="de">');
      expect(mail.html).toContain('Freitag, 12. Juni 2026, 10:00–11:00 Uhr (Europe/Berlin, MESZ)');
      expect(mail.text).toContain(providerSide ? 'Hallo Olga Owner,' : 'Hallo Max Muster,');
      expect(mail.text).toContain(
        providerSide
          ? 'Nachricht des Kunden:\n> Bitte unten <b>klingeln</b>'
          : 'Nachricht von Acme & Söhne:\n> Bitte unten <b>klingeln</b>',
      );
      if (providerSide) expect(mail.text).toMatch(/Kunde: +Max Muster\n +max@example.com\n +\+49170111/);
      else expect(mail.text).toMatch(/Kontakt: +Olga Owner\n +olga@acme.example/);
    });

    it(`${template} has an English subject and text`, () => {
      const mail = render(template, 'en');
      expect(mail.subject).toBe(expected.en);
      expect(flat(mail.text)).toContain('When: Friday, 12 June 2026, 10:00–11:00 (Europe/Berlin, CEST)');
      expect(mail.text).toContain(providerSide ? 'Hello Olga Owner,' : 'Hello Max Muster,');
      expect(mail.html).toContain('<html lang="en">');
    });

    it(`${template} ${expected.calendar ? `has an ICS, METHOD:${expected.calendar}` : 'has no calendar part'}`, () => {
      const mail = render(template, 'de');
      if (!expected.calendar) {
        expect(mail.calendar).toBeNull();
        return;
      }
      expect(mail.calendar?.method).toBe(expected.calendar);
      const ics = unfold(mail.calendar!.content);
      expect(ics).toContain(`METHOD:${expected.calendar}`);
      expect(ics).toContain(
        'UID:11111111-1111-4111-8111-111111111111.22222222-2222-4222-8222-222222222222@booking-service',
      );
      // the payload's number as it is: compose.ts gives every mail with a calendar part a new one
      expect(ics).toContain('SEQUENCE:1780000000');
      expect(ics).toContain('DTSTART:20260612T080000Z');
      expect(ics).toContain('DTEND:20260612T090000Z');
      expect(ics).toContain(`STATUS:${expected.calendar === 'REQUEST' ? 'CONFIRMED' : 'CANCELLED'}`);
      expect(ics).toMatch(/ORGANIZER;CN="?Olga Owner"?:MAILTO:olga@acme.example/i);
      expect(ics).toMatch(/ATTENDEE;.*:mailto:max@example.com/i);
    });
  }

  it('names the previous time in a rescheduled mail, and gives a moved request no calendar entry', () => {
    const previous = { start: '2026-06-11T09:00:00+02:00', end: '2026-06-11T10:00:00+02:00' };
    const mail = render('booking-rescheduled', 'en', samplePayload({ previous }));
    expect(flat(mail.text)).toContain('Previously: Thursday, 11 June 2026, 09:00–10:00 (Europe/Berlin, CEST)');
    expect(mail.text).toContain('(previously: Thursday, 11 June 2026, 09:00–10:00 (Europe/Berlin, CEST))');
    expect(flat(render('booking-rescheduled-notification', 'de', samplePayload({ previous })).text)).toContain(
      'Bisher: Donnerstag, 11. Juni 2026, 09:00–10:00 Uhr',
    );
    const request = samplePayload({
      previous,
      participation: { uuid: '22222222-2222-4222-8222-222222222222', reference: 'p-1@crm', state: 'REQUESTED' },
    });
    expect(render('booking-rescheduled', 'de', request).calendar).toBeNull();
  });

  it('escapes everything interpolated into the HTML', () => {
    const mail = render('booking-confirmed', 'de');
    expect(mail.html).toContain('Wohnung &lt;Hauptstraße 1&gt;');
    expect(mail.html).toContain('Bitte unten &lt;b&gt;klingeln&lt;/b&gt;');
    expect(mail.html).toContain('Nachricht von Acme &amp; Söhne');
    expect(mail.html).toContain('href="https://book.example/cancel/abc.def?x=1&amp;y=2"');
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).not.toContain('<Hauptstraße');
  });

  it('shows the cancel link where the payload has one and none where it has not', () => {
    expect(render('booking-confirmed', 'de').text).toContain(
      'stornieren Sie ihn bitte hier:\nhttps://book.example/cancel/abc.def?x=1&y=2',
    );
    expect(render('booking-confirmed', 'en').text).toContain(
      'please cancel the appointment here:\nhttps://book.example/cancel/abc.def?x=1&y=2',
    );
    const withoutLink = render('appointment-cancelled', 'de', samplePayload({ cancelLink: null }));
    expect(withoutLink.text).not.toContain('/cancel/');
    expect(withoutLink.html).not.toContain('/cancel/');
  });

  it("shows the provider's decision link in the request to confirm, in both languages", () => {
    const payload = samplePayload({ cancelLink: null, decisionLink: 'https://book.example/requests/abc.def' });
    const de = render('booking-request-to-confirm', 'de', payload, 'olga@acme.example');
    expect(de.text).toContain(
      'Bestätigen Sie die Anfrage oder sagen Sie sie ab, ohne Anmeldung:\nhttps://book.example/requests/abc.def',
    );
    expect(de.html).toContain('href="https://book.example/requests/abc.def"');
    expect(de.html).toContain('Anfrage ansehen und entscheiden');
    const en = render('booking-request-to-confirm', 'en', payload, 'olga@acme.example');
    expect(en.text).toContain(
      'Confirm or decline the request here, no login needed:\nhttps://book.example/requests/abc.def',
    );
    expect(en.html).toContain('Review and decide');
  });

  it('leaves the message block out when there is no message', () => {
    const mail = render('appointment-cancelled', 'en', samplePayload({ message: null }));
    expect(mail.text).not.toContain('Message from');
    expect(mail.html).not.toContain('<blockquote');
  });

  it('writes an unknown or regional locale in German, en-GB in English', () => {
    expect(render('booking-confirmed', 'fr').subject).toBe(EXPECTED['booking-confirmed'].de);
    expect(render('booking-confirmed', '').subject).toBe(EXPECTED['booking-confirmed'].de);
    expect(render('booking-confirmed', 'en_GB').subject).toBe(EXPECTED['booking-confirmed'].en);
    expect(render('booking-confirmed', 'de-AT').subject).toBe(EXPECTED['booking-confirmed'].de);
  });

  it("shows the time in the provider's zone, whatever offset the payload carries", () => {
    const payload = samplePayload();
    payload.appointment = {
      ...payload.appointment,
      start: '2026-06-12T14:00:00Z',
      end: '2026-06-12T15:30:00Z',
      timeZone: 'America/New_York',
    };
    const mail = render('booking-confirmed', 'en', payload);
    expect(mail.text).toContain('Friday, 12 June 2026, 10:00–11:30 (America/New_York, GMT-4)');
    expect(mail.calendar!.content).toContain('DTSTART:20260612T140000Z');
  });

  it('names both days when an appointment runs past midnight', () => {
    const payload = samplePayload();
    payload.appointment = {
      ...payload.appointment,
      start: '2026-06-12T22:00:00+02:00',
      end: '2026-06-13T01:00:00+02:00',
    };
    expect(render('booking-confirmed', 'de', payload).text).toContain(
      'Freitag, 12. Juni 2026, 22:00 Uhr – Samstag, 13. Juni 2026, 01:00 Uhr (Europe/Berlin, MESZ)',
    );
  });

  it('falls back to the resource name, a generic greeting and the provider as organizer', () => {
    const payload = samplePayload({
      participant: { name: null, email: 'max@example.com', mobile: null },
      contact: { name: null, email: null, phone: null, mobile: null },
    });
    payload.appointment = { ...payload.appointment, productName: null };
    const mail = render('booking-confirmed', 'de', payload);
    expect(mail.subject).toBe('Buchungsbestätigung: Wohnung <Hauptstraße 1> am 12. Juni 2026');
    expect(mail.text).toContain('Guten Tag,');
    expect(mail.calendar!.content).toMatch(/ORGANIZER;CN="?Acme & Söhne"?:MAILTO:info@acme.example/i);
  });

  it('uses MAIL_FROM as organizer when the provider side has no address at all', () => {
    const payload = samplePayload({
      contact: { name: null, email: null, phone: null, mobile: null },
      provider: { name: 'Acme', email: null, phone: null },
    });
    expect(render('self-cancel-confirmation', 'de', payload).calendar!.content).toMatch(
      /MAILTO:no-reply@booking.local/i,
    );
  });

  it('renders the email verification in both languages without a calendar part', () => {
    const payload = { firstName: 'Anna', lastName: 'Muster', email: 'anna@example.com', reference: 'u1@crm' };
    const deMail = render('user-email-verification', 'de', payload, 'anna@example.com');
    expect(deMail.subject).toBe('Bitte bestätigen Sie Ihre E-Mail-Adresse');
    expect(deMail.text).toContain('Hallo Anna Muster,');
    expect(deMail.text).toContain(
      'Ihre E-Mail-Adresse anna@example.com wurde mit einem Benutzerkonto verknüpft (Referenz u1@crm).',
    );
    expect(deMail.calendar).toBeNull();
    const enMail = render('user-email-verification', 'en', payload, 'anna@example.com');
    expect(enMail.subject).toBe('Please confirm your email address');
    expect(enMail.text).toContain(
      'Your email address anna@example.com has been linked to a user account (reference u1@crm).',
    );
  });

  it('renders the my-bookings link in both languages without a calendar part', () => {
    const payload = {
      kind: 'my-bookings',
      link: 'https://book.example/my-bookings/abc.1.x',
      providerName: 'Acme & Söhne',
      validHours: 24,
      requestedAt: '2026-06-01T08:00:00.000Z',
    };
    const deMail = render('my-bookings', 'de', payload, 'anna@example.com');
    expect(deMail.subject).toBe('Ihre Buchungen bei Acme & Söhne');
    expect(flat(deMail.text)).toContain('Der Link ist 24 Stunden gültig.');
    expect(deMail.text).toContain('https://book.example/my-bookings/abc.1.x');
    expect(deMail.html).toContain('href="https://book.example/my-bookings/abc.1.x"');
    expect(deMail.html).toContain('Acme &amp; Söhne');
    expect(deMail.calendar).toBeNull();
    const enMail = render('my-bookings', 'en', payload, 'anna@example.com');
    expect(enMail.subject).toBe('Your bookings at Acme & Söhne');
    expect(flat(enMail.text)).toContain('The link is valid for 24 hours.');
    expect(() => render('my-bookings', 'de', samplePayload())).toThrow(RenderError);
  });

  it('refuses an unknown template or a payload that does not fit, as a permanent error', () => {
    expect(() => render('no-such-template', 'de')).toThrow(RenderError);
    expect(() => render('booking-confirmed', 'de', { email: 'x@example.com', reference: 'r' })).toThrow(RenderError);
    expect(() => render('user-email-verification', 'de', samplePayload())).toThrow(RenderError);
  });

  it('keeps a subject on one line whatever a product name contains', () => {
    const payload = samplePayload();
    payload.appointment = { ...payload.appointment, productName: 'Besichtigung\r\nBcc: evil@example.com' };
    expect(render('booking-confirmed', 'de', payload).subject).toBe(
      'Buchungsbestätigung: Besichtigung Bcc: evil@example.com am 12. Juni 2026',
    );
  });
});
