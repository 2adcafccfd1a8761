/**
 * Freed time (DESIGN 7.9): an appointment the public flow created blocks nothing once none of its
 * participations is live. A timeslot 09:00-10:00 at raster 30 and a product with a 15-minute
 * follow-up buffer list 09:00 and 09:30; a booking at 09:00 takes both (the buffer reaches into
 * 09:30). Every way the booking stops being live gives both back, and the neighbour can be booked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  publicCall,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { bookSlot, moveBodyFor, participationOfToken, reschedule } from '../helpers/lifecycleFixtures.js';
import { outboxOf } from '../helpers/mailFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const HOLD_MS = 180_000;

async function ground(over: { resource?: object; end?: string } = {}) {
  const b = await setupBooking(t, { product: { followUpTimeMinutes: 15 }, resource: over.resource });
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: over.end ?? '2026-06-02T10:00', raster: 30 }]);
  return b;
}

/** The listed slots as "kind start" (with the product, so buffers count). */
async function listed(b: Booking): Promise<string[]> {
  return flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference })).map(
    (s) => `${s.kind} ${s.start.slice(11, 16)}`,
  );
}
const free = (...times: string[]) => times.map((time) => `models.Bookable ${time}`);

async function slots(b: Booking) {
  return flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));
}

async function bookFirst(b: Booking) {
  const [first] = await slots(b);
  const booked = await bookSlot(t, b, first);
  expect(await listed(b)).toEqual([]);
  return booked;
}

/** The neighbour 09:30 is booked after the release: the database agrees with A1. */
async function expectNeighbourBookable(b: Booking) {
  const neighbour = (await slots(b)).find((s) => s.start.slice(11, 16) === '09:30')!;
  const res = await book(t, b.resource.reference, bookBodyFor(neighbour, b.product.uuid));
  expect(res.statusCode, res.body).toBe(201);
}

async function appointmentState(id: string): Promise<string> {
  const [row] = await t.db.query<{ state: string }>('SELECT state FROM appointments WHERE id = $1', [id]);
  return row?.state ?? 'GONE';
}

