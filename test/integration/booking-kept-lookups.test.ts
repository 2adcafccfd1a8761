/**
 * A2 decided on a kept lookup (booking/bookingLookups.ts, migration 015): a reservation of a slot
 * reserved before reads no resource again, and whatever changed since the lookup was kept is seen,
 * by the claim's own statement, before anything is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { createTimeslots, flatten, reserve, reserveBodyFor, setupBooking, upcoming, type Booking, type ListedBookable } from '../helpers/bookingFixtures.js';
import { createProduct } from '../helpers/offeringsFixtures.js';
import { compactListingChanges } from '../../src/booking/listingCompactor.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: 1_000 });
});
afterAll(() => t.close());

const LOOKUPS = ['kept', 'stale', 'read'] as const;
type Lookups = Record<(typeof LOOKUPS)[number], number>;

async function lookups(): Promise<Lookups> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const out: Lookups = { kept: 0, stale: 0, read: 0 };
  for (const m of text.matchAll(/^booking_lookups_total\{lookup="(\w+)"\} (\d+)$/gm)) out[m[1] as keyof Lookups] = Number(m[2]);
  return out;
}

/** What `run` answered, and which lookups it was decided on. */
async function counted<T>(run: () => Promise<T>): Promise<[T, Lookups]> {
  const before = await lookups();
  const result = await run();
  const after = await lookups();
  return [result, { kept: after.kept - before.kept, stale: after.stale - before.stale, read: after.read - before.read }];
}

/** A resource with one timeslot of four 30-minute slots, five places each. */
async function withSlots(over: object = {}) {
  const b = await setupBooking(t);
  const [ts] = await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', defaultCapacity: 5, ...over }]);
  return { b, ts, slots: flatten(await upcoming(t, b.resource.reference)) };
}

const hold = (b: Booking, slot: ListedBookable, productUuid = b.product.uuid, ref = b.resource.reference) => reserve(t, ref, reserveBodyFor(slot, productUuid));
const errorOf = (res: { json(): { errors: { errorCode: string; message: string }[] } }) => res.json().errors[0];

/** Participations in the resource's appointments, whatever their state. */
async function participationsOf(b: Booking): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM participations p JOIN appointments a ON a.id = p.appointment_id WHERE a.resource_id = $1',
    [b.resource.uuid],
  );
  return row.n;
}

