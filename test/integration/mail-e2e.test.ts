/**
 * Mails end to end: requests write the outbox, the app's own background worker (jobs.ts) delivers
 * to a real SMTP server, and the cancel link in the mail works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { createAppointment, createCustomer, participate, setupScheduling } from '../helpers/schedulingFixtures.js';
import { SmtpSink, type ReceivedMail } from '../helpers/smtpSink.js';

let sink: SmtpSink;
let t: TestApp;
beforeAll(async () => {
  sink = await SmtpSink.start();
  // the test clock stands at 2026-06-01T08:00Z; slots below lie after it
  t = await startTestApp({ smtpUrl: sink.url, mailPollMs: 50, publicBaseUrl: 'https://book.example' }, undefined, {
    jobs: true,
  });
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

/** Waits for `count` mails to this address (then a moment more, so a duplicate would show). */
async function mailsTo(address: string, count: number, timeoutMs = 25_000): Promise<ReceivedMail[]> {
  const until = Date.now() + timeoutMs;
  while (sink.to(address).length < count) {
    if (Date.now() > until) throw new Error(`expected ${count} mails to ${address}, got ${sink.to(address).length}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  await new Promise((r) => setTimeout(r, 200));
  return sink.to(address);
}

async function providerEmail(providerRef: string): Promise<string> {
  const [row] = await t.db.query<{ email: string }>('SELECT email FROM providers WHERE reference = $1', [providerRef]);
  return row.email;
}

const unfold = (ics: string) => ics.replace(/\r?\n[ \t]/g, '');
const icsField = (ics: string, name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(unfold(ics))?.[1]?.trim();

async function offer(options: Parameters<typeof setupBooking>[1] = {}): Promise<Booking> {
  const b = await setupBooking(t, {
    product: { name: 'Besichtigung' },
    resource: {
      publicName: 'Wohnung Hauptstraße',
      address: { street: 'Hauptstraße', number: '1', zip: '10115', city: 'Berlin' },
    },
    ...options,
  });
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 }]);
  return b;
}

async function bookFirstSlot(b: Booking, who: object) {
  const [slot] = flatten(await upcoming(t, b.resource.reference));
  const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().createdAppointment as { cancelLink: string; appointment_uuid: string };
}

describe('booking mails through SMTP', () => {
  it('IMMEDIATE: consumer gets a German confirmation with invite and cancel link, the provider a notice', async () => {
    const b = await offer();
    const who = consumer({ firstname: 'Erika', lastname: 'Muster', message: 'Bitte <unten> klingeln' });
    const created = await bookFirstSlot(b, who);
    expect(created.cancelLink).toMatch(/^https:\/\/book\.example\/cancel\//);

    const [confirmation] = await mailsTo(who.email, 1);
    expect(confirmation.subject).toBe('Buchungsbestätigung: Besichtigung am 2. Juni 2026');
    expect(confirmation.text).toContain('Hallo Erika Muster,');
    expect(confirmation.text).toMatch(/Wann: +Dienstag, 2\. Juni 2026, 09:00–09:30 Uhr \(Europe\/Berlin, MESZ\)/);
    expect(confirmation.text).toContain(created.cancelLink);
    expect(confirmation.html).toContain(`href="${created.cancelLink}"`);
    expect(confirmation.calendar?.method).toBe('REQUEST');
    const invite = confirmation.calendar!.content;
    expect(icsField(invite, 'METHOD')).toBe('REQUEST');
    expect(icsField(invite, 'DTSTART')).toBe('20260602T070000Z');
    expect(icsField(invite, 'UID')).toMatch(
      new RegExp(`^${created.appointment_uuid}\\.[0-9a-f-]{36}@booking-service$`),
    );

    const [notification] = await mailsTo(await providerEmail(b.provider.providerRef), 1);
    expect(notification.subject).toBe('Neue Buchung: Besichtigung am 2. Juni 2026 (Erika Muster)');
    expect(notification.text).toMatch(/Kunde: +Erika Muster\n +.*@consumer\.example/);
    expect(notification.text).toContain('Nachricht des Kunden:\n> Bitte <unten> klingeln');
    expect(notification.html).toContain('Bitte &lt;unten&gt; klingeln');
    expect(notification.calendar).toBeUndefined();

    // the consumer follows the link from the mail
    const path = new URL(/https:\/\/book\.example\/cancel\/\S+/.exec(confirmation.text!)![0]).pathname;
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Dienstag, 2. Juni 2026, 09:00–09:30 Uhr (Europe/Berlin, MESZ)');
    const cancelled = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(cancelled.statusCode).toBe(200);

    const [, cancelConfirmation] = await mailsTo(who.email, 2);
    expect(cancelConfirmation.subject).toBe('Stornierung bestätigt: Besichtigung am 2. Juni 2026');
    expect(cancelConfirmation.calendar?.method).toBe('CANCEL');
    const cancel = cancelConfirmation.calendar!.content;
    expect(icsField(cancel, 'UID')).toBe(icsField(invite, 'UID'));
    expect(Number(icsField(cancel, 'SEQUENCE'))).toBeGreaterThan(Number(icsField(invite, 'SEQUENCE')));
    expect(icsField(cancel, 'STATUS')).toBe('CANCELLED');
    const [, providerNotice] = await mailsTo(await providerEmail(b.provider.providerRef), 2);
    expect(providerNotice.subject).toBe('Stornierung: Besichtigung am 2. Juni 2026 (Erika Muster)');

    // the place is free again: another consumer books the same slot
    await bookFirstSlot(b, consumer());
  });

  it('REQUESTED in English: request received without invite, a request for confirmation to the provider', async () => {
    const b = await offer({ resource: { channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } } });
    const who = consumer({ firstname: 'Jane', lastname: 'Doe', locale: 'en' });
    const created = await bookFirstSlot(b, who);
    const [received] = await mailsTo(who.email, 1);
    expect(received.subject).toBe('Request received: Besichtigung on 2 June 2026');
    expect(received.text).toMatch(/When: +Tuesday, 2 June 2026, 09:00–09:30 \(Europe\/Berlin, CEST\)/);
    expect(received.text).toContain(created.cancelLink);
    expect(received.calendar).toBeUndefined();
    const [toConfirm] = await mailsTo(await providerEmail(b.provider.providerRef), 1);
    expect(toConfirm.subject).toBe('Bitte bestätigen: Anfrage für Besichtigung am 2. Juni 2026 (Jane Doe)');
  });

  it("the provider's confirmation and cancellation carry its message, an invite, then a CANCEL of it", async () => {
    const s = await setupScheduling(t);
    const appointment = await createAppointment(s, { start: '2026-07-01T10:00', end: '2026-07-01T11:00' });
    const customer = await createCustomer(s, { language: 'en', userName: 'Jane Doe' });
    const res = await participate(s, {
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
      message: 'See you at the gate',
    });
    expect(res.statusCode, res.body).toBe(201);
    const [booked] = await mailsTo(customer.email, 1);
    expect(booked.subject).toMatch(/^Appointment confirmed: .* on 1 July 2026$/);
    expect(booked.text).toContain('> See you at the gate');
    expect(booked.calendar?.method).toBe('REQUEST');
    const cancel = await s.p.call(
      'DELETE',
      `${s.base}/appointments`,
      { appointmentReference: appointment.reference },
      { message: 'The owner is ill' },
    );
    expect(cancel.statusCode, cancel.body).toBe(200);
    const [, cancelled] = await mailsTo(customer.email, 2);
    expect(cancelled.subject).toMatch(/^Cancelled: .* on 1 July 2026$/);
    expect(cancelled.text).toContain('> The owner is ill');
    expect(cancelled.calendar?.method).toBe('CANCEL');
    expect(icsField(cancelled.calendar!.content, 'UID')).toBe(icsField(booked.calendar!.content, 'UID'));
  });

  it('sendMails=false sends nothing', async () => {
    const s = await setupScheduling(t);
    const appointment = await createAppointment(s);
    const silent = await createCustomer(s);
    const loud = await createCustomer(s);
    expect(
      (
        await participate(
          s,
          { appointmentReference: appointment.reference, customerReference: silent.customerReference },
          { sendMails: 'false' },
        )
      ).statusCode,
    ).toBe(201);
    expect(
      (await participate(s, { appointmentReference: appointment.reference, customerReference: loud.customerReference }))
        .statusCode,
    ).toBe(201);
    // the later mail has arrived, so the earlier one would have too
    await mailsTo(loud.email, 1);
    expect(sink.to(silent.email)).toHaveLength(0);
  });
});

describe('the other participant mails and recipients through SMTP', () => {
  const enc = encodeURIComponent;

  it("a provider's D10 cancellation mails participation-canceled with its message and a CANCEL", async () => {
    const s = await setupScheduling(t);
    const appointment = await createAppointment(s);
    const customer = await createCustomer(s);
    const reference = `${customer.customerReference}-p`;
    expect(
      (
        await participate(s, {
          reference,
          appointmentReference: appointment.reference,
          customerReference: customer.customerReference,
        })
      ).statusCode,
    ).toBe(201);
    const res = await s.p.call('POST', `${s.base}/participations/${enc(reference)}`, {
      state: 'CANCELED',
      message: 'Leider ausgebucht',
    });
    expect(res.statusCode, res.body).toBe(200);
    const [booked, canceled] = await mailsTo(customer.email, 2);
    expect(canceled.subject).toMatch(/^Termin abgesagt: .* am 1\. Juli 2026$/);
    expect(canceled.text).toContain('Nachricht von Acme Estates:\n> Leider ausgebucht');
    expect(canceled.calendar?.method).toBe('CANCEL');
    expect(icsField(canceled.calendar!.content, 'UID')).toBe(icsField(booked.calendar!.content, 'UID'));
  });

  it('D14 with ignoreFutureAppointments mails customer-removed with a CANCEL', async () => {
    const s = await setupScheduling(t);
    const appointment = await createAppointment(s);
    const customer = await createCustomer(s, { language: 'en' });
    expect(
      (
        await participate(s, {
          appointmentReference: appointment.reference,
          customerReference: customer.customerReference,
        })
      ).statusCode,
    ).toBe(201);
    const res = await s.p.call('DELETE', `${s.base}/customers/${enc(customer.customerReference)}`, undefined, {
      ignoreFutureAppointments: 'true',
    });
    expect(res.statusCode, res.body).toBe(204);
    const [, removed] = await mailsTo(customer.email, 2);
    expect(removed.subject).toMatch(/^Booking cancelled: .* on 1 July 2026$/);
    expect(removed.calendar?.method).toBe('CANCEL');
  });

  it('B6 with ignoreFutureAppointments mails resource-deleted-cancellation with a CANCEL', async () => {
    const s = await setupScheduling(t);
    const appointment = await createAppointment(s);
    const customer = await createCustomer(s);
    expect(
      (
        await participate(s, {
          appointmentReference: appointment.reference,
          customerReference: customer.customerReference,
        })
      ).statusCode,
    ).toBe(201);
    const res = await s.p.call('DELETE', `${s.base}/resources/${enc(s.resourceRef)}`, undefined, {
      ignoreFutureAppointments: 'true',
    });
    expect(res.statusCode, res.body).toBe(204);
    const [, cancelled] = await mailsTo(customer.email, 2);
    expect(cancelled.subject).toMatch(/^Termin entfällt: .* am 1\. Juli 2026$/);
    expect(cancelled.text).toContain('nicht mehr angeboten wird');
    expect(cancelled.calendar?.method).toBe('CANCEL');
  });

  it("provider-side mails go to the email channel of the resource contact's profile", async () => {
    const b = await setupBooking(t);
    const profile = await b.p.call('PUT', `/user/${enc(b.provider.ownerRef)}/generalContactProfile`, {
      name: 'Vermietungsteam',
      contactChannels: [{ type: 'email', value: 'desk@acme.example' }],
    });
    expect(profile.statusCode, profile.body).toBeLessThan(300);
    const resource = await b.p.call('POST', `${b.base}/resources/${enc(b.resource.reference)}`, {
      contact: b.provider.ownerRef,
    });
    expect(resource.statusCode, resource.body).toBe(202);
    await createTimeslots(b, [{}]);
    const who = consumer();
    await bookFirstSlot(b, who);
    const [notification] = await mailsTo('desk@acme.example', 1);
    expect(notification.text).toContain('Hallo Vermietungsteam,');
    const [confirmation] = await mailsTo(who.email, 1);
    expect(confirmation.text).toMatch(/Kontakt: +Vermietungsteam\n +desk@acme\.example/);
    expect(unfold(confirmation.calendar!.content)).toMatch(
      /ORGANIZER;CN="?Vermietungsteam"?:MAILTO:desk@acme\.example/i,
    );
  });

  it("provider-side mails speak the contact user's language; the consumer's mails keep the consumer's", async () => {
    const b = await offer();
    const owner = await b.p.call('PUT', `/user/${enc(b.provider.ownerRef)}`, { language: 'en' });
    expect(owner.statusCode, owner.body).toBe(200);
    const resource = await b.p.call('POST', `${b.base}/resources/${enc(b.resource.reference)}`, {
      contact: b.provider.ownerRef,
    });
    expect(resource.statusCode, resource.body).toBe(202);
    const who = consumer({ firstname: 'Erika', lastname: 'Muster' });
    await bookFirstSlot(b, who);
    const [ownerRow] = await t.db.query<{ email: string }>('SELECT u.email FROM users u WHERE u.reference = $1', [
      b.provider.ownerRef,
    ]);
    const [notification] = await mailsTo(ownerRow.email, 1);
    expect(notification.subject).toMatch(/Besichtigung on 2 June 2026 \(Erika Muster\)$/);
    const [confirmation] = await mailsTo(who.email, 1);
    expect(confirmation.subject).toMatch(/am 2\. Juni 2026$/);
  });

  it('C1 adopting a user who booked publicly mails the email verification', async () => {
    const b = await offer();
    const who = consumer();
    await bookFirstSlot(b, who);
    await mailsTo(who.email, 1);
    const res = await b.p.call('POST', '/user', {
      reference: `${who.email}@crm`,
      email: who.email,
      username: who.email.split('@')[0],
      lastName: 'Muster',
    });
    expect(res.statusCode, res.body).toBe(200);
    const [, verification] = await mailsTo(who.email, 2);
    expect(verification.subject).toBe('Bitte bestätigen Sie Ihre E-Mail-Adresse');
    expect(verification.text).toContain(`Ihre E-Mail-Adresse ${who.email} wurde mit einem Benutzerkonto verknüpft`);
    expect(verification.calendar).toBeUndefined();
  });
});

describe('SMTP outage', () => {
  it('while SMTP is down every booking succeeds, and once it is back each mail arrives exactly once', async () => {
    const b = await offer();
    await sink.down();
    const consumers = [consumer(), consumer(), consumer()];
    for (const who of consumers) await bookFirstSlot(b, who); // each 201
    // the worker has tried each and failed: still PENDING, attempted (waited for, not slept)
    const triedAndPending = async () =>
      (
        await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM outbox WHERE status = 'PENDING' AND attempts >= 1 AND recipient = ANY($1)`,
          [consumers.map((c) => c.email)],
        )
      )[0].n;
    await expect.poll(triedAndPending, { timeout: 25_000, interval: 50 }).toBe(3);
    await sink.up();
    for (const who of consumers) {
      const mails = await mailsTo(who.email, 1);
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toMatch(/^Buchungsbestätigung: Besichtigung/);
    }
    const provider = await mailsTo(await providerEmail(b.provider.providerRef), 3);
    expect(provider).toHaveLength(3);
    expect(new Set(provider.map((m) => m.messageId)).size).toBe(3);
  });
});
