import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCancelToken } from '../../src/notifications/cancelToken.js';
import { buildApp } from '../../src/app.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  setupBooking,
  upcoming,
} from '../helpers/bookingFixtures.js';
import { bookedParticipant, outboxOf, participationState } from '../helpers/mailFixtures.js';
import { createCustomer, participate } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the test clock stands at 2026-06-01T08:00Z
  t = await startTestApp({ publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

const booked = (options: Parameters<typeof bookedParticipant>[1] = {}) => bookedParticipant(t, options);

const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });
const post = (path: string, headers: Record<string, string> = {}, payload?: string) =>
  t.app.inject({ method: 'POST', url: path, headers, ...(payload === undefined ? {} : { payload }) });
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('GET /cancel/{token}', () => {
  it("shows the appointment in the provider's zone with a cancel form, and changes nothing", async () => {
    const b = await booked();
    const res = await get(b.cancelPath);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<html lang="de">');
    expect(res.body).toContain('Termin stornieren');
    expect(res.body).toContain('Freitag, 12. Juni 2026, 10:00–11:00 Uhr (Europe/Berlin, MESZ)');
    expect(res.body).toContain('Viewing');
    expect(res.body).toContain('Wohnung Hauptstraße, Hauptstraße 1, 10115 Berlin, DE');
    expect(res.body).toContain('Acme Estates');
    expect(res.body).toMatch(
      /<form method="post"><button type="submit">Termin verbindlich stornieren<\/button><\/form>/,
    );
    expect(await participationState(t, b.participationId)).toBe('BOOKED');
    expect(await outboxOf(t, b.s.p.crmId)).toEqual([]);
  });

  it("speaks the customer's language, and ?lang= overrides it", async () => {
    const b = await booked({ language: 'en' });
    const en = await get(b.cancelPath);
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain('Friday, 12 June 2026, 10:00–11:00 (Europe/Berlin, CEST)');
    expect(en.body).toContain('Cancel the appointment');
    const de = await get(`${b.cancelPath}?lang=de`);
    expect(de.body).toContain('Termin verbindlich stornieren');
  });

  it('speaks the locale the consumer booked with (A3)', async () => {
    const offer = await setupBooking(t);
    await createTimeslots(offer, [{}]);
    const [slot] = flatten(await upcoming(t, offer.resource.reference));
    const res = await book(
      t,
      offer.resource.reference,
      bookBodyFor(slot, offer.product.uuid, undefined, consumer({ locale: 'en' })),
    );
    expect(res.statusCode, res.body).toBe(201);
    const page = await get(new URL(res.json().createdAppointment.cancelLink).pathname);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Cancel the appointment');
  });

  it("names the provider's own zone when it is not Berlin", async () => {
    const b = await booked({ timeZone: 'America/New_York' });
    expect((await get(`${b.cancelPath}?lang=en`)).body).toContain(
      'Friday, 12 June 2026, 10:00–11:00 (America/New_York, GMT-4)',
    );
  });

  it('is not cached, not indexed and does not leak the token as a referrer', async () => {
    const b = await booked();
    const res = await get(b.cancelPath);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });
});