describe('A2 on a kept lookup', () => {
  it('decides a reservation of a slot reserved before on the kept lookup, with the same answer', async () => {
    const { b, slots } = await withSlots();
    const [first, firstLookups] = await counted(() => hold(b, slots[0]));
    expect(first.statusCode, first.body).toBe(201);
    expect(firstLookups).toEqual({ kept: 0, stale: 0, read: 1 });

    const [second, secondLookups] = await counted(() => hold(b, slots[1]));
    expect(second.statusCode, second.body).toBe(201);
    expect(secondLookups).toEqual({ kept: 1, stale: 0, read: 0 });
    expect(second.json().participation).toMatchObject({ resource_uuid: b.resource.uuid, product_uuid: b.product.uuid, from: '2026-06-02T07:30:00Z', appointment_capacity_left: 4 });

    const [joined, joinedLookups] = await counted(() => hold(b, slots[0]));
    expect(joinedLookups.kept).toBe(1);
    expect(joined.json().participation).toMatchObject({ appointment_uuid: first.json().participation.appointment_uuid, appointment_capacity_left: 3 });
    expect(joined.json().appointments[0].customers).toHaveLength(2);
  });

  it('sees a timeslot hidden after the lookup was kept: the claim writes nothing, and the request is decided again (404)', async () => {
    const { b, ts, slots } = await withSlots();
    expect((await hold(b, slots[0])).statusCode).toBe(201);
    const hidden = await b.p.call('PUT', `${b.base}/timeslots/${encodeURIComponent(ts.reference)}`, { state: 'CREATED' });
    expect(hidden.statusCode, hidden.body).toBe(200);

    const [refused, refusedLookups] = await counted(() => hold(b, slots[1]));
    expect(refused.statusCode, refused.body).toBe(404);
    expect(refusedLookups).toEqual({ kept: 0, stale: 1, read: 0 });
    expect(await participationsOf(b)).toBe(1);

    const shown = await b.p.call('PUT', `${b.base}/timeslots/${encodeURIComponent(ts.reference)}`, { state: 'BOOKABLE' });
    expect(shown.statusCode, shown.body).toBe(200);
    const [again, againLookups] = await counted(() => hold(b, slots[1]));
    expect(again.statusCode, again.body).toBe(201);
    expect(againLookups).toEqual({ kept: 0, stale: 0, read: 1 });
  });

  it('sees a raster changed after the lookup was kept: the old slot is no slot any more (400)', async () => {
    const { b, ts, slots } = await withSlots();
    expect((await hold(b, slots[0])).statusCode).toBe(201);
    const changed = await b.p.call('PUT', `${b.base}/timeslots/${encodeURIComponent(ts.reference)}`, { raster: 60 });
    expect(changed.statusCode, changed.body).toBe(200);
    const [refused, refusedLookups] = await counted(() => hold(b, slots[1])); // 09:30, no longer on the raster
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorOf(refused).message).toContain('body.from');
    expect(refusedLookups.stale).toBe(1);
    expect(await participationsOf(b)).toBe(1);
  });

  it('refuses nothing on a lookup out of date: a product added after it was kept is bookable at once', async () => {
    const { b, slots } = await withSlots();
    expect((await hold(b, slots[0])).statusCode).toBe(201);
    const added = await createProduct(b.p, b.provider.providerRef, { name: 'Added later' });
    const offered = await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, { products: [b.product.reference, added.reference] });
    expect(offered.statusCode, offered.body).toBeLessThan(300);
    const [held, heldLookups] = await counted(() => hold(b, slots[1], added.uuid));
    expect(held.statusCode, held.body).toBe(201);
    expect(held.json().participation.product_uuid).toBe(added.uuid);
    expect(heldLookups).toEqual({ kept: 0, stale: 1, read: 0 });
  });

  it('sees a resource archived after the lookup was kept (404)', async () => {
    const { b, slots } = await withSlots();
    expect((await hold(b, slots[0])).statusCode).toBe(201);
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, { archived: true });
    const refused = await hold(b, slots[1]);
    expect(refused.statusCode).toBe(404);
    expect(errorOf(refused).message).toMatch(/archived/);
    expect(await participationsOf(b)).toBe(1);
  });

  it('answers 400 for a short reference once a second provider uses it, though a lookup of it is kept', async () => {
    const { b, slots } = await withSlots();
    expect(b.resource.reference.split('@')).toHaveLength(2); // the short form
    expect((await hold(b, slots[0])).statusCode).toBe(201);
    expect((await counted(() => hold(b, slots[1])))[1].kept).toBe(1);

    await setupBooking(t, { resource: { reference: b.resource.reference } }); // nothing of b changed
    const [ambiguous, ambiguousLookups] = await counted(() => hold(b, slots[2]));
    expect(ambiguous.statusCode).toBe(400);
    expect(errorOf(ambiguous).message).toMatch(/resourceId@providerUuid@platform/);
    expect(ambiguousLookups.stale).toBe(1);
    expect(await participationsOf(b)).toBe(2);
    expect((await hold(b, slots[2], b.product.uuid, b.resource.uuid)).statusCode).toBe(201); // by UUID, still bookable
  });

  it('keeps a resource\'s configuration version through compaction, and bookings leave it where it is', async () => {
    const { b, slots } = await withSlots();
    const version = async () => (await t.db.query<{ v: string }>('SELECT listing_config_version($1)::text AS v', [b.resource.uuid]))[0].v;
    const configured = await version();
    expect((await hold(b, slots[0])).statusCode).toBe(201);
    expect((await hold(b, slots[1])).statusCode).toBe(201);
    expect(await version()).toBe(configured);
    await compactListingChanges(t.db);
    const [{ n }] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM listing_changes WHERE resource_id = $1', [b.resource.uuid]);
    expect(n).toBe(0);
    expect(await version()).toBe(configured);
    const [third, thirdLookups] = await counted(() => hold(b, slots[2]));
    expect(third.statusCode).toBe(201);
    expect(thirdLookups.kept).toBe(1);
  });

  describe('an appointment named by the request', () => {
    async function partnerAppointment() {
      const b = await setupBooking(t);
      const reference = `${uniqueId('apt')}@crm`;
      const made = await b.p.call('POST', `${b.base}/appointments`, {
        reference, start: '2026-06-02T14:00', end: '2026-06-02T15:00', resourceReference: b.resource.reference, productReference: b.product.reference, capacity: 5, acceptBookings: true,
      });
      expect(made.statusCode, made.body).toBe(201);
      const [lot] = flatten(await upcoming(t, b.resource.reference));
      expect(lot.kind).toBe('models.LotAppointment');
      expect((await hold(b, lot)).statusCode).toBe(201);
      expect((await counted(() => hold(b, lot)))[1].kept).toBe(1);
      return { b, lot, reference };
    }

    it('is seen deleted after the lookup was kept (404), and nothing is written', async () => {
      const { b, lot, reference } = await partnerAppointment();
      const deleted = await b.p.call('DELETE', `${b.base}/appointments/withoutNotification`, { appointmentReference: reference });
      expect(deleted.statusCode, deleted.body).toBe(200);
      const [refused, refusedLookups] = await counted(() => hold(b, lot));
      expect(refused.statusCode, refused.body).toBe(404);
      expect(refusedLookups.stale).toBe(1);
      expect(await participationsOf(b)).toBe(0);
    });

    it('is seen moved after the lookup was kept: the old times are not its times (400)', async () => {
      const { b, lot } = await partnerAppointment();
      // No API moves an appointment today; the claim's check does not rely on that.
      await t.db.query(`UPDATE appointments SET start_at = start_at + interval '1 day', end_at = end_at + interval '1 day', blocked_from = blocked_from + interval '1 day', blocked_until = blocked_until + interval '1 day' WHERE id = $1`, [lot.appointment_uuid]);
      const [refused, refusedLookups] = await counted(() => hold(b, lot));
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorOf(refused).message).toContain("appointment's start");
      expect(refusedLookups.stale).toBe(1);
      expect(await participationsOf(b)).toBe(2);
    });
  });
});
