/**
 * A1 answers from a cache keyed by per-resource listing versions (migration 004 triggers). Every
 * change that can alter a listing must show at once, on this instance and on another one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { currentBackend } from '../helpers/db.js';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  createTimeslots,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { expectError } from '../helpers/conformance.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: 1_000 });
});
afterAll(() => t.close());

const list = async (b: Booking, query?: Record<string, string>) => flatten(await upcoming(t, b.resource.uuid, query));
const enc = encodeURIComponent;

async function groupAppointment(b: Booking, capacity = 3) {
  const reference = `${uniqueId('apt')}@crm`;
  const res = await b.p.call('POST', `${b.base}/appointments`, {
    reference,
    start: '2026-06-04T09:00',
    end: '2026-06-04T09:30',
    resourceReference: b.resource.reference,
    productReference: b.product.reference,
    capacity,
    acceptBookings: true,
  });
  expect(res.statusCode, res.body).toBe(201);
  return reference;
}

describe('the A1 listing cache', () => {
  it('shows new, changed and hidden timeslots at once', async () => {
    const b = await setupBooking(t);
    const [ts] = await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00' }]);
    expect(await list(b)).toHaveLength(2);
    await createTimeslots(b, [{ start: '2026-06-03T09:00', end: '2026-06-03T09:30' }]);
    expect(await list(b)).toHaveLength(3);
    const hide = await b.p.call('PUT', `${b.base}/timeslots/${enc(ts.reference)}`, { state: 'CREATED' });
    expect(hide.statusCode, hide.body).toBe(200);
    expect(await list(b)).toHaveLength(1);
  });

  it('shows appointments and participations of the partner API at once', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-04T08:00', end: '2026-06-04T10:00' }]);
    expect(await list(b)).toHaveLength(4);
    const appointment = await groupAppointment(b);
    expect((await list(b)).map((x) => [x.kind, x.capacity_left])).toEqual([
      ['models.Bookable', 1],
      ['models.Bookable', 1],
      ['models.LotAppointment', 3],
      ['models.Bookable', 1],
    ]);
    const customer = await b.p.call('POST', `${b.base}/customers`, {
      customerReference: `${uniqueId('c')}@crm`,
      providerReference: b.provider.providerRef,
      userName: 'Eva',
      email: `${uniqueId('e')}@example.com`,
    });
    const participation = `${uniqueId('part')}@crm`;
    const added = await b.p.call('POST', `${b.base}/participations`, {
      reference: participation,
      appointmentReference: appointment,
      customerReference: customer.json().customer.customerReference,
      state: 'BOOKED',
    });
    expect(added.statusCode, added.body).toBe(201);
    expect((await list(b))[2].capacity_left).toBe(2);
    const cancelled = await b.p.call('POST', `${b.base}/participations/${enc(participation)}`, { state: 'CANCELED' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect((await list(b))[2].capacity_left).toBe(3);
  });

  it('shows product, resource, contact and provider changes at once', async () => {
    const b = await setupBooking(t, { resource: { contact: undefined } });
    await createTimeslots(b, [{}]);
    const first = async () => (await list(b))[0] as unknown as Record<string, unknown>;
    expect(await first()).toMatchObject({
      product_name: 'Viewing',
      resource_name: 'Flat Main Street 1',
      contact_channel: null,
      start: '2026-06-02T09:00:00+02:00',
    });
    await b.p.call('POST', `${b.base}/products/${enc(b.product.reference)}`, { name: 'Open house' });
    expect(await first()).toMatchObject({ product_name: 'Open house' });
    await b.p.call('POST', `${b.base}/resources/${enc(b.resource.reference)}`, {
      publicName: 'Renamed flat',
      contact: b.provider.ownerRef,
      contactChannelType: 'phone',
    });
    expect(await first()).toMatchObject({ resource_name: 'Renamed flat', contact_channel: null });
    await b.p.call('PUT', `/user/${enc(b.provider.ownerRef)}/generalContactProfile`, {
      name: 'Olga',
      contactChannels: [{ type: 'phone', value: '+49301111' }],
    });
    expect(await first()).toMatchObject({ contact_channel: { type: 'phone', value: '+49301111' } });
    await b.p.call('PUT', `/user/${enc(b.provider.ownerRef)}/generalContactProfile`, {
      name: 'Olga',
      contactChannels: [{ type: 'phone', value: '+49302222' }],
    });
    expect(await first()).toMatchObject({ contact_channel: { type: 'phone', value: '+49302222' } });
    const zone = await b.p.call('PUT', `/provider/${enc(b.provider.providerRef)}`, { timeZone: 'Europe/London' });
    expect(zone.statusCode, zone.body).toBe(200);
    expect(await first()).toMatchObject({ start: '2026-06-02T08:00:00+01:00' });
    await b.p.call('POST', `${b.base}/resources/${enc(b.resource.reference)}`, { archived: true });
    expect((await upcoming(t, b.resource.uuid)).statusCode).toBe(204);
  });

  it('answers 404 at once for a deleted resource, by UUID and by reference, listed or empty before', async () => {
    const listed = await setupBooking(t);
    await createTimeslots(listed, [{}]);
    const empty = await setupBooking(t);
    for (const b of [listed, empty]) {
      const status = b === listed ? 200 : 204;
      for (let i = 0; i < 2; i++) {
        // the second answer of each comes from the cache, checked against the versions
        expect((await upcoming(t, b.resource.uuid)).statusCode).toBe(status);
        expect((await upcoming(t, b.resource.reference)).statusCode).toBe(status);
      }
      expect((await b.p.call('DELETE', `${b.base}/resources/${enc(b.resource.reference)}`)).statusCode).toBe(204);
      expect(expectError(await upcoming(t, b.resource.uuid), 404, 'NOT_FOUND').message).toContain(b.resource.uuid);
      expect((await upcoming(t, b.resource.reference)).statusCode).toBe(404);
    }
  });

  it('lets an expired hold free its place and a started slot leave the list, with no database change', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-01T10:30', end: '2026-06-01T11:30' }]);
    const [slot] = await list(b);
    expect((await reserve(t, b.resource.uuid, reserveBodyFor(slot, b.product.uuid))).statusCode).toBe(201);
    expect((await list(b)).map((x) => x.start)).toEqual(['2026-06-01T11:00:00+02:00']);
    try {
      t.clock.advance(181_000);
      expect((await list(b)).map((x) => [x.kind, x.start])).toEqual([
        ['models.Bookable', '2026-06-01T10:30:00+02:00'],
        ['models.Bookable', '2026-06-01T11:00:00+02:00'],
      ]);
      t.clock.set('2026-06-01T08:30:00Z'); // 10:30 in Berlin: that slot has started
      expect((await list(b)).map((x) => x.start)).toEqual(['2026-06-01T11:00:00+02:00']);
      t.clock.set('2026-06-01T08:00:00Z'); // and a clock set back is not served a later answer
      expect(await list(b)).toHaveLength(1);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('keeps separate answers per query: prdRef, channel, patterns and locale', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{}]);
    const plain = await upcoming(t, b.resource.uuid);
    const formatted = await upcoming(t, b.resource.uuid, { groupFormat: 'MMMM', languageTag: 'en_US' });
    const exclusive = await upcoming(t, b.resource.uuid, { channelKey: 'RESOURCE_EXCLUSIVE' });
    expect(Object.keys(plain.json())).toContain('2026-06-02');
    expect(Object.keys(formatted.json())).toContain('June');
    expect(exclusive.json().public_visible).toBe(false);
    expect((await upcoming(t, b.resource.uuid)).body).toBe(plain.body);
  });
});

describe.runIf(currentBackend() === 'postgres')('the A1 listing cache with two service instances', () => {
  let other: App;
  beforeAll(async () => {
    other = await buildApp({ config: t.config, db: await t.database.openAnother(), clock: t.clock, logger: false });
    await other.ready();
  });
  afterAll(() => other.close());

  it('shows a booking made on one instance at once on the other', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30', defaultCapacity: 2 }]);
    const listOnOther = async () =>
      flatten(await other.inject({ method: 'GET', url: `/resources/${b.resource.uuid}/upcoming_bookables` }));
    const [slot] = await listOnOther();
    expect(slot.capacity_left).toBe(2);
    expect((await book(t, b.resource.uuid, bookBodyFor(slot, b.product.uuid))).statusCode).toBe(201);
    expect((await listOnOther())[0]).toMatchObject({ kind: 'models.LotAppointment', capacity_left: 1 });
  });
});
