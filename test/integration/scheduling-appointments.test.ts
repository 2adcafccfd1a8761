import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { createProduct, createResource } from '../helpers/offeringsFixtures.js';
import {
  createAppointment,
  createCustomer,
  outboxOf,
  setupScheduling,
  type Scheduling,
} from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const single = (s: Scheduling, over: object = {}) => ({
  reference: `${uniqueId('apt')}@crm`,
  start: '2026-07-01T10:00',
  end: '2026-07-01T11:00',
  resourceReference: s.resourceRef,
  productReference: s.productRef,
  ...over,
});

const post = (s: Scheduling, body: object, query?: Record<string, string>) =>
  s.p.call('POST', `${s.base}/appointments`, body, query);
const list = (s: Scheduling, query?: Record<string, string>) =>
  s.p.call('GET', `${s.base}/appointments`, undefined, query);

describe('D6 create a single appointment', () => {
  it('creates it with 201, defaults capacity 0 and acceptBookings false, and answers every field', async () => {
    const s = await setupScheduling(t, {
      resource: { address: { city: 'Köln', street: 'Ring', number: '5', zip: '50667' } },
    });
    const body = single(s);
    const res = await post(s, body);
    expect(res.statusCode, res.body).toBe(201);
    const json = res.json();
    expect(json['api-info']).toEqual({ version: '1' });
    expect(json.appointments).toEqual([
      {
        reference: body.reference,
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        start: '2026-07-01T10:00:00+02:00',
        end: '2026-07-01T11:00:00+02:00',
        capacity: 0,
        capacityLeft: 0,
        acceptBookings: false,
        state: 'ACTIVE',
        seriesId: null,
        archived: false,
        description: null,
        notes: null,
        productReference: s.productRef,
        productName: 'Viewing',
        resourceReference: s.resourceRef,
        contactReference: null,
        address: { city: 'Köln', street: 'Ring', number: '5', zip: '50667', countryCode: 'DE' },
        price: null,
        participations: [],
      },
    ]);
  });

  it('stores productName, contact, address, price, description and notes as given', async () => {
    const s = await setupScheduling(t);
    const res = await post(
      s,
      single(s, {
        capacity: 4,
        acceptBookings: true,
        productName: 'Open house',
        contactReference: s.provider.ownerRef,
        address: { city: 'Bern', street: 'Gasse', number: '2', zip: '3000', country: 'CH' },
        price: { value: 12.5, currency: 'CHF' },
        description: 'Bring ID',
        notes: 'Key at the desk',
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().appointments[0]).toMatchObject({
      capacity: 4,
      capacityLeft: 4,
      acceptBookings: true,
      productName: 'Open house',
      contactReference: s.provider.ownerRef,
      address: { city: 'Bern', street: 'Gasse', number: '2', zip: '3000', countryCode: 'CH' },
      price: { value: 12.5, currency: 'CHF' },
      description: 'Bring ID',
      notes: 'Key at the desk',
    });
  });

  it('accepts a text address', async () => {
    const s = await setupScheduling(t);
    const res = await post(s, single(s, { address: 'https://meet.example/abc' }));
    expect(res.json().appointments[0].address).toBe('https://meet.example/abc');
  });

  it('refuses an appointment overlapping another on the resource (409 naming it); allows touching ones', async () => {
    const s = await setupScheduling(t);
    const first = await createAppointment(s, { start: '2026-07-01T10:00', end: '2026-07-01T11:00' });
    const clash = await post(s, single(s, { start: '2026-07-01T10:30', end: '2026-07-01T11:30' }));
    expect(clash.statusCode).toBe(409);
    expect(clash.json().errors[0]).toMatchObject({ errorCode: 'CONFLICT' });
    expect(clash.json().errors[0].message).toContain(first.reference);
    expect((await post(s, single(s, { start: '2026-07-01T11:00', end: '2026-07-01T12:00' }))).statusCode).toBe(201);
  });

  it('allows the same time on another resource and over a cancelled appointment', async () => {
    const s = await setupScheduling(t);
    const first = await createAppointment(s);
    const other = await createResource(s.p, s.provider.providerRef);
    expect((await post(s, single(s, { resourceReference: other.reference }))).statusCode).toBe(201);
    await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: first.reference });
    expect((await post(s, single(s))).statusCode).toBe(201);
  });

  it('answers 409 for a reference that exists', async () => {
    const s = await setupScheduling(t);
    const first = await createAppointment(s);
    const res = await post(
      s,
      single(s, { reference: first.reference, start: '2026-08-01T10:00', end: '2026-08-01T11:00' }),
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].message).toContain(first.reference);
  });

  it.each([
    ['reference', { reference: undefined }, 'body.reference is required'],
    ['start', { start: undefined }, 'body.start is required'],
    ['end', { end: undefined }, 'body.end is required'],
    ['resourceReference', { resourceReference: undefined }, 'body.resourceReference is required'],
    ['productReference', { productReference: undefined }, 'body.productReference is required'],
  ])('requires %s with 400', async (_field, over, message) => {
    const s = await setupScheduling(t);
    const res = await post(s, single(s, over));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain(message);
  });

  it.each([
    ['an end before the start', { end: '2026-07-01T09:00' }, 'body.end must be after body.start'],
    ['a negative capacity', { capacity: -1 }, 'body.capacity'],
    ['an unknown currency', { price: { value: 1, currency: 'USD' } }, 'body.price.currency must be one of EUR, CHF'],
    ['a price without value', { price: { currency: 'EUR' } }, 'body.price.value is required'],
    ['an invalid time', { start: '1.7.2026' }, 'body.start must be an ISO 8601'],
    [
      'a participation without reference',
      { participations: [{ name: 'A', email: 'a@example.com', state: 'BOOKED' }] },
      'body.participations.0.reference is required',
    ],
    [
      'a participation with an unknown state',
      { participations: [{ reference: 'x', name: 'A', email: 'a@example.com', state: 'DONE' }] },
      'body.participations.0.state',
    ],
  ])('rejects %s with 400', async (_what, over, message) => {
    const s = await setupScheduling(t);
    const res = await post(s, single(s, over));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain(message);
  });

  it.each([
    ['provider', (s: Scheduling) => s.p.call('POST', '/provider/none@crm/appointments', single(s)), 'provider'],
    ['resource', (s: Scheduling) => post(s, single(s, { resourceReference: 'none@crm' })), 'resource'],
    ['product', (s: Scheduling) => post(s, single(s, { productReference: 'none@crm' })), 'product'],
    ['contact user', (s: Scheduling) => post(s, single(s, { contactReference: 'none@crm' })), 'contactReference'],
  ])('answers 404 for an unknown %s', async (_what, call, message) => {
    const s = await setupScheduling(t);
    const res = await call(s);
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].message).toContain(message);
  });

  it('refuses an appointment on an archived resource with 409', async () => {
    const s = await setupScheduling(t);
    await s.p.call('POST', `${s.base}/resources/${encodeURIComponent(s.resourceRef)}`, { archived: true });
    expect((await post(s, single(s))).statusCode).toBe(409);
  });
});

