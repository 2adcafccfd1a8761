import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
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
import { createProduct, createResource } from '../helpers/offeringsFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: 1_000 });
});
afterAll(() => t.close());

const starts = (res: Awaited<ReturnType<typeof upcoming>>) => flatten(res).map((b) => b.start);

/** D6: an appointment set up by the provider. */
async function providerAppointment(b: Booking, over: object) {
  const res = await b.p.call('POST', `${b.base}/appointments`, {
    reference: `${uniqueId('apt')}@crm`,
    resourceReference: b.resource.reference,
    productReference: b.product.reference,
    capacity: 3,
    acceptBookings: true,
    ...over,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().appointments[0];
}

describe('A1 upcoming_bookables', () => {
  it('lists the raster slots of a bookable timeslot, by day, with every member of models.Bookable', async () => {
    const b = await setupBooking(t);
    const [ts] = await createTimeslots(b, [
      { start: '2026-06-02T09:00', end: '2026-06-02T10:00' },
      { start: '2026-06-03T09:00', end: '2026-06-03T09:30' },
    ]);
    const res = await upcoming(t, b.resource.reference);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['2026-06-02', '2026-06-03', 'public_visible']);
    expect(body.public_visible).toBe(true);
    expect(body['2026-06-02']).toEqual([
      {
        kind: 'models.Bookable',
        timeslot_uuid: ts.uuid,
        product_uuid: b.product.uuid,
        resource_uuid: b.resource.uuid,
        product_name: 'Viewing',
        resource_name: 'Flat Main Street 1',
        start: '2026-06-02T09:00:00+02:00',
        end: '2026-06-02T09:30:00+02:00',
        formattedStart: '2026-06-02 09:00',
        formattedEnd: '2026-06-02 09:30',
        contact_channel: null,
        capacity: 1,
        capacity_left: 1,
        products: [{ uuid: b.product.uuid, name: 'Viewing' }],
      },
      expect.objectContaining({ start: '2026-06-02T09:30:00+02:00', end: '2026-06-02T10:00:00+02:00' }),
    ]);
    expect(body['2026-06-03']).toHaveLength(1);
  });

  it('answers 204 with an empty body when nothing is bookable', async () => {
    const b = await setupBooking(t);
    const res = await upcoming(t, b.resource.reference);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
  });

  it('accepts the full, the short and the UUID form of the resource reference', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{}]);
    const [id, platform] = b.resource.reference.split('@');
    for (const ref of [b.resource.reference, `${id}@${b.provider.providerUuid}@${platform}`, b.resource.uuid]) {
      expect(flatten(await upcoming(t, ref)), ref).toHaveLength(4);
    }
  });

  it('asks for the full form when two providers share a short reference, and 404s an unknown resource', async () => {
    const first = await setupBooking(t);
    const reference = first.resource.reference;
    const second = await setupBooking(t, { resource: { reference } });
    const ambiguous = await upcoming(t, reference);
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json().errors[0].message).toMatch(/resourceId@providerUuid@platform/);
    const [id, platform] = reference.split('@');
    expect(flatten(await upcoming(t, `${id}@${second.provider.providerUuid}@${platform}`))).toEqual([]);
    for (const unknown of [
      'nobody@nowhere',
      '00000000-0000-4000-8000-000000000000',
      `${id}@00000000-0000-4000-8000-000000000000@${platform}`,
      'no-at-sign',
    ]) {
      const res = await upcoming(t, unknown);
      expect(res.statusCode, unknown).toBe(404);
      expect(res.json()).toEqual({
        'api-info': { version: '1' },
        errors: [{ errorCode: 'NOT_FOUND', message: expect.stringContaining(unknown) }],
      });
    }
  });

  it('answers 204 for an archived resource', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{}]);
    const archive = await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      archived: true,
    });
    expect(archive.statusCode, archive.body).toBe(202);
    expect((await upcoming(t, b.resource.reference)).statusCode).toBe(204);
  });

  it('hides CREATED timeslots, ones without bookings or capacity, past slots and slots beyond 90 days', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [
      { start: '2026-06-02T09:00', end: '2026-06-02T10:00', state: 'CREATED' },
      { start: '2026-06-02T10:00', end: '2026-06-02T11:00', defaultAcceptBookings: false },
      { start: '2026-06-02T11:00', end: '2026-06-02T12:00', defaultCapacity: 0 },
      // now is 2026-06-01T10:00 in Berlin: only 10:30 and later start in the future
      { start: '2026-06-01T09:30', end: '2026-06-01T11:30' },
      { start: '2026-08-29T09:00', end: '2026-08-29T09:30' },
      { start: '2026-08-31T09:00', end: '2026-08-31T09:30' },
    ]);
    expect(starts(await upcoming(t, b.resource.reference))).toEqual([
      '2026-06-01T10:30:00+02:00',
      '2026-06-01T11:00:00+02:00',
      '2026-08-29T09:00:00+02:00',
    ]);
  });

  it('skips slots overlapping an appointment; a group one with free places is a models.LotAppointment', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', defaultCapacity: 3 }]);
    const group = await providerAppointment(b, { start: '2026-06-02T09:30', end: '2026-06-02T10:00', capacity: 3 });
    await providerAppointment(b, {
      start: '2026-06-02T10:00',
      end: '2026-06-02T10:30',
      capacity: 1,
      acceptBookings: false,
    });
    const list = flatten(await upcoming(t, b.resource.reference));
    expect(list.map((x) => [x.kind, x.start])).toEqual([
      ['models.Bookable', '2026-06-02T09:00:00+02:00'],
      ['models.LotAppointment', '2026-06-02T09:30:00+02:00'],
      ['models.Bookable', '2026-06-02T10:30:00+02:00'],
    ]);
    // a provider's appointment has no timeslot of its own: timeslot_uuid is the appointment's UUID, which A3 accepts
    expect(list[1]).toMatchObject({
      appointment_uuid: group.uuid,
      timeslot_uuid: group.uuid,
      product_uuid: b.product.uuid,
      capacity: 3,
      capacity_left: 3,
    });
    expect(list[0]).not.toHaveProperty('appointment_uuid');
  });

  it('counts live holds and bookings against a group appointment and stops listing it when full', async () => {
    const b = await setupBooking(t);
    const group = await providerAppointment(b, { start: '2026-06-02T09:30', end: '2026-06-02T10:00', capacity: 2 });
    const [listed] = flatten(await upcoming(t, b.resource.reference));
    expect(listed).toMatchObject({ appointment_uuid: group.uuid, capacity_left: 2 });
    const held = await reserve(t, b.resource.reference, reserveBodyFor(listed, b.product.uuid));
    expect(held.statusCode, held.body).toBe(201);
    expect(flatten(await upcoming(t, b.resource.reference))[0].capacity_left).toBe(1);
    expect((await book(t, b.resource.reference, bookBodyFor(listed, b.product.uuid))).statusCode).toBe(201);
    expect((await upcoming(t, b.resource.reference)).statusCode).toBe(204);
  });

  it('loads several resources at once with the repeatable ref parameter', async () => {
    const b = await setupBooking(t);
    const other = await createResource(b.p, b.provider.providerRef, {
      products: [b.product.reference],
      publicName: 'Other flat',
    });
    await createTimeslots(b, [
      { start: '2026-06-02T09:00', end: '2026-06-02T10:00' },
      { resourceReference: other.reference, start: '2026-06-02T09:30', end: '2026-06-02T10:30' },
    ]);
    const list = flatten(await upcoming(t, b.resource.reference, { ref: [other.uuid, b.resource.uuid] }));
    // ordered by start; at the same start by resource (UUID order, so compare as a sorted list)
    expect(list.map((x) => [x.start, (x as unknown as { resource_name: string }).resource_name]).sort()).toEqual([
      ['2026-06-02T09:00:00+02:00', 'Flat Main Street 1'],
      ['2026-06-02T09:30:00+02:00', 'Flat Main Street 1'],
      ['2026-06-02T09:30:00+02:00', 'Other flat'],
      ['2026-06-02T10:00:00+02:00', 'Other flat'],
    ]);
    expect((await upcoming(t, b.resource.reference, { ref: 'unknown@nowhere' })).statusCode).toBe(404);
  });

  it('with prdRef keeps the product, honours its minimum duration and its lead and follow-up buffers', async () => {
    const b = await setupBooking(t);
    const long = await createProduct(b.p, b.provider.providerRef, {
      name: 'Long visit',
      minDuration: 60,
      leadTimeMinutes: 30,
      followUpTimeMinutes: 30,
    });
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      products: [b.product.reference, long.reference],
    });
    await createTimeslots(b, [{ start: '2026-06-02T08:00', end: '2026-06-02T12:00' }]);
    await providerAppointment(b, { start: '2026-06-02T11:30', end: '2026-06-02T12:00', capacity: 1 });
    for (const prdRef of [long.reference, long.uuid]) {
      const list = flatten(await upcoming(t, b.resource.reference, { prdRef }));
      // 60-minute slots on the 30-minute raster; 10:00-11:00 would
      // end its follow-up at 11:30: fine; 10:30-11:30 would not be.
      expect(list.map((x) => `${x.start.slice(11, 16)}-${x.end.slice(11, 16)}`)).toEqual([
        '08:00-09:00',
        '08:30-09:30',
        '09:00-10:00',
        '09:30-10:30',
        '10:00-11:00',
      ]);
      expect(
        list.every(
          (x) =>
            x.product_uuid === long.uuid && (x as unknown as { product_name: string }).product_name === 'Long visit',
        ),
      ).toBe(true);
    }
  });

  it('lists nothing for a prdRef the resource does not offer, and 404s an unknown prdRef', async () => {
    const b = await setupBooking(t);
    const foreign = await createProduct(b.p, b.provider.providerRef, { name: 'Not here' });
    await createTimeslots(b, [{}]);
    expect((await upcoming(t, b.resource.reference, { prdRef: foreign.uuid })).statusCode).toBe(204);
    const unknown = await upcoming(t, b.resource.reference, { prdRef: 'nothing@nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errors[0].message).toContain('query.prdRef');
  });

  it('shows product_uuid null, and the products, for a resource with several products and no prdRef', async () => {
    const b = await setupBooking(t);
    const second = await createProduct(b.p, b.provider.providerRef, { name: 'Second' });
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      products: [b.product.reference, second.reference],
    });
    await createTimeslots(b, [{}]);
    const [first] = flatten(await upcoming(t, b.resource.reference));
    expect(first).toMatchObject({ product_uuid: null, product_name: '' });
    expect((first as unknown as { products: unknown[] }).products).toEqual([
      { uuid: b.product.uuid, name: 'Viewing' },
      { uuid: second.uuid, name: 'Second' },
    ]);
  });

  it('offers exclusive products only on RESOURCE_EXCLUSIVE, where public_visible is false', async () => {
    const b = await setupBooking(t);
    const vip = await createProduct(b.p, b.provider.providerRef, { name: 'VIP', exclusive: true });
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      products: [b.product.reference, vip.reference],
    });
    await createTimeslots(b, [{}]);
    const pub = await upcoming(t, b.resource.reference);
    const [p1] = flatten(pub);
    expect((p1 as unknown as { products: { name: string }[] }).products.map((x) => x.name)).toEqual(['Viewing']);
    expect(p1.product_uuid).toBe(b.product.uuid);
    expect((await upcoming(t, b.resource.reference, { prdRef: vip.uuid })).statusCode).toBe(204);
    const exclusive = await upcoming(t, b.resource.reference, { channelKey: 'RESOURCE_EXCLUSIVE', prdRef: vip.uuid });
    expect(exclusive.json().public_visible).toBe(false);
    expect(flatten(exclusive)[0]).toMatchObject({ product_uuid: vip.uuid });
    expect(flatten(exclusive)[0]).toHaveProperty('products', [
      { uuid: b.product.uuid, name: 'Viewing' },
      { uuid: vip.uuid, name: 'VIP' },
    ]);
  });

  it('rejects an unknown channelKey with 400', async () => {
    const b = await setupBooking(t);
    const res = await upcoming(t, b.resource.reference, { channelKey: 'SOMEWHERE' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toMatch(/query.channelKey must be one of/);
  });

  it('renders groupFormat and timeFormat in the provider zone with the languageTag locale', async () => {
    const b = await setupBooking(t, { timeZone: 'America/New_York' });
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30' }]);
    const res = await upcoming(t, b.resource.reference, {
      groupFormat: 'EEEE, d. MMMM yyyy',
      timeFormat: 'HH:mm',
      languageTag: 'de_DE',
    });
    const body = res.json();
    expect(Object.keys(body)).toContain('Dienstag, 2. Juni 2026');
    expect(body['Dienstag, 2. Juni 2026'][0]).toMatchObject({
      start: '2026-06-02T09:00:00-04:00',
      formattedStart: '09:00',
      formattedEnd: '09:30',
    });
    const en = await upcoming(t, b.resource.reference, { groupFormat: 'MMMM d', languageTag: 'en_US' });
    expect(Object.keys(en.json())).toContain('June 2');
  });

  it.each([
    ['groupFormat', { groupFormat: 'yyyy-MM-dd bb' }],
    ['timeFormat', { timeFormat: "HH:mm 'unterminated" }],
    ['languageTag', { languageTag: 'not a tag!' }],
  ])('rejects an invalid %s with 400 naming it, before looking up the resource', async (field, query) => {
    const res = await upcoming(t, 'unknown@nowhere', query);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'VALIDATION',
      message: expect.stringContaining(`query.${field}`),
    });
  });

  it('shows the contact channel of the resource contactChannelType from the resolved contact', async () => {
    const b = await setupBooking(t, { resource: { contact: undefined } });
    const put = await b.p.call('PUT', `/user/${encodeURIComponent(b.provider.ownerRef)}/generalContactProfile`, {
      name: 'Olga Owner',
      contactChannels: [{ type: 'mobile', value: '+49 170 1234567' }],
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const r = await createResource(b.p, b.provider.providerRef, {
      products: [b.product.reference],
      contact: b.provider.ownerRef,
      contactChannelType: 'mobile',
    });
    await createTimeslots(b, [{ resourceReference: r.reference }]);
    const [first] = flatten(await upcoming(t, r.uuid));
    expect(first).toHaveProperty('contact_channel', { type: 'mobile', value: '+49 170 1234567' });
  });

  it('after the first booking of a group slot lists it as a LotAppointment with the new appointment_uuid', async () => {
    const b = await setupBooking(t);
    const [ts] = await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30', defaultCapacity: 3 }]);
    const [slot] = flatten(await upcoming(t, b.resource.reference));
    const created = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, consumer()));
    expect(created.statusCode, created.body).toBe(201);
    const [again] = flatten(await upcoming(t, b.resource.reference));
    expect(again).toMatchObject({
      kind: 'models.LotAppointment',
      appointment_uuid: created.json().createdAppointment.appointment_uuid,
      timeslot_uuid: ts.uuid,
      capacity: 3,
      capacity_left: 2,
    });
  });
});
