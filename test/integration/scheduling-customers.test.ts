import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  createAppointment,
  createCustomer,
  outboxOf,
  participate,
  setupScheduling,
  type Scheduling,
} from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const customerBody = (s: Scheduling, over: object = {}) => ({
  customerReference: `${uniqueId('c')}@crm`,
  providerReference: s.provider.providerRef,
  userName: 'Erika Muster',
  ...over,
});
const path = (s: Scheduling, reference: string) => `${s.base}/customers/${encodeURIComponent(reference)}`;

describe('D12 create and D11 read a customer', () => {
  it('creates with 201 and reads back every field', async () => {
    const s = await setupScheduling(t);
    const body = customerBody(s, {
      email: 'erika@example.com',
      mobile: '+41 79 123 45 67',
      note: 'prefers mornings',
      language: 'EN',
    });
    const res = await s.p.call('POST', `${s.base}/customers`, body);
    expect(res.statusCode, res.body).toBe(201);
    const expected = {
      customerReference: body.customerReference,
      providerReference: s.provider.providerRef,
      userName: 'Erika Muster',
      email: 'erika@example.com',
      mobile: '+41 79 123 45 67',
      note: 'prefers mornings',
      language: 'en',
    };
    expect(res.json()).toEqual({ 'api-info': { version: '1' }, customer: expected });
    const read = await s.p.call('GET', path(s, body.customerReference));
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ 'api-info': { version: '1' }, customer: expected });
  });

  it('answers 200 with the existing customer unchanged for a known reference', async () => {
    const s = await setupScheduling(t);
    const body = customerBody(s, { email: 'first@example.com' });
    await s.p.call('POST', `${s.base}/customers`, body);
    const again = await s.p.call('POST', `${s.base}/customers`, {
      ...body,
      userName: 'Other',
      email: 'second@example.com',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().customer).toMatchObject({ userName: 'Erika Muster', email: 'first@example.com' });
  });

  it('answers 204 with an empty body for an unknown reference and 404 for an unknown provider', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('GET', path(s, 'none@crm'));
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await s.p.call('GET', '/provider/none@crm/customers/x')).statusCode).toBe(404);
  });

  it.each([
    ['a mobile without country code', { mobile: '0170 1234567' }, 'body.mobile'],
    ['a note of 1024 characters', { note: 'x'.repeat(1024) }, 'body.note'],
    ['a language of three letters', { language: 'deu' }, 'body.language'],
    ['an invalid email', { email: 'not-an-email' }, 'body.email'],
    ['a missing userName', { userName: undefined }, 'body.userName is required'],
    ['a missing customerReference', { customerReference: undefined }, 'body.customerReference is required'],
    ['a missing providerReference', { providerReference: undefined }, 'body.providerReference is required'],
    [
      'another providerReference',
      { providerReference: 'other@crm' },
      'body.providerReference must be the provider of the path',
    ],
  ])('rejects %s with 400', async (_what, over, message) => {
    const s = await setupScheduling(t);
    const res = await s.p.call('POST', `${s.base}/customers`, customerBody(s, over));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain(message);
  });

  it('accepts a note of exactly 1023 characters', async () => {
    const s = await setupScheduling(t);
    expect(
      (await s.p.call('POST', `${s.base}/customers`, customerBody(s, { note: 'x'.repeat(1023) }))).statusCode,
    ).toBe(201);
  });

  it('keeps customers of one provider apart from another provider', async () => {
    const s = await setupScheduling(t);
    const other = await setupScheduling(t);
    const c = await createCustomer(s);
    expect((await other.p.call('GET', path(other, c.customerReference))).statusCode).toBe(204);
  });
});