describe('D6 inline participations', () => {
  it('creates customers by email, reuses an existing one, and lists the participants', async () => {
    const s = await setupScheduling(t);
    const known = await createCustomer(s, { userName: 'Known', email: 'known@example.com' });
    const res = await post(
      s,
      single(s, {
        capacity: 3,
        participations: [
          {
            reference: 'p1@crm',
            name: 'Anna',
            email: 'anna@example.com',
            mobile: '+49 170 1111111',
            note: 'wheelchair',
            state: 'BOOKED',
          },
          { reference: 'p2@crm', name: 'Known again', email: 'KNOWN@example.com', state: 'REQUESTED' },
          { reference: 'p3@crm', name: 'Gone', email: 'gone@example.com', state: 'CANCELED' },
        ],
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const apt = res.json().appointments[0];
    expect(apt.capacityLeft).toBe(1);
    expect(apt.participations).toEqual([
      {
        reference: 'p1@crm',
        uuid: expect.any(String),
        customerReference: expect.stringMatching(/^customer-/),
        name: 'Anna',
        email: 'anna@example.com',
        mobile: '+49 170 1111111',
        note: 'wheelchair',
        state: 'BOOKED',
        messages: [],
        answers: [],
      },
      {
        reference: 'p2@crm',
        uuid: expect.any(String),
        customerReference: known.customerReference,
        name: 'Known',
        email: 'known@example.com',
        mobile: null,
        note: null,
        state: 'REQUESTED',
        messages: [],
        answers: [],
      },
      {
        reference: 'p3@crm',
        uuid: expect.any(String),
        customerReference: expect.stringMatching(/^customer-/),
        name: 'Gone',
        email: 'gone@example.com',
        mobile: null,
        note: null,
        state: 'CANCELED',
        messages: [],
        answers: [],
      },
    ]);
    const created = await s.p.call(
      'GET',
      `${s.base}/customers/${encodeURIComponent(apt.participations[0].customerReference)}`,
    );
    expect(created.json().customer).toMatchObject({
      userName: 'Anna',
      email: 'anna@example.com',
      mobile: '+49 170 1111111',
    });
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it('enforces the capacity for inline participations (409, nothing created) unless ignoreCapacity', async () => {
    const s = await setupScheduling(t);
    const people = [
      { reference: 'a@crm', name: 'A', email: 'a@example.com', state: 'BOOKED' },
      { reference: 'b@crm', name: 'B', email: 'b@example.com', state: 'BOOKED' },
    ];
    const body = single(s, { capacity: 1, participations: people });
    const full = await post(s, body);
    expect(full.statusCode).toBe(409);
    expect(full.json().errors[0].errorCode).toBe('CAPACITY_EXHAUSTED');
    expect((await list(s)).json()).toEqual([]);
    const forced = await post(s, body, { ignoreCapacity: 'true' });
    expect(forced.statusCode, forced.body).toBe(201);
    expect(forced.json().appointments[0]).toMatchObject({ capacity: 1, capacityLeft: 0 });
    expect(forced.json().appointments[0].participations).toHaveLength(2);
  });

  it('refuses the same person twice in one appointment with 409 AppointmentAlreadyBookedException', async () => {
    const s = await setupScheduling(t);
    const res = await post(
      s,
      single(s, {
        capacity: 5,
        participations: [
          { reference: 'a@crm', name: 'A', email: 'same@example.com', state: 'BOOKED' },
          { reference: 'b@crm', name: 'A', email: 'same@example.com', state: 'REQUESTED' },
        ],
      }),
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].errorCode).toBe('AppointmentAlreadyBookedException');
  });
});

describe('D5 list appointments', () => {
  it('answers a bare array of active and cancelled appointments in time order, archived only on request', async () => {
    const s = await setupScheduling(t);
    const later = await createAppointment(s, { start: '2026-07-02T10:00', end: '2026-07-02T11:00' });
    const earlier = await createAppointment(s, { start: '2026-07-01T10:00', end: '2026-07-01T11:00' });
    const cancelled = await createAppointment(s, { start: '2026-07-03T10:00', end: '2026-07-03T11:00' });
    const archived = await createAppointment(s, { start: '2026-07-04T10:00', end: '2026-07-04T11:00' });
    await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: cancelled.reference });
    await t.db.query('UPDATE appointments SET archived = true WHERE id = $1', [archived.uuid]);

    const res = await list(s);
    expect(res.statusCode).toBe(200);
    expect(Array.isArray(res.json())).toBe(true);
    expect(res.json().map((a: { reference: string; state: string }) => [a.reference, a.state])).toEqual([
      [earlier.reference, 'ACTIVE'],
      [later.reference, 'ACTIVE'],
      [cancelled.reference, 'CANCELLED'],
    ]);
    const all = await list(s, { includeArchived: 'true' });
    expect(all.json().map((a: { reference: string }) => a.reference)).toContain(archived.reference);
    expect(all.json().find((a: { reference: string }) => a.reference === archived.reference).archived).toBe(true);
  });

  it('filters by resourceRef and productRef', async () => {
    const s = await setupScheduling(t);
    const product2 = await createProduct(s.p, s.provider.providerRef);
    const resource2 = await createResource(s.p, s.provider.providerRef, { products: [product2.reference] });
    const a = await createAppointment(s);
    const b = await createAppointment(s, {
      resourceReference: resource2.reference,
      productReference: product2.reference,
    });
    const refs = async (q: Record<string, string>) =>
      (await list(s, q)).json().map((x: { reference: string }) => x.reference);
    expect(await refs({ resourceRef: s.resourceRef })).toEqual([a.reference]);
    expect(await refs({ productRef: product2.reference })).toEqual([b.reference]);
    expect(await refs({ productRef: product2.reference, resourceRef: s.resourceRef })).toEqual([]);
  });

  it('answers 404 for an unknown filter reference and 400 for a malformed includeArchived', async () => {
    const s = await setupScheduling(t);
    expect((await list(s, { resourceRef: 'none@crm' })).statusCode).toBe(404);
    expect((await list(s, { productRef: 'none@crm' })).statusCode).toBe(404);
    const bad = await list(s, { includeArchived: 'maybe' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].message).toContain('query.includeArchived');
  });

  it('shows another partner nothing', async () => {
    const s = await setupScheduling(t);
    await createAppointment(s);
    const other = await setupScheduling(t);
    expect((await other.p.call('GET', `${s.base}/appointments`)).statusCode).toBe(404);
    expect((await list(other)).json()).toEqual([]);
  });
});
