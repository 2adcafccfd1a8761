import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCancelToken } from '../../src/booking/cancelToken.js';
import { assertPlaceFree, liveParticipationCount, lockAppointment } from '../../src/scheduling/capacity.js';
import { newPartner, startTestApp, type TestApp } from '../helpers/app.js';
import { addAppointment, addParticipant, outboxOf, participationState, setupOffering } from '../helpers/mailFixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the test clock stands at 2026-06-01T08:00Z
  t = await startTestApp({ publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

const FUTURE = { start: '2026-06-12T08:00:00Z', end: '2026-06-12T09:00:00Z' };

async function booked(options: Parameters<typeof addParticipant>[3] = {}, when = FUTURE, timeZone?: string) {
  const p = await newPartner(t);
  const offering = await setupOffering(t, p, timeZone ? { timeZone } : {});
  const appointmentId = await addAppointment(t, offering, when);
  const participant = await addParticipant(t, offering, appointmentId, options);
  return { p, offering, appointmentId, participant };
}

const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });
const post = (path: string, headers: Record<string, string> = {}, payload?: string) =>
  t.app.inject({ method: 'POST', url: path, headers, ...(payload === undefined ? {} : { payload }) });
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('GET /cancel/{token}', () => {
  it("shows the appointment in the provider's zone with a cancel form, and changes nothing", async () => {
    const { offering, participant } = await booked();
    const res = await get(participant.cancelPath);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<html lang="de">');
    expect(res.body).toContain('Termin stornieren');
    expect(res.body).toContain('Freitag, 12. Juni 2026, 10:00–11:00 Uhr (Europe/Berlin, MESZ)');
    expect(res.body).toContain('Besichtigung');
    expect(res.body).toContain('Wohnung Hauptstraße, Hauptstraße 1, 10115 Berlin, DE');
    expect(res.body).toContain('Acme Estates');
    expect(res.body).toMatch(/<form method="post"><button type="submit">Termin verbindlich stornieren<\/button><\/form>/);
    expect(await participationState(t, participant.participationId)).toBe('BOOKED');
    expect(await outboxOf(t, offering.crmId)).toEqual([]);
  });

  it('speaks the booking language, and ?lang= overrides it', async () => {
    const { participant } = await booked({ locale: 'en' });
    const en = await get(participant.cancelPath);
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain('Friday, 12 June 2026, 10:00–11:00 (Europe/Berlin, CEST)');
    expect(en.body).toContain('Cancel the appointment');
    const de = await get(`${participant.cancelPath}?lang=de`);
    expect(de.body).toContain('Termin verbindlich stornieren');
  });

  it("falls back to the customer's language when the participation has none", async () => {
    const { participant } = await booked({ locale: null, language: 'en' });
    expect((await get(participant.cancelPath)).body).toContain('Cancel the appointment');
  });

  it("names the provider's own zone when it is not Berlin", async () => {
    const { participant } = await booked({}, { start: '2026-06-12T14:00:00Z', end: '2026-06-12T15:00:00Z' }, 'America/New_York');
    expect((await get(`${participant.cancelPath}?lang=en`)).body).toContain('Friday, 12 June 2026, 10:00–11:00 (America/New_York, GMT-4)');
  });

  it('is not cached, not indexed and does not leak the token as a referrer', async () => {
    const { participant } = await booked();
    const res = await get(participant.cancelPath);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });
});