describe('POST /cancel/{token}', () => {
  it('cancels: CANCELED, the place is free again, and both mails are in the outbox', async () => {
    const b = await booked({ language: 'en' });
    const next = await createCustomer(b.s);
    const join = () =>
      participate(
        b.s,
        { appointmentReference: b.appointmentReference, customerReference: next.customerReference },
        { sendMails: 'false' },
      );
    expect((await join()).statusCode).toBe(409); // capacity 1, taken
    const res = await post(b.cancelPath, form, '');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Appointment cancelled');
    expect(res.body).not.toContain('<form');
    expect(await participationState(t, b.participationId)).toBe('CANCELED');
    const mails = await outboxOf(t, b.s.p.crmId);
    expect(mails.map((m) => [m.template, m.recipient, m.locale])).toEqual([
      ['self-cancel-confirmation', b.email, 'en'],
      ['self-cancel-notification', b.providerEmail, 'de'],
    ]);
    expect(mails[0].payload).toMatchObject({
      participation: { state: 'CANCELED' },
      appointment: { productName: 'Viewing' },
    });
    expect((await join()).statusCode).toBe(201); // the place is free again
  });

  it('accepts an empty body without a content type, and cancels a REQUESTED participation', async () => {
    const b = await booked({ state: 'REQUESTED' });
    const res = await post(b.cancelPath);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Termin storniert');
    expect(await participationState(t, b.participationId)).toBe('CANCELED');
  });

  it('says "already cancelled" the second time and changes nothing', async () => {
    const b = await booked();
    expect((await post(b.cancelPath, form, '')).statusCode).toBe(200);
    const before = await outboxOf(t, b.s.p.crmId);
    const again = await post(b.cancelPath, form, '');
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('Bereits storniert');
    const page = await get(b.cancelPath);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Dieser Termin ist bereits storniert.');
    expect(page.body).not.toContain('<form');
    expect(await outboxOf(t, b.s.p.crmId)).toEqual(before);
  });

  it('cancels once when the link is used twice at the same moment', async () => {
    const b = await booked();
    const answers = await Promise.all([post(b.cancelPath, form, ''), post(b.cancelPath, form, '')]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(answers.filter((a) => a.body.includes('Bereits storniert'))).toHaveLength(1);
    expect((await outboxOf(t, b.s.p.crmId)).map((m) => m.template).sort()).toEqual([
      'self-cancel-confirmation',
      'self-cancel-notification',
    ]);
  });
});

describe('forged, altered and late links', () => {
  it('answers 404 to a forged or altered token, on GET and POST, and changes nothing', async () => {
    const b = await booked();
    const other = await booked();
    const token = b.cancelPath.split('/').pop()!;
    const [id, mac] = token.split('.');
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const forged = [
      `${id}.${flipped}`, // altered signature
      `${other.participationId}.${mac}`, // someone else's participation with this signature
      signCancelToken('not-the-secret', id), // signed with another secret
      id,
      'nonsense',
      `${token}.extra`,
    ];
    for (const bad of forged) {
      for (const res of [await get(`/cancel/${bad}`), await post(`/cancel/${bad}`, form, '')]) {
        expect(res.statusCode, bad).toBe(404);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.body).toContain('Link ungültig');
      }
    }
    expect(await participationState(t, b.participationId)).toBe('BOOKED');
    expect(await participationState(t, other.participationId)).toBe('BOOKED');
    expect(await outboxOf(t, b.s.p.crmId)).toEqual([]);
    expect(await outboxOf(t, other.s.p.crmId)).toEqual([]);
  });

  it('answers a client asking for JSON with the documented error body', async () => {
    const res = await post('/cancel/nonsense', { accept: 'application/json' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      errors: [{ errorCode: 'NOT_FOUND', message: 'the cancel link is not valid' }],
    });
  });

  it('answers 404 for a participation deleted without notice', async () => {
    const b = await booked({ state: 'DELETED' });
    expect((await get(b.cancelPath)).statusCode).toBe(404);
    expect((await post(b.cancelPath, form, '')).statusCode).toBe(404);
    expect(await participationState(t, b.participationId)).toBe('DELETED');
  });

  it('says it is too late (409) once the appointment has started, and changes nothing', async () => {
    // 09:00-11:00 Berlin on the test clock's day: started an hour ago (the clock says 10:00 Berlin)
    const b = await booked({ start: '2026-06-01T09:00', end: '2026-06-01T11:00' });
    const page = await get(b.cancelPath);
    expect(page.statusCode).toBe(409);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Stornierung nicht mehr möglich');
    expect(page.body).toContain('Bitte wenden Sie sich direkt an Acme Estates.');
    expect(page.body).not.toContain('<form');
    expect((await post(b.cancelPath, form, '')).statusCode).toBe(409);
    const json = await post(b.cancelPath, { accept: 'application/json' });
    expect(json.statusCode).toBe(409);
    expect(json.json().errors[0].errorCode).toBe('TOO_LATE');
    expect(await participationState(t, b.participationId)).toBe('BOOKED');
    expect(await outboxOf(t, b.s.p.crmId)).toEqual([]);
  });

  it('still cancels a minute before the start', async () => {
    const b = await booked({ start: '2026-06-01T10:01', end: '2026-06-01T11:00' });
    expect((await post(b.cancelPath, form, '')).statusCode).toBe(200);
    expect(await participationState(t, b.participationId)).toBe('CANCELED');
  });
});

describe('the generated link key (no CANCEL_LINK_SECRET)', () => {
  it('is settled at start: stored once, signing every link, shared by every instance on the database', async () => {
    const [stored] = await t.db.query<{ value: string }>("SELECT value FROM settings WHERE key = 'cancel_link_secret'");
    expect(stored.value).toMatch(/^[0-9a-f]{64}$/);
    const b = await booked();
    const token = b.cancelPath.split('/').pop()!;
    expect(token).toBe(signCancelToken(stored.value, b.participationId));
    // another instance started on the same database (a config of its
    // own, no key in it) reads the stored key and honours the link
    const config = { ...t.config, cancelLinkSecret: undefined };
    const second = await buildApp({ config, db: t.db, clock: t.clock, logger: false });
    expect(config.cancelLinkSecret).toBe(stored.value);
    try {
      expect((await second.inject({ method: 'GET', url: b.cancelPath })).statusCode).toBe(200);
    } finally {
      await second.close();
    }
  });
});
