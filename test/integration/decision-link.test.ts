/**
 * The provider's decision link (docs/provider-links.md): from the request mail received over SMTP to the
 * consumer's confirmation or decline mail, the 409 and 404 pages, and races with the consumer's
 * own cancel link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCancelToken } from '../../src/notifications/cancelToken.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { outboxOf, participationState } from '../helpers/mailFixtures.js';
import { SmtpSink, type ReceivedMail } from '../helpers/smtpSink.js';

let sink: SmtpSink;
let t: TestApp;
beforeAll(async () => {
  sink = await SmtpSink.start();
  // the test clock stands at 2026-06-01T08:00Z; the slot below lies after it
  t = await startTestApp({ smtpUrl: sink.url, mailPollMs: 50, publicBaseUrl: 'https://book.example' }, undefined, {
    jobs: true,
  });
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });
const post = (path: string, payload?: string, headers: Record<string, string> = form) =>
  t.app.inject({ method: 'POST', url: path, headers, ...(payload === undefined ? {} : { payload }) });

async function mailTo(address: string, match: (m: ReceivedMail) => boolean, timeoutMs = 25_000): Promise<ReceivedMail> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = sink.to(address).find(match);
    if (found) return found;
    if (Date.now() > until)
      throw new Error(
        `no matching mail to ${address}; got: ${sink
          .to(address)
          .map((m) => m.subject)
          .join(' | ')}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Requested {
  b: Booking;
  who: ReturnType<typeof consumer>;
  participationId: string;
  cancelPath: string;
  /** path of the decision link, read from the request mail's outbox row */
  decisionPath: string;
  providerEmail: string;
}

/** A consumer's request through the public flow on a resource whose public channel is REQUESTED. */
async function requested(
  who = consumer({ firstname: 'Jane', lastname: 'Doe', locale: 'en', message: 'Ground floor, <please>' }),
): Promise<Requested> {
  const b = await setupBooking(t, {
    product: { name: 'Viewing' },
    resource: { publicName: 'Flat 12', channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } },
  });
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00', raster: 60 }]);
  const [slot] = flatten(await upcoming(t, b.resource.reference));
  const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who));
  expect(res.statusCode, res.body).toBe(201);
  const mails = await outboxOf(t, b.p.crmId);
  const request = mails.find((m) => m.template === 'booking-request-to-confirm')!;
  const payload = request.payload as { decisionLink: string; participation: { uuid: string } };
  return {
    b,
    who,
    participationId: payload.participation.uuid,
    cancelPath: new URL(res.json().createdAppointment.cancelLink).pathname,
    decisionPath: new URL(payload.decisionLink).pathname,
    providerEmail: request.recipient,
  };
}

const templates = async (r: Requested) => (await outboxOf(t, r.b.p.crmId)).map((m) => m.template).sort();

