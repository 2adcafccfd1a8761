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

/** A provider with one appointment (capacity 3) and one customer. */
async function ground(capacity = 3) {
  const s = await setupScheduling(t);
  const apt = await createAppointment(s, { capacity });
  const customer = await createCustomer(s);
  return { s, apt, customer };
}

const change = (s: Scheduling, reference: string, body: object, query?: Record<string, string>) =>
  s.p.call('POST', `${s.base}/participations/${encodeURIComponent(reference)}`, body, query);

async function capacityLeft(s: Scheduling, reference: string): Promise<number> {
  const list = (await s.p.call('GET', `${s.base}/appointments`)).json();
  return list.find((a: { reference: string }) => a.reference === reference).capacityLeft;
}

describe('D9 add a participation', () => {
  it('creates it with 201, takes a place and mails the booked participant', async () => {
    const { s, apt, customer } = await ground();
    const res = await participate(s, {
      reference: 'p-1@crm',
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
      message: 'See you',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      participation: {
        reference: 'p-1@crm',
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        appointmentReference: apt.reference,
        customerReference: customer.customerReference,
        state: 'BOOKED',
        message: 'See you',
        answers: [],
      },
      busyOverlaps: [],
    });
    expect(await capacityLeft(s, apt.reference)).toBe(2);
    const mails = await outboxOf(t, s.p.crmId);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ template: 'participation-booked', recipient: customer.email, locale: 'de' });
    expect(mails[0].payload).toMatchObject({
      message: 'See you',
      appointment: { reference: apt.reference, start: '2026-07-01T10:00:00+02:00' },
      participation: { reference: 'p-1@crm', state: 'BOOKED' },
    });
  });

  it('writes no mail with sendMails=false', async () => {
    const { s, apt, customer } = await ground();
    const res = await participate(
      s,
      { appointmentReference: apt.reference, customerReference: customer.customerReference },
      { sendMails: 'false' },
    );
    expect(res.statusCode).toBe(201);
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it.each(['RESERVED', 'REQUESTED', 'CANCELED', 'DELETED'])(
    'creates a %s participation without mail',
    async (state) => {
      const { s, apt, customer } = await ground();
      const res = await participate(s, {
        appointmentReference: apt.reference,
        customerReference: customer.customerReference,
        state,
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().participation.state).toBe(state);
      expect(await outboxOf(t, s.p.crmId)).toEqual([]);
      expect(await capacityLeft(s, apt.reference)).toBe(state === 'CANCELED' || state === 'DELETED' ? 3 : 2);
    },
  );

  it('answers 409 CAPACITY_EXHAUSTED when the appointment is full, and adds anyway with ignoreCapacity', async () => {
    const { s, apt } = await ground(1);
    const a = await createCustomer(s);
    const b = await createCustomer(s);
    expect(
      (await participate(s, { appointmentReference: apt.reference, customerReference: a.customerReference }))
        .statusCode,
    ).toBe(201);
    const full = await participate(s, { appointmentReference: apt.reference, customerReference: b.customerReference });
    expect(full.statusCode).toBe(409);
    expect(full.json().errors[0].errorCode).toBe('CAPACITY_EXHAUSTED');
    const forced = await participate(
      s,
      { appointmentReference: apt.reference, customerReference: b.customerReference },
      { ignoreCapacity: 'true' },
    );
    expect(forced.statusCode).toBe(201);
    expect(await capacityLeft(s, apt.reference)).toBe(0);
  });

  it('does not count an expired reservation against the capacity', async () => {
    const { s, apt, customer } = await ground(1);
    const other = await createCustomer(s);
    t.clock.set('2026-06-01T08:00:00Z');
    await participate(s, {
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
      state: 'RESERVED',
    });
    expect(await capacityLeft(s, apt.reference)).toBe(0);
    expect(
      (await participate(s, { appointmentReference: apt.reference, customerReference: other.customerReference }))
        .statusCode,
    ).toBe(409);
    t.clock.advance(181_000);
    // expired, not swept: D5 shows the place free before anyone takes it
    expect(await capacityLeft(s, apt.reference)).toBe(1);
    expect(
      (await participate(s, { appointmentReference: apt.reference, customerReference: other.customerReference }))
        .statusCode,
    ).toBe(201);
    expect(await capacityLeft(s, apt.reference)).toBe(0);
  });

  it('refuses a second participation of the same customer with 409 AppointmentAlreadyBookedException', async () => {
    const { s, apt, customer } = await ground();
    await participate(s, {
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
      state: 'REQUESTED',
    });
    const again = await participate(s, {
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].errorCode).toBe('AppointmentAlreadyBookedException');
  });

  it('lets a customer whose participation was cancelled take part again', async () => {
    const { s, apt, customer } = await ground();
    await participate(s, {
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
      state: 'CANCELED',
    });
    expect(
      (await participate(s, { appointmentReference: apt.reference, customerReference: customer.customerReference }))
        .statusCode,
    ).toBe(201);
  });

  it('updates an existing reference with 200 through the transition table when onDuplicateRaise is false', async () => {
    const { s, apt, customer } = await ground();
    const body = {
      reference: 'dup@crm',
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
    };
    await participate(s, { ...body, state: 'REQUESTED' });
    const updated = await participate(s, { ...body, state: 'BOOKED', message: 'Confirmed' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().participation).toMatchObject({ reference: 'dup@crm', state: 'BOOKED', message: 'Confirmed' });
    expect((await outboxOf(t, s.p.crmId)).map((m) => m.template)).toEqual(['participation-booked']);
    const refused = await participate(s, { ...body, state: 'REQUESTED' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors[0].errorCode).toBe('INVALID_TRANSITION');
  });

  it('answers 400 for an existing reference when onDuplicateRaise is true, changing nothing', async () => {
    const { s, apt, customer } = await ground();
    const body = {
      reference: 'dup@crm',
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
    };
    await participate(s, { ...body, state: 'REQUESTED' });
    const res = await participate(s, { ...body, state: 'BOOKED' }, { onDuplicateRaise: 'true' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('dup@crm');
    expect((await change(s, 'dup@crm', { state: 'REQUESTED' })).json().participation.state).toBe('REQUESTED');
  });

  it('answers 409 when an existing reference is given with another appointment', async () => {
    const { s, apt, customer } = await ground();
    const other = await createAppointment(s, { start: '2026-07-02T10:00', end: '2026-07-02T11:00' });
    await participate(s, {
      reference: 'dup@crm',
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
    });
    const res = await participate(s, {
      reference: 'dup@crm',
      appointmentReference: other.reference,
      customerReference: customer.customerReference,
    });
    expect(res.statusCode).toBe(409);
  });

  it('refuses a place in a cancelled appointment with 409', async () => {
    const { s, apt, customer } = await ground();
    await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: apt.reference });
    const res = await participate(s, {
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].message).toContain('cancelled');
  });

  it.each([
    ['an unknown state', { state: 'DONE' }, 'body.state must be one of RESERVED, REQUESTED, BOOKED, CANCELED, DELETED'],
    ['a missing reference', { reference: undefined }, 'body.reference is required'],
    ['a missing customerReference', { customerReference: undefined }, 'body.customerReference is required'],
    ['a message over 1024 characters', { message: 'x'.repeat(1025) }, 'body.message'],
  ])('rejects %s with 400', async (_what, over, message) => {
    const { s, apt, customer } = await ground();
    const res = await s.p.call('POST', `${s.base}/participations`, {
      reference: 'r@crm',
      appointmentReference: apt.reference,
      customerReference: customer.customerReference,
      state: 'BOOKED',
      ...over,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain(message);
  });

  it('rejects a malformed flag with 400', async () => {
    const { s, apt, customer } = await ground();
    const res = await participate(
      s,
      { appointmentReference: apt.reference, customerReference: customer.customerReference },
      { sendMails: 'perhaps' },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('query.sendMails');
  });

  it('answers 404 for an unknown appointment or customer', async () => {
    const { s, apt, customer } = await ground();
    expect(
      (await participate(s, { appointmentReference: 'none@crm', customerReference: customer.customerReference }))
        .statusCode,
    ).toBe(404);
    const res = await participate(s, { appointmentReference: apt.reference, customerReference: 'none@crm' });
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].message).toContain('customer');
  });
});

describe('D10 change the state of a participation', () => {
  /** A participation in `from`, reached through D9; the outbox is empty afterwards. */
  async function inState(from: string, capacity = 3) {
    const { s, apt, customer } = await ground(capacity);
    const reference = `${uniqueId('p')}@crm`;
    const res = await participate(
      s,
      { reference, appointmentReference: apt.reference, customerReference: customer.customerReference, state: from },
      { sendMails: 'false' },
    );
    expect(res.statusCode, res.body).toBe(201);
    return { s, apt, customer, reference };
  }

  it.each([
    ['RESERVED', 'BOOKED', 'participation-booked'],
    ['REQUESTED', 'BOOKED', 'participation-booked'],
    ['REQUESTED', 'CANCELED', 'participation-canceled'],
    ['BOOKED', 'CANCELED', 'participation-canceled'],
  ])('moves %s to %s with 200 and the mail %s carrying the message', async (from, to, template) => {
    const { s, customer, reference } = await inState(from);
    const res = await change(s, reference, { state: to, message: 'From the office' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().participation).toMatchObject({
      reference,
      state: to,
      message: 'From the office',
      customerReference: customer.customerReference,
    });
    const mails = await outboxOf(t, s.p.crmId);
    expect(mails.map((m) => [m.template, m.recipient, m.payload.message, m.payload.participation.state])).toEqual([
      [template, customer.email, 'From the office', to],
    ]);
  });

  it.each([
    ['RESERVED', 'BOOKED'],
    ['REQUESTED', 'CANCELED'],
    ['BOOKED', 'CANCELED'],
  ])('moves %s to %s without mail when sendMails=false', async (from, to) => {
    const { s, reference } = await inState(from);
    const res = await change(s, reference, { state: to }, { sendMails: 'false' });
    expect(res.statusCode).toBe(200);
    expect(res.json().participation.state).toBe(to);
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it.each([
    ['RESERVED', 'CANCELED'],
    ['DELETED', 'CANCELED'],
    ['BOOKED', 'DELETED'],
  ])('moves %s to %s with 200 and no mail', async (from, to) => {
    const { s, reference } = await inState(from);
    const res = await change(s, reference, { state: to });
    expect(res.statusCode).toBe(200);
    expect(res.json().participation.state).toBe(to);
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it.each(['RESERVED', 'REQUESTED', 'BOOKED', 'CANCELED', 'DELETED'])(
    'answers 200 without mail for %s to the same state',
    async (state) => {
      const { s, reference } = await inState(state);
      const res = await change(s, reference, { state });
      expect(res.statusCode).toBe(200);
      expect(res.json().participation.state).toBe(state);
      expect(await outboxOf(t, s.p.crmId)).toEqual([]);
    },
  );

  it.each([
    ['RESERVED', 'REQUESTED'],
    ['RESERVED', 'DELETED'],
    ['REQUESTED', 'RESERVED'],
    ['REQUESTED', 'DELETED'],
    ['BOOKED', 'RESERVED'],
    ['BOOKED', 'REQUESTED'],
    ['CANCELED', 'RESERVED'],
    ['CANCELED', 'REQUESTED'],
    ['CANCELED', 'BOOKED'],
    ['CANCELED', 'DELETED'],
    ['DELETED', 'RESERVED'],
    ['DELETED', 'REQUESTED'],
    ['DELETED', 'BOOKED'],
  ])('refuses %s to %s with 409 INVALID_TRANSITION and changes nothing', async (from, to) => {
    const { s, reference } = await inState(from);
    const res = await change(s, reference, { state: to });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].errorCode).toBe('INVALID_TRANSITION');
    const same = await change(s, reference, { state: from });
    expect(same.json().participation.state).toBe(from);
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it('books an expired reservation while a place is free', async () => {
    t.clock.set('2026-06-01T08:00:00Z');
    const { s, reference } = await inState('RESERVED', 1);
    t.clock.advance(10 * 60_000);
    const res = await change(s, reference, { state: 'BOOKED' });
    expect(res.statusCode).toBe(200);
    expect(res.json().participation.state).toBe('BOOKED');
  });

  it('refuses to book an expired reservation whose place another took, with 409 CAPACITY_EXHAUSTED', async () => {
    t.clock.set('2026-06-01T08:00:00Z');
    const { s, apt, reference } = await inState('RESERVED', 1);
    t.clock.advance(10 * 60_000);
    const other = await createCustomer(s);
    expect(
      (await participate(s, { appointmentReference: apt.reference, customerReference: other.customerReference }))
        .statusCode,
    ).toBe(201);
    const res = await change(s, reference, { state: 'BOOKED' });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].errorCode).toBe('CAPACITY_EXHAUSTED');
    expect((await change(s, reference, { state: 'RESERVED' })).json().participation.state).toBe('RESERVED');
  });

  it("counts another customer's live hold against a booked expired reservation, an expired one not", async () => {
    t.clock.set('2026-06-01T08:00:00Z');
    const { s, apt, reference } = await inState('RESERVED', 2);
    const early = await createCustomer(s);
    expect(
      (
        await participate(s, {
          appointmentReference: apt.reference,
          customerReference: early.customerReference,
          state: 'RESERVED',
        })
      ).statusCode,
    ).toBe(201);
    t.clock.advance(10 * 60_000);
    // both holds have expired (not swept): a booking and a new, live hold of somebody else take both places
    const booked = await createCustomer(s);
    const late = await createCustomer(s);
    expect(
      (await participate(s, { appointmentReference: apt.reference, customerReference: booked.customerReference }))
        .statusCode,
    ).toBe(201);
    expect(
      (
        await participate(s, {
          appointmentReference: apt.reference,
          customerReference: late.customerReference,
          state: 'RESERVED',
        })
      ).statusCode,
    ).toBe(201);
    const refused = await change(s, reference, { state: 'BOOKED' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().errors[0].errorCode).toBe('CAPACITY_EXHAUSTED');
    // the late hold expires too: one place of two is taken (the two expired holds count for nothing)
    t.clock.advance(181_000);
    const res = await change(s, reference, { state: 'BOOKED' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().participation.state).toBe('BOOKED');
    expect(await capacityLeft(s, apt.reference)).toBe(0);
  });

  it('books a live reservation of the last place', async () => {
    t.clock.set('2026-06-01T08:00:00Z');
    const { s, reference } = await inState('RESERVED', 1);
    t.clock.advance(60_000);
    expect((await change(s, reference, { state: 'BOOKED' })).statusCode).toBe(200);
  });

  it('answers 404 for an unknown participation and 400 for an unknown or missing state', async () => {
    const { s, reference } = await inState('BOOKED');
    expect((await change(s, 'none@crm', { state: 'CANCELED' })).statusCode).toBe(404);
    expect((await change(s, reference, { state: 'GONE' })).statusCode).toBe(400);
    const missing = await change(s, reference, { message: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].message).toBe('body.state is required');
  });
});