describe('D13 update a customer', () => {
  it('changes only the given fields and answers 200', async () => {
    const s = await setupScheduling(t);
    const c = await createCustomer(s, { mobile: '+491701234567', note: 'old' });
    const res = await s.p.call('PUT', path(s, c.customerReference), {
      userName: 'Erika Neu',
      note: 'new',
      language: 'fr',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().customer).toEqual({ ...c, userName: 'Erika Neu', note: 'new', language: 'fr' });
  });

  it('clears an optional field with null and renames with a new customerReference', async () => {
    const s = await setupScheduling(t);
    const c = await createCustomer(s, { mobile: '+491701234567' });
    const renamed = `${uniqueId('c')}@crm`;
    const res = await s.p.call('PUT', path(s, c.customerReference), { mobile: null, customerReference: renamed });
    expect(res.json().customer).toMatchObject({ customerReference: renamed, mobile: null });
    expect((await s.p.call('GET', path(s, c.customerReference))).statusCode).toBe(204);
  });

  it('answers 409 when the new reference is taken, 404 when the customer is unknown, 400 for bad fields', async () => {
    const s = await setupScheduling(t);
    const a = await createCustomer(s);
    const b = await createCustomer(s);
    expect(
      (await s.p.call('PUT', path(s, a.customerReference), { customerReference: b.customerReference })).statusCode,
    ).toBe(409);
    expect((await s.p.call('PUT', path(s, 'none@crm'), { userName: 'x' })).statusCode).toBe(404);
    expect((await s.p.call('PUT', path(s, a.customerReference), { mobile: '12345678' })).statusCode).toBe(400);
    expect((await s.p.call('PUT', path(s, a.customerReference), { note: 'x'.repeat(1024) })).statusCode).toBe(400);
  });
});

describe('D14 delete a customer', () => {
  async function withFutureBooking() {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s);
    const c = await createCustomer(s);
    await participate(
      s,
      { reference: 'p@crm', appointmentReference: apt.reference, customerReference: c.customerReference },
      { sendMails: 'false' },
    );
    return { s, apt, c };
  }

  it('deletes a customer without appointments with 204', async () => {
    const s = await setupScheduling(t);
    const c = await createCustomer(s);
    const res = await s.p.call('DELETE', path(s, c.customerReference));
    expect(res.statusCode).toBe(204);
    expect((await s.p.call('GET', path(s, c.customerReference))).statusCode).toBe(204);
  });

  it('answers 409 with future appointments and no ignoreFutureAppointments, changing nothing', async () => {
    const { s, c } = await withFutureBooking();
    const res = await s.p.call('DELETE', path(s, c.customerReference));
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].message).toContain('ignoreFutureAppointments');
    expect((await s.p.call('GET', path(s, c.customerReference))).statusCode).toBe(200);
  });

  it('with ignoreFutureAppointments cancels the future participations, mails the customer and deletes', async () => {
    const { s, apt, c } = await withFutureBooking();
    const res = await s.p.call('DELETE', path(s, c.customerReference), undefined, { ignoreFutureAppointments: 'true' });
    expect(res.statusCode, res.body).toBe(204);
    expect((await s.p.call('GET', path(s, c.customerReference))).statusCode).toBe(204);
    const [listed] = (await s.p.call('GET', `${s.base}/appointments`)).json();
    expect(listed).toMatchObject({ reference: apt.reference, capacityLeft: 3 });
    expect(listed.participations).toMatchObject([{ reference: 'p@crm', state: 'CANCELED', customerReference: null }]);
    const mails = await outboxOf(t, s.p.crmId);
    expect(mails.map((m) => [m.template, m.recipient, m.payload.appointment.reference])).toEqual([
      ['customer-removed', c.email, apt.reference],
    ]);
  });

  it('counts a running appointment as future, and cancels a reservation without mail', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s, { start: '2026-06-01T10:00', end: '2026-06-01T11:00' });
    const later = await createAppointment(s);
    const c = await createCustomer(s);
    t.clock.set('2026-06-01T08:30:00Z');
    try {
      await participate(
        s,
        { reference: 'now@crm', appointmentReference: apt.reference, customerReference: c.customerReference },
        { sendMails: 'false' },
      );
      await participate(s, {
        reference: 'hold@crm',
        appointmentReference: later.reference,
        customerReference: c.customerReference,
        state: 'RESERVED',
      });
      expect((await s.p.call('DELETE', path(s, c.customerReference))).statusCode).toBe(409);
      const res = await s.p.call('DELETE', path(s, c.customerReference), undefined, {
        ignoreFutureAppointments: 'true',
      });
      expect(res.statusCode).toBe(204);
      const mails = await outboxOf(t, s.p.crmId);
      expect(mails.map((m) => [m.template, m.payload.participation.reference])).toEqual([
        ['customer-removed', 'now@crm'],
      ]);
      const states = (await s.p.call('GET', `${s.base}/appointments`))
        .json()
        .flatMap((a: { participations: { reference: string; state: string }[] }) =>
          a.participations.map((p) => `${p.reference}:${p.state}`),
        );
      expect(states).toEqual(['now@crm:CANCELED', 'hold@crm:CANCELED']);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('sends no mail with sendMails=false', async () => {
    const { s, c } = await withFutureBooking();
    const res = await s.p.call('DELETE', path(s, c.customerReference), undefined, {
      ignoreFutureAppointments: 'true',
      sendMails: 'false',
    });
    expect(res.statusCode).toBe(204);
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it('is not held up by past or cancelled participations, which stay without customer', async () => {
    const s = await setupScheduling(t);
    const past = await createAppointment(s, { start: '2026-05-01T10:00', end: '2026-05-01T11:00' });
    const future = await createAppointment(s);
    const c = await createCustomer(s);
    await participate(
      s,
      { reference: 'past@crm', appointmentReference: past.reference, customerReference: c.customerReference },
      { sendMails: 'false' },
    );
    await participate(s, {
      reference: 'gone@crm',
      appointmentReference: future.reference,
      customerReference: c.customerReference,
      state: 'CANCELED',
    });
    const res = await s.p.call('DELETE', path(s, c.customerReference));
    expect(res.statusCode, res.body).toBe(204);
    const list = (await s.p.call('GET', `${s.base}/appointments`)).json();
    expect(list[0].participations).toMatchObject([{ reference: 'past@crm', state: 'BOOKED', customerReference: null }]);
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it('answers 404 for an unknown customer and 400 for a malformed flag', async () => {
    const s = await setupScheduling(t);
    expect((await s.p.call('DELETE', path(s, 'none@crm'))).statusCode).toBe(404);
    expect(
      (await s.p.call('DELETE', path(s, 'none@crm'), undefined, { ignoreFutureAppointments: 'sure' })).statusCode,
    ).toBe(400);
  });
});