describe('a booking that stops being live frees its time and its neighbours', () => {
  it('lists 09:00 and 09:30 to begin with, and neither while 09:00 is booked', async () => {
    const b = await ground();
    expect(await listed(b)).toEqual(free('09:00', '09:30'));
    await bookFirst(b);
  });

  it('after the cancel link', async () => {
    const b = await ground();
    const booked = await bookFirst(b);
    const res = await publicCall(t, 'POST', `/cancel/${encodeURIComponent(booked.token)}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(await listed(b)).toEqual(free('09:00', '09:30'));
    expect(await appointmentState(booked.appointment_uuid)).toBe('CANCELLED');
    await expectNeighbourBookable(b);
  });

  it.each(['CANCELED', 'DELETED'])('after the partner sets it %s (D10)', async (state) => {
    const b = await ground();
    const booked = await bookFirst(b);
    const { reference } = await participationOfToken(t, booked.token);
    const res = await b.p.call('POST', `${b.base}/participations/${encodeURIComponent(reference)}`, { state });
    expect(res.statusCode, res.body).toBe(200);
    expect(await listed(b)).toEqual(free('09:00', '09:30'));
    await expectNeighbourBookable(b);
  });

  it('after the provider declines the request through the decision link', async () => {
    const b = await ground({ resource: { channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } } });
    await bookFirst(b);
    const request = (await outboxOf(t, b.p.crmId)).find((m) => m.template === 'booking-request-to-confirm')!;
    const decision = new URL((request.payload as { decisionLink: string }).decisionLink).pathname;
    const res = await t.app.inject({
      method: 'POST',
      url: decision,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'decision=decline',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await listed(b)).toEqual(free('09:00', '09:30'));
    await expectNeighbourBookable(b);
  });

  it('at its old place after a reschedule, while the new place blocks as a booking does', async () => {
    const b = await ground({ end: '2026-06-02T11:00' });
    const [first] = await slots(b);
    const booked = await bookSlot(t, b, first);
    expect(await listed(b)).toEqual(free('10:00', '10:30'));
    const later = (await slots(b)).find((s) => s.start.slice(11, 16) === '10:30')!;
    const res = await reschedule(t, booked.token, moveBodyFor(later));
    expect(res.statusCode, res.body).toBe(200);
    expect(await listed(b)).toEqual(free('09:00', '09:30'));
    await expectNeighbourBookable(b);
  });

  it('once its hold expires, before the sweeper ran: listed, and a neighbour that meets it is reserved', async () => {
    const b = await ground();
    const [first] = await slots(b);
    const held = await reserve(t, b.resource.reference, reserveBodyFor(first, b.product.uuid));
    expect(held.statusCode, held.body).toBe(201);
    expect(await listed(b)).toEqual([]);
    t.clock.advance(HOLD_MS + 1000);
    try {
      expect(await listed(b)).toEqual(free('09:00', '09:30'));
      const neighbour = (await slots(b))[1];
      const res = await reserve(t, b.resource.reference, reserveBodyFor(neighbour, b.product.uuid));
      expect(res.statusCode, res.body).toBe(201);
      expect(await listed(b)).toEqual([]);
    } finally {
      t.clock.advance(-(HOLD_MS + 1000));
    }
  });

  it('only when its last live participation goes: a group appointment with one place left still blocks', async () => {
    const b = await ground();
    await t.db.query(`UPDATE timeslots SET default_capacity = 2 WHERE resource_id = $1`, [b.resource.uuid]);
    const [first] = await slots(b);
    const one = await bookSlot(t, b, first);
    const lot = (await slots(b)).find((s) => s.kind === 'models.LotAppointment')!;
    expect(lot.capacity_left).toBe(1);
    await bookSlot(t, b, lot, consumer());
    expect((await publicCall(t, 'POST', `/cancel/${encodeURIComponent(one.token)}`)).statusCode).toBe(200);
    expect(await listed(b)).toEqual(['models.LotAppointment 09:00']);
    expect(await appointmentState(one.appointment_uuid)).toBe('ACTIVE');
  });
});

describe('what stays as it is', () => {
  it('an appointment the partner created (D6) keeps blocking when its participation is cancelled', async () => {
    const b = await ground();
    const created = await b.p.call('POST', `${b.base}/appointments`, {
      reference: 'partner-apt@crm',
      start: '2026-06-02T09:00',
      end: '2026-06-02T09:30',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
      capacity: 1,
      acceptBookings: false,
    });
    expect(created.statusCode, created.body).toBe(201);
    const customer = await b.p.call('POST', `${b.base}/customers`, {
      customerReference: 'cust@crm',
      providerReference: b.provider.providerRef,
      userName: 'Partner Guest',
      email: 'partner-guest@consumer.example',
    });
    expect(customer.statusCode, customer.body).toBe(201);
    const joined = await b.p.call('POST', `${b.base}/participations`, {
      reference: 'part@crm',
      appointmentReference: 'partner-apt@crm',
      customerReference: 'cust@crm',
      state: 'BOOKED',
    });
    expect(joined.statusCode, joined.body).toBe(201);
    const canceled = await b.p.call('POST', `${b.base}/participations/part%40crm`, { state: 'CANCELED' });
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(await listed(b)).toEqual(free('09:30'));
    expect(await appointmentState(created.json().appointments[0].uuid)).toBe('ACTIVE');
  });

  it('a released appointment leaves the calendar feed and shows as CANCELLED to the partner', async () => {
    const b = await ground();
    const feed = await b.p.call('POST', `${b.base}/calendar-feeds`, {});
    expect(feed.statusCode, feed.body).toBe(201);
    const feedPath = new URL(feed.json().feed.url).pathname;
    const booked = await bookFirst(b);
    expect((await t.app.inject({ method: 'GET', url: feedPath })).body).toContain(`UID:${booked.appointment_uuid}`);
    expect((await publicCall(t, 'POST', `/cancel/${encodeURIComponent(booked.token)}`)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: feedPath })).body).not.toContain(booked.appointment_uuid);
    const appointments = (await b.p.call('GET', `${b.base}/appointments`)).json() as { uuid: string; state: string }[];
    expect(appointments.find((a) => a.uuid === booked.appointment_uuid)?.state).toBe('CANCELLED');
  });
});
