/**
 * Events of every kind of change reach the crm's receiver (docs/webhooks.md): signed per Standard
 * Webhooks, with the contract's headers and body, from the public flow, the partner API, the
 * cancel link and hold expiry; filters and tenant isolation hold.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredHolds } from '../../src/booking/holdSweeper.js';
import { decisionLinkFor } from '../../src/notifications/cancelToken.js';
import { newPartner, uniqueId } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { createAppointment, createCustomer, participate, setupScheduling } from '../helpers/schedulingFixtures.js';
import { startWebhookTest, subscribe, type WebhookTest } from '../helpers/webhookFixtures.js';
import { verify, type Received } from '../helpers/webhookReceiver.js';

let t: WebhookTest;
beforeAll(async () => {
  // one request at a time per receiver: events arrive in the order they were written
  t = await startWebhookTest({}, { perEndpoint: 1 });
});
afterAll(() => t.close());

const day = DateTime.now().setZone('Europe/Berlin').plus({ days: 2 }).toISODate();
const path = () => `/${uniqueId('hook')}`;
const bodiesAt = (p: string) => t.receiver.events(p).map((e) => e.body);
const requestsAt = (p: string) => t.receiver.received.filter((r) => r.path === p);
const waitForCount = (p: string, n: number) => t.receiver.waitFor(() => requestsAt(p).length >= n);

async function slotOf(b: Booking, capacity = 2) {
  await createTimeslots(b, [{ start: `${day}T09:00`, end: `${day}T09:30`, defaultCapacity: capacity }]);
  const [slot] = flatten(await upcoming(t, b.resource.reference));
  return slot;
}

function expectSignedByContract(r: Received, secret: string) {
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  expect(String(r.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  expect(verify(secret, r)).toEqual(JSON.parse(r.body));
}

describe('events of the public flow', () => {
  it('reports a hold, its booking and the cancellation by link, signed, with the documented body', async () => {
    const b = await setupBooking(t);
    const at = path();
    const sub = await subscribe(b.p, `${t.receiver.url}${at}`);
    const slot = await slotOf(b);
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid));
    expect(held.statusCode, held.body).toBe(201);
    const who = consumer({ mobile: '+49 170 1234567' });
    const booked = await book(t, b.resource.reference, {
      ...bookBodyFor(slot, b.product.uuid, held.json().participation.customer_uuid, who),
      message: 'Bringing a friend',
    });
    expect(booked.statusCode, booked.body).toBe(201);
    const cancel = await t.app.inject({
      method: 'POST',
      url: new URL(booked.json().createdAppointment.cancelLink).pathname,
      payload: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(cancel.statusCode).toBe(200);

    await waitForCount(at, 4);
    for (const r of requestsAt(at)) expectSignedByContract(r, sub.secret);
    const [created, reserved, bookedEvent, canceled] = bodiesAt(at);
    expect(created.type).toBe('appointment.created');
    expect(created.data).toEqual({
      crmId: b.p.crmId,
      providerReference: b.provider.providerRef,
      source: 'public',
      appointment: {
        reference: expect.any(String),
        uuid: held.json().participation.appointment_uuid,
        start: slot.start,
        end: slot.end,
        resourceReference: b.resource.reference,
        productReference: b.product.reference,
        capacity: 2,
        capacityLeft: 1,
      },
    });
    expect(reserved).toMatchObject({
      type: 'participation.reserved',
      data: {
        source: 'public',
        participation: {
          uuid: held.json().participation.uuid,
          state: 'RESERVED',
          previousState: null,
          message: null,
          answers: [],
        },
        appointment: { capacityLeft: 1 },
        customer: null,
      },
    });
    expect(bookedEvent.type).toBe('participation.booked');
    expect(bookedEvent.data).toEqual({
      crmId: b.p.crmId,
      providerReference: b.provider.providerRef,
      poolReference: null,
      source: 'public',
      participation: {
        reference: expect.any(String),
        uuid: held.json().participation.uuid,
        state: 'BOOKED',
        previousState: 'RESERVED',
        message: 'Bringing a friend',
        answers: [],
      },
      appointment: created.data.appointment,
      customer: { reference: expect.any(String), name: 'Erika Muster', email: who.email, mobile: '+49 170 1234567' },
    });
    expect(canceled).toMatchObject({
      type: 'participation.canceled',
      data: {
        source: 'cancel-link',
        participation: { state: 'CANCELED', previousState: 'BOOKED' },
        appointment: { capacityLeft: 2 },
      },
    });
    for (const body of bodiesAt(at)) expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    expect(new Set(requestsAt(at).map((r) => r.headers['webhook-id'])).size).toBe(4);
  });

  it('reports a booking without a hold as a new participation of a new appointment', async () => {
    const b = await setupBooking(t, { resource: { channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } } });
    const at = path();
    await subscribe(b.p, `${t.receiver.url}${at}`);
    const slot = await slotOf(b, 1);
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid))).statusCode).toBe(201);
    await waitForCount(at, 2);
    expect(
      bodiesAt(at).map((e) => [e.type, e.data.participation?.previousState, e.data.appointment.capacityLeft]),
    ).toEqual([
      ['appointment.created', undefined, 0],
      ['participation.requested', null, 0],
    ]);
  });

  it('reports an expired hold as canceled by expiry when the sweeper removes it', async () => {
    const b = await setupBooking(t);
    const at = path();
    await subscribe(b.p, `${t.receiver.url}${at}`, { events: ['participation.canceled'] });
    const slot = await slotOf(b);
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid));
    expect(held.statusCode).toBe(201);
    const swept = await sweepExpiredHolds(t.db, new Date(Date.now() + t.config.reservationHoldSeconds * 1000 + 1000));
    expect(swept.holds).toBeGreaterThanOrEqual(1);
    await waitForCount(at, 1);
    expect(bodiesAt(at)).toEqual([
      expect.objectContaining({
        type: 'participation.canceled',
        data: expect.objectContaining({
          source: 'expiry',
          participation: {
            reference: expect.any(String),
            uuid: held.json().participation.uuid,
            state: 'CANCELED',
            previousState: 'RESERVED',
            message: null,
            answers: [],
          },
          customer: null,
        }),
      }),
    ]);
  });
});

describe('events of the partner API', () => {
  it('reports D6, D9, D10, D8 and D7 changes with source partner', async () => {
    const s = await setupScheduling(t);
    const at = path();
    await subscribe(s.p, `${t.receiver.url}${at}`);
    const customer = await createCustomer(s);
    const appt = await createAppointment(s, {
      start: `${day}T10:00`,
      end: `${day}T11:00`,
      capacity: 3,
      participations: [{ reference: 'inline-1@crm', name: 'Ida Inline', email: 'ida@example.com', state: 'BOOKED' }],
    });
    const requested = await participate(s, {
      appointmentReference: appt.reference,
      customerReference: customer.customerReference,
      state: 'REQUESTED',
      message: 'Please confirm',
    });
    expect(requested.statusCode, requested.body).toBe(201);
    const ref = requested.json().participation.reference;
    const confirmed = await s.p.call('POST', `${s.base}/participations/${encodeURIComponent(ref)}`, {
      state: 'BOOKED',
      message: 'See you',
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const same = await s.p.call('POST', `${s.base}/participations/${encodeURIComponent(ref)}`, { state: 'BOOKED' });
    expect(same.statusCode).toBe(200);
    const cancelled = await s.p.call(
      'DELETE',
      `${s.base}/appointments`,
      { appointmentReference: appt.reference },
      { message: 'Storm' },
    );
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const other = await createAppointment(s, {
      start: `${day}T12:00`,
      end: `${day}T13:00`,
      participations: [{ reference: 'inline-2@crm', name: 'Ida Inline', email: 'ida@example.com', state: 'BOOKED' }],
    });
    const removed = await s.p.call('DELETE', `${s.base}/appointments/withoutNotification`, {
      appointmentReference: other.reference,
    });
    expect(removed.statusCode).toBe(200);

    await waitForCount(at, 10);
    await new Promise((r) => setTimeout(r, 200)); // nothing more arrives (the repeated state sent none)
    const summary = bodiesAt(at).map((e) => [
      e.type,
      e.data.source,
      e.data.participation?.state,
      e.data.participation?.previousState,
      e.data.participation?.message,
    ]);
    expect(summary).toEqual([
      ['appointment.created', 'partner', undefined, undefined, undefined],
      ['participation.booked', 'partner', 'BOOKED', null, null],
      ['participation.requested', 'partner', 'REQUESTED', null, 'Please confirm'],
      ['participation.booked', 'partner', 'BOOKED', 'REQUESTED', 'See you'],
      ['appointment.cancelled', 'partner', undefined, undefined, undefined],
      ['participation.canceled', 'partner', 'CANCELED', 'BOOKED', 'Storm'],
      ['participation.canceled', 'partner', 'CANCELED', 'BOOKED', 'Storm'],
      ['appointment.created', 'partner', undefined, undefined, undefined],
      ['participation.booked', 'partner', 'BOOKED', null, null],
      ['participation.deleted', 'partner', 'DELETED', 'BOOKED', null],
    ]);
    const inline = bodiesAt(at)[1].data;
    expect(inline.customer).toMatchObject({ name: 'Ida Inline', email: 'ida@example.com' });
    expect(inline.appointment).toMatchObject({
      reference: appt.reference,
      capacity: 3,
      capacityLeft: 2,
      start: appt.start,
      end: appt.end,
    });
    expect(
      bodiesAt(at)
        .slice(5, 7)
        .map((e) => e.data.appointment.capacityLeft),
    ).toEqual([2, 3]); // as of each change
  });
});

describe('filters and isolation', () => {
  it('sends a subscription only the types it asked for, a disabled one nothing, and another crm nothing', async () => {
    const b = await setupBooking(t);
    const intruder = await newPartner(t);
    const [all, onlyBooked, disabled, foreign] = [path(), path(), path(), path()];
    await subscribe(b.p, `${t.receiver.url}${all}`);
    await subscribe(b.p, `${t.receiver.url}${onlyBooked}`, { events: ['participation.booked'] });
    const off = await subscribe(b.p, `${t.receiver.url}${disabled}`);
    expect((await b.p.call('PUT', `/webhooks/${off.id}`, { enabled: false })).statusCode).toBe(200);
    await subscribe(intruder, `${t.receiver.url}${foreign}`);

    const slot = await slotOf(b);
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid));
    expect(
      (await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, held.json().participation.customer_uuid)))
        .statusCode,
    ).toBe(201);
    await waitForCount(all, 3);
    await waitForCount(onlyBooked, 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(bodiesAt(all).map((e) => e.type)).toEqual([
      'appointment.created',
      'participation.reserved',
      'participation.booked',
    ]);
    expect(bodiesAt(onlyBooked).map((e) => e.type)).toEqual(['participation.booked']);
    expect(requestsAt(disabled)).toEqual([]);
    expect(requestsAt(foreign)).toEqual([]);
    // the same event reaches both subscriptions under the same id
    expect(requestsAt(onlyBooked)[0].headers['webhook-id']).toBe(requestsAt(all)[2].headers['webhook-id']);
  });

  it('writes no event for a crm without subscriptions', async () => {
    const b = await setupBooking(t);
    const slot = await slotOf(b);
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid))).statusCode).toBe(201);
    const [{ n }] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE crm_id = $1', [
      b.p.crmId,
    ]);
    expect(n).toBe(0);
  });
});

describe('events of a decision link', () => {
  it('reports the provider confirming a request by link with source decision-link', async () => {
    const s = await setupScheduling(t);
    const at = path();
    await subscribe(s.p, `${t.receiver.url}${at}`);
    const appointment = await createAppointment(s, { start: `${day}T10:00`, end: `${day}T11:00`, capacity: 1 });
    const customer = await createCustomer(s);
    const reference = `${uniqueId('part')}@crm`;
    const requested = await participate(s, {
      reference,
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
      state: 'REQUESTED',
    });
    expect(requested.statusCode, requested.body).toBe(201);
    const [row] = await t.db.query<{ id: string }>(
      'SELECT id FROM participations WHERE crm_id = $1 AND reference = $2',
      [s.p.crmId, reference],
    );
    const link = await decisionLinkFor(t.db, t.config, row.id);
    const res = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      payload: 'decision=confirm',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode, res.body).toBe(200);

    await t.receiver.waitFor(() => bodiesAt(at).some((b) => b.type === 'participation.booked'));
    const booked = bodiesAt(at).find((b) => b.type === 'participation.booked')!;
    expect(booked.data).toMatchObject({
      source: 'decision-link',
      participation: { reference, state: 'BOOKED', previousState: 'REQUESTED' },
    });
  });
});