describe('the decision link in the request mail', () => {
  it('reaches the provider side only; its page shows who asked what and when, the message, two buttons', async () => {
    const r = await requested();
    const request = await mailTo(r.providerEmail, (m) => m.subject.startsWith('Bitte bestätigen'));
    const link = /https:\/\/book\.example\/requests\/\S+/.exec(request.text!)?.[0];
    expect(link).toBe(`https://book.example${r.decisionPath}`);
    expect(request.text).toContain('Bestätigen Sie die Anfrage oder sagen Sie sie ab, ohne Anmeldung:');
    expect(request.html).toContain(`href="${link}"`);
    const consumerMail = await mailTo(r.who.email, (m) => m.subject.startsWith('Request received'));
    expect(consumerMail.raw).not.toContain('/requests/');
    expect(r.decisionPath.split('/').pop()).not.toBe(r.cancelPath.split('/').pop());

    const page = await get(new URL(link!).pathname);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain('<html lang="de">');
    expect(page.body).toContain('Buchungsanfrage');
    expect(page.body).toContain('Jane Doe möchte diesen Termin buchen.');
    expect(page.body).toContain('Dienstag, 2. Juni 2026, 09:00–10:00 Uhr (Europe/Berlin, MESZ)');
    expect(page.body).toContain('Viewing');
    expect(page.body).toContain('Flat 12');
    expect(page.body).toContain(r.who.email);
    expect(page.body).toContain('Ground floor, &lt;please&gt;');
    expect(page.body).toContain('<input type="hidden" name="decision" value="confirm">');
    expect(page.body).toContain('<input type="hidden" name="decision" value="decline">');
    expect(page.body).toMatch(/<label for="reason">Grund der Ablehnung.*<\/label><textarea id="reason" name="message"/);
    expect(page.body).not.toContain('<script');
    expect((await get(`${r.decisionPath}?lang=en`)).body).toContain('Jane Doe would like to book this appointment.');
    expect(await participationState(t, r.participationId)).toBe('REQUESTED');
  });

  it('confirm: BOOKED, and the consumer gets the booking confirmation with an invite and the cancel link', async () => {
    const r = await requested();
    const res = await post(r.decisionPath, 'decision=confirm');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Anfrage bestätigt');
    expect(res.body).not.toContain('<form');
    expect(await participationState(t, r.participationId)).toBe('BOOKED');
    const confirmed = await mailTo(r.who.email, (m) => m.subject.startsWith('Booking confirmed'));
    expect(confirmed.subject).toBe('Booking confirmed: Viewing on 2 June 2026');
    expect(confirmed.calendar?.method).toBe('REQUEST');
    expect(confirmed.calendar!.content).toContain('DTSTART:20260602T070000Z');
    expect(confirmed.text).toContain(`https://book.example${r.cancelPath}`);
    expect(confirmed.raw).not.toContain('/requests/');
  });

  it("decline with a reason: CANCELED, the consumer's mail has the reason, and the place is free again", async () => {
    const r = await requested();
    const res = await post(
      `${r.decisionPath}?lang=en`,
      `decision=decline&message=${encodeURIComponent('Already let, sorry.\nTry flat 14.')}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Request declined');
    expect(await participationState(t, r.participationId)).toBe('CANCELED');
    const declined = await mailTo(r.who.email, (m) => m.subject.startsWith('Request declined'));
    expect(declined.subject).toBe('Request declined: Viewing on 2 June 2026');
    expect(declined.text).toContain('Unfortunately Acme Estates cannot confirm your request');
    expect(declined.text).toContain('> Already let, sorry.\n> Try flat 14.');
    expect(declined.calendar).toBeUndefined();
    const [slot] = flatten(await upcoming(t, r.b.resource.reference));
    expect(slot?.start).toBe('2026-06-02T09:00:00+02:00');
  });

  it('decline without a reason sends the decline mail without a message block', async () => {
    const r = await requested();
    expect((await post(r.decisionPath, 'decision=decline&message=')).statusCode).toBe(200);
    const [row] = (await outboxOf(t, r.b.p.crmId)).filter((m) => m.template === 'booking-declined');
    expect(row).toMatchObject({
      recipient: r.who.email,
      locale: 'en',
      payload: { message: null, participation: { state: 'CANCELED' } },
    });
  });
});

describe('a request no longer awaiting a decision', () => {
  it('answers 409 with a page on GET and POST once decided, and nothing changes', async () => {
    const r = await requested();
    expect((await post(r.decisionPath, 'decision=confirm')).statusCode).toBe(200);
    const before = await templates(r);
    for (const res of [
      await get(r.decisionPath),
      await post(r.decisionPath, 'decision=decline'),
      await post(r.decisionPath, 'decision=confirm'),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Diese Anfrage wurde bereits bestätigt.');
      expect(res.body).not.toContain('<form');
    }
    expect(await participationState(t, r.participationId)).toBe('BOOKED');
    expect(await templates(r)).toEqual(before);
  });

  it('answers 409 after the consumer cancelled the request', async () => {
    const r = await requested();
    expect((await post(r.cancelPath, '')).statusCode).toBe(200);
    const res = await post(r.decisionPath, 'decision=confirm');
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('vom Kunden storniert');
    expect(await participationState(t, r.participationId)).toBe('CANCELED');
    expect(await templates(r)).not.toContain('booking-confirmed');
  });
});

describe('forged links and bad forms', () => {
  it('answers 404 to forged or altered tokens and to the consumer cancel token, and changes nothing', async () => {
    const r = await requested();
    const token = r.decisionPath.split('/').pop()!;
    const [id, mac] = token.split('.');
    const forged = [
      `${id}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      r.cancelPath.split('/').pop()!, // the consumer's token is not the provider's
      signCancelToken('not-the-secret', id),
      id,
      `${token}.x`,
    ];
    for (const bad of forged) {
      for (const res of [await get(`/requests/${bad}`), await post(`/requests/${bad}`, 'decision=confirm')]) {
        expect(res.statusCode, bad).toBe(404);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.body).toContain('Link ungültig');
      }
    }
    // and the decision token does not cancel
    expect((await post(`/cancel/${token}`, '')).statusCode).toBe(404);
    expect(await participationState(t, r.participationId)).toBe('REQUESTED');
  });

  it('answers 400 naming the field for a missing or unknown decision or a too long message', async () => {
    const r = await requested();
    const cases: [string | undefined, string][] = [
      [undefined, 'Im Formular fehlt „decision“.'],
      ['', 'Im Formular fehlt „decision“.'],
      ['decision=maybe', '„decision“ im Formular ist ungültig.'],
      [`decision=decline&message=${'x'.repeat(2001)}`, '„message“ im Formular ist ungültig.'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(r.decisionPath, payload, payload === undefined ? {} : form);
      expect(res.statusCode, payload).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain(field);
    }
    const json = await post(r.decisionPath, 'decision=maybe', { ...form, accept: 'application/json' });
    expect(json.json()).toMatchObject({ errors: [{ errorCode: 'VALIDATION' }] });
    expect(await participationState(t, r.participationId)).toBe('REQUESTED');
  });
});

describe('races with the consumer cancel link', () => {
  it('confirm and cancel at the same moment: one wins, and state and mails agree', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await requested();
      const [decided, cancelled] = await Promise.all([
        post(r.decisionPath, 'decision=confirm'),
        post(r.cancelPath, ''),
      ]);
      expect(cancelled.statusCode).toBe(200);
      const sent = await templates(r);
      // the cancel link cancels a request and a booking alike, so the end state is CANCELED either way
      expect(await participationState(t, r.participationId)).toBe('CANCELED');
      if (decided.statusCode === 200) expect(sent).toContain('booking-confirmed');
      else {
        expect(decided.statusCode).toBe(409);
        expect(sent).not.toContain('booking-confirmed');
      }
      expect(sent.filter((m) => m === 'self-cancel-confirmation')).toHaveLength(1);
    }
  });

  it('decline and cancel at the same moment: exactly one of them takes effect', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await requested();
      const [decided, cancelled] = await Promise.all([
        post(r.decisionPath, 'decision=decline'),
        post(r.cancelPath, ''),
      ]);
      const sent = await templates(r);
      expect(await participationState(t, r.participationId)).toBe('CANCELED');
      const declinedWon = decided.statusCode === 200;
      expect(decided.statusCode).toBe(declinedWon ? 200 : 409);
      expect(cancelled.body).toContain(declinedWon ? 'Already cancelled' : 'Appointment cancelled');
      expect(sent.includes('booking-declined')).toBe(declinedWon);
      expect(sent.includes('self-cancel-confirmation')).toBe(!declinedWon);
    }
  });
});