describe('POST /cancel/{token}', () => {
  it('cancels: CANCELED, the place is free again, and both mails are in the outbox', async () => {
    const { offering, appointmentId, participant } = await booked({ locale: 'en' });
    const res = await post(participant.cancelPath, form, '');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Appointment cancelled');
    expect(res.body).not.toContain('<form');
    expect(await participationState(t, participant.participationId)).toBe('CANCELED');
    expect(await liveParticipationCount(t.db, appointmentId, t.clock.now())).toBe(0);
    // the appointment had capacity 1: the next consumer gets the place
    await t.db.transaction(async (tx) => assertPlaceFree(tx, (await lockAppointment(tx, appointmentId))!, t.clock.now()));
    const mails = await outboxOf(t, offering.crmId);
    expect(mails.map((m) => [m.template, m.recipient, m.locale])).toEqual([
      ['self-cancel-confirmation', participant.email, 'en'],
      ['self-cancel-notification', offering.providerEmail, 'de'],
    ]);
    expect(mails[0].payload).toMatchObject({ participation: { state: 'CANCELED' }, appointment: { productName: 'Besichtigung' } });
  });

  it('accepts an empty body without a content type, and cancels a REQUESTED participation', async () => {
    const { participant } = await booked({ state: 'REQUESTED' });
    const res = await post(participant.cancelPath);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Termin storniert');
    expect(await participationState(t, participant.participationId)).toBe('CANCELED');
  });

  it('says "already cancelled" the second time and changes nothing', async () => {
    const { offering, participant } = await booked();
    expect((await post(participant.cancelPath, form, '')).statusCode).toBe(200);
    const before = await outboxOf(t, offering.crmId);
    const again = await post(participant.cancelPath, form, '');
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('Bereits storniert');
    const page = await get(participant.cancelPath);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Dieser Termin ist bereits storniert.');
    expect(page.body).not.toContain('<form');
    expect(await outboxOf(t, offering.crmId)).toEqual(before);
  });

  it('cancels once when the link is used twice at the same moment', async () => {
    const { offering, participant } = await booked();
    const answers = await Promise.all([post(participant.cancelPath, form, ''), post(participant.cancelPath, form, '')]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(answers.filter((a) => a.body.includes('Bereits storniert'))).toHaveLength(1);
    expect((await outboxOf(t, offering.crmId)).map((m) => m.template).sort()).toEqual(['self-cancel-confirmation', 'self-cancel-notification']);
  });
});

describe('forged, altered and late links', () => {
  it('answers 404 to a forged or altered token, on GET and POST, and changes nothing', async () => {
    const { offering, participant } = await booked();
    const other = await booked();
    const token = participant.cancelPath.split('/').pop()!;
    const [id, mac] = token.split('.');
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const forged = [
      `${id}.${flipped}`, // altered signature
      `${other.participant.participationId}.${mac}`, // someone else's participation with this signature
      signCancelToken('not-the-secret', id), // signed with another secret
      `${id}`,
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
    expect(await participationState(t, participant.participationId)).toBe('BOOKED');
    expect(await participationState(t, other.participant.participationId)).toBe('BOOKED');
    expect(await outboxOf(t, offering.crmId)).toEqual([]);
    expect(await outboxOf(t, other.offering.crmId)).toEqual([]);
  });

  it('answers a client asking for JSON with the documented error body', async () => {
    const res = await post('/cancel/nonsense', { accept: 'application/json' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ 'api-info': { version: '1' }, errors: [{ errorCode: 'NOT_FOUND', message: 'the cancel link is not valid' }] });
  });

  it('answers 404 for a participation deleted without notice', async () => {
    const { participant } = await booked({ state: 'DELETED' });
    expect((await get(participant.cancelPath)).statusCode).toBe(404);
    expect((await post(participant.cancelPath, form, '')).statusCode).toBe(404);
    expect(await participationState(t, participant.participationId)).toBe('DELETED');
  });

  it('says it is too late (409) once the appointment has started, and changes nothing', async () => {
    // started an hour before the test clock and still running
    const { offering, participant } = await booked({}, { start: '2026-06-01T07:00:00Z', end: '2026-06-01T09:00:00Z' });
    const page = await get(participant.cancelPath);
    expect(page.statusCode).toBe(409);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Stornierung nicht mehr möglich');
    expect(page.body).toContain('Bitte wenden Sie sich direkt an Acme Estates.');
    expect(page.body).not.toContain('<form');
    const res = await post(participant.cancelPath, form, '');
    expect(res.statusCode).toBe(409);
    const json = await post(participant.cancelPath, { accept: 'application/json' });
    expect(json.statusCode).toBe(409);
    expect(json.json().errors[0].errorCode).toBe('TOO_LATE');
    expect(await participationState(t, participant.participationId)).toBe('BOOKED');
    expect(await outboxOf(t, offering.crmId)).toEqual([]);
  });
});
