import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
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

const cancel = (s: Scheduling, body: object, message?: string) =>
  s.p.call('DELETE', `${s.base}/appointments`, body, message === undefined ? undefined : { message });
const remove = (s: Scheduling, body: object) => s.p.call('DELETE', `${s.base}/appointments/withoutNotification`, body);

async function threeDaySeries(s: Scheduling) {
  const res = await s.p.call('POST', `${s.base}/appointments`, {
    from: '2026-07-01T09:00',
    to: '2026-07-01T10:00',
    capacity: 2,
    acceptBookings: true,
    resourceReference: s.resourceRef,
    productReference: s.productRef,
    series_data: { from: '2026-07-01', to: '2026-07-03', raster: 60, weekdays: ['1', '2', '3', '4', '5', '6', '7'] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().appointments as { reference: string; seriesId: string }[];
}

async function states(s: Scheduling) {
  const list = (await s.p.call('GET', `${s.base}/appointments`)).json();
  return list.map(
    (a: {
      reference: string;
      state: string;
      capacityLeft: number;
      participations: { reference: string; state: string }[];
    }) => ({
      reference: a.reference,
      state: a.state,
      capacityLeft: a.capacityLeft,
      participations: a.participations.map((p) => `${p.reference}:${p.state}`),
    }),
  );
}

describe('D8 cancel appointments', () => {
  it('cancels the appointment and its participations, mailing the message to requested and booked ones', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s, { capacity: 5 });
    const booked = await createCustomer(s);
    const requested = await createCustomer(s);
    const deleted = await createCustomer(s);
    const holding = await createCustomer(s);
    await participate(
      s,
      { reference: 'b@crm', appointmentReference: apt.reference, customerReference: booked.customerReference },
      { sendMails: 'false' },
    );
    await participate(s, {
      reference: 'r@crm',
      appointmentReference: apt.reference,
      customerReference: requested.customerReference,
      state: 'REQUESTED',
    });
    await participate(s, {
      reference: 'd@crm',
      appointmentReference: apt.reference,
      customerReference: deleted.customerReference,
      state: 'DELETED',
    });
    await participate(s, {
      reference: 'v@crm',
      appointmentReference: apt.reference,
      customerReference: holding.customerReference,
      state: 'RESERVED',
    });

    const res = await cancel(s, { appointmentReference: apt.reference }, 'The flat is rented');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ 'api-info': { version: '1' }, count: 1 });
    expect(await states(s)).toEqual([
      {
        reference: apt.reference,
        state: 'CANCELLED',
        capacityLeft: 5,
        participations: ['b@crm:CANCELED', 'r@crm:CANCELED', 'd@crm:DELETED', 'v@crm:CANCELED'],
      },
    ]);
    const mails = await outboxOf(t, s.p.crmId);
    expect(mails.map((m) => [m.template, m.recipient, m.payload.message]).sort()).toEqual(
      [
        ['appointment-cancelled', booked.email, 'The flat is rented'],
        ['appointment-cancelled', requested.email, 'The flat is rented'],
      ].sort(),
    );
  });

  it('makes the appointment unbookable', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s);
    await cancel(s, { appointmentReference: apt.reference });
    const customer = await createCustomer(s);
    expect(
      (await participate(s, { appointmentReference: apt.reference, customerReference: customer.customerReference }))
        .statusCode,
    ).toBe(409);
  });

  it('cancels a whole series by seriesId and counts the appointments', async () => {
    const s = await setupScheduling(t);
    const apts = await threeDaySeries(s);
    const res = await cancel(s, { seriesId: apts[0].seriesId });
    expect(res.json().count).toBe(3);
    expect((await states(s)).map((a: { state: string }) => a.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
  });

  it('counts nothing and mails nobody when the appointment is already cancelled', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s);
    const customer = await createCustomer(s);
    await participate(
      s,
      { appointmentReference: apt.reference, customerReference: customer.customerReference },
      { sendMails: 'false' },
    );
    await cancel(s, { appointmentReference: apt.reference });
    const again = await cancel(s, { appointmentReference: apt.reference });
    expect(again.statusCode).toBe(200);
    expect(again.json().count).toBe(0);
    expect(await outboxOf(t, s.p.crmId)).toHaveLength(1);
  });

  it('frees the time for a new appointment', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s);
    await cancel(s, { appointmentReference: apt.reference });
    await createAppointment(s);
  });

  it('answers 404 when nothing matches and 400 without a selector or with both', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s);
    expect((await cancel(s, { appointmentReference: 'none@crm' })).statusCode).toBe(404);
    expect((await cancel(s, { seriesId: 'none' })).statusCode).toBe(404);
    const neither = await cancel(s, {});
    expect(neither.statusCode).toBe(400);
    expect(neither.json().errors[0].message).toContain('appointmentReference or seriesId');
    expect((await cancel(s, { appointmentReference: apt.reference, seriesId: 'x' })).statusCode).toBe(400);
    expect((await cancel(s, { appointmentReference: apt.reference }, 'x'.repeat(1025))).statusCode).toBe(400);
  });
});

describe('D7 delete appointments without notification', () => {
  it('removes the appointment and its participations without any mail', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s);
    const customer = await createCustomer(s);
    await participate(
      s,
      { reference: 'p@crm', appointmentReference: apt.reference, customerReference: customer.customerReference },
      { sendMails: 'false' },
    );
    const res = await remove(s, { appointmentReference: apt.reference });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ 'api-info': { version: '1' }, count: 1 });
    expect(await states(s)).toEqual([]);
    expect(await t.db.query('SELECT 1 FROM participations WHERE crm_id = $1', [s.p.crmId])).toEqual([]);
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
    expect((await s.p.call('POST', `${s.base}/participations/p%40crm`, { state: 'CANCELED' })).statusCode).toBe(404);
  });

  it('removes a whole series by seriesId and leaves other appointments', async () => {
    const s = await setupScheduling(t);
    const apts = await threeDaySeries(s);
    const single = await createAppointment(s, { start: '2026-07-05T10:00', end: '2026-07-05T11:00' });
    const res = await remove(s, { seriesId: apts[0].seriesId });
    expect(res.json().count).toBe(3);
    expect((await states(s)).map((a: { reference: string }) => a.reference)).toEqual([single.reference]);
  });

  it('answers 404 when nothing matches, also for another partner', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s);
    expect((await remove(s, { appointmentReference: 'none@crm' })).statusCode).toBe(404);
    const other = await setupScheduling(t);
    expect((await remove(other, { appointmentReference: apt.reference })).statusCode).toBe(404);
    expect((await remove(s, {})).statusCode).toBe(400);
  });
});
