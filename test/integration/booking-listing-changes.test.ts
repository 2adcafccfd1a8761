/**
 * After a change, A1 reads only the changed appointments and brings the data of its cached listing
 * up to date (migration 012, booking/bookablesLoader.ts). Every answer must equal the listing
 * computed from a full read at the same clock, whatever the change, and a change committed by a
 * transaction that began before the previous read must still show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readListing } from '../../src/listing/bookablesLoader.js';
import { compactListingChanges } from '../../src/listing/listingCompactor.js';
import { computeListing, listingUntilMs } from '../../src/listing/listingCompute.js';
import { DEFAULT_GROUP_FORMAT, DEFAULT_TIME_FORMAT, localeOf, timePattern } from '../../src/booking/timeFormats.js';
import { currentBackend } from '../helpers/db.js';
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
  type ListedBookable,
} from '../helpers/bookingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: 1_000 });
});
afterAll(() => t.close());

const enc = encodeURIComponent;

/** booking_listing_reads_total by what was read, from /metrics. */
async function readsByKind(): Promise<Record<string, number>> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const out: Record<string, number> = { versions: 0, changes: 0, full: 0 };
  for (const m of text.matchAll(/^booking_listing_reads_total\{read="(\w+)"\} (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/** The A1 answer computed from a full read now, as the first request of a fresh instance would: the oracle. */
async function fromFullRead(b: Booking): Promise<unknown> {
  const nowMs = t.clock.now().getTime();
  const read = await readListing(t.db, {
    refs: [{ ref: b.resource.uuid, field: 'ref' }],
    channelKey: 'RESOURCE_PUBLIC',
    nowMs,
    untilMs: listingUntilMs(nowMs),
    known: null,
  });
  const listing = computeListing(read.data!, {
    channelKey: 'RESOURCE_PUBLIC',
    groupFormat: timePattern(DEFAULT_GROUP_FORMAT, 'g', ''),
    timeFormat: timePattern(DEFAULT_TIME_FORMAT, 't', ''),
    locale: localeOf(undefined),
    nowMs,
  });
  return listing.json === null ? null : JSON.parse(listing.json.toString());
}

/** A1 through HTTP, checked against the oracle; returns the listed items and what the read read. */
async function listed(b: Booking): Promise<{ items: ListedBookable[]; read: string }> {
  const before = await readsByKind();
  const res = await upcoming(t, b.resource.uuid);
  const after = await readsByKind();
  expect(res.statusCode === 204 ? null : res.json()).toEqual(await fromFullRead(b));
  const read = Object.keys(after).filter((k) => after[k] > before[k]);
  expect(read).toHaveLength(1);
  return { items: res.statusCode === 204 ? [] : flatten(res), read: read[0] };
}

/**
 * A listing asked for again after a change, so the instance
 * keeps its data (it keeps none for a listing asked for once).
 */
async function listedAgain(b: Booking): Promise<{ items: ListedBookable[]; read: string }> {
  await listed(b);
  await createTimeslots(b, [{ start: '2026-06-20T09:00', end: '2026-06-20T09:30' }]);
  const again = await listed(b);
  expect(again.read).toBe('full');
  return again;
}

async function groupAppointment(b: Booking, start: string, capacity = 3): Promise<string> {
  const reference = `${uniqueId('apt')}@crm`;
  const res = await b.p.call('POST', `${b.base}/appointments`, {
    reference,
    start,
    end: start.replace(/T(\d\d):00/, 'T$1:30'),
    resourceReference: b.resource.reference,
    productReference: b.product.reference,
    capacity,
    acceptBookings: true,
  });
  expect(res.statusCode, res.body).toBe(201);
  return reference;
}

async function customer(b: Booking): Promise<string> {
  const res = await b.p.call('POST', `${b.base}/customers`, {
    customerReference: `${uniqueId('c')}@crm`,
    providerReference: b.provider.providerRef,
    userName: 'Eva',
    email: `${uniqueId('e')}@example.com`,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().customer.customerReference;
}

describe('A1 after a change', () => {
  it('reads only what bookings, holds and partner changes changed, answering as a full read would', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [
      { start: '2026-06-02T09:00', end: '2026-06-02T11:00', defaultCapacity: 2 },
      { start: '2026-06-03T09:00', end: '2026-06-03T10:00', defaultCapacity: 1 },
    ]);
    expect((await listed(b)).read).toBe('full');
    expect((await listed(b)).read).toBe('versions');

    // the public flow: a hold, then a booking of another slot, each read only as changes
    let { items } = await listed(b);
    expect((await reserve(t, b.resource.uuid, reserveBodyFor(items[0], b.product.uuid))).statusCode).toBe(201);
    const held = await listed(b);
    expect(held.read).toBe('changes');
    ({ items } = held);
    expect(items[0]).toMatchObject({ kind: 'models.LotAppointment', capacity_left: 1 });
    expect((await book(t, b.resource.uuid, bookBodyFor(items[1], b.product.uuid))).statusCode).toBe(201);
    expect((await listed(b)).read).toBe('changes');

    // the partner API: an appointment, a participation added and cancelled, the appointment cancelled, one deleted
    const appointment = await groupAppointment(b, '2026-06-04T09:00');
    expect((await listed(b)).read).toBe('changes');
    const participation = `${uniqueId('part')}@crm`;
    const added = await b.p.call('POST', `${b.base}/participations`, {
      reference: participation,
      appointmentReference: appointment,
      customerReference: await customer(b),
      state: 'BOOKED',
    });
    expect(added.statusCode, added.body).toBe(201);
    expect((await listed(b)).items.find((x) => x.start.startsWith('2026-06-04'))).toMatchObject({ capacity_left: 2 });
    expect(
      (await b.p.call('POST', `${b.base}/participations/${enc(participation)}`, { state: 'CANCELED' })).statusCode,
    ).toBe(200);
    expect((await listed(b)).items.find((x) => x.start.startsWith('2026-06-04'))).toMatchObject({ capacity_left: 3 });
    const cancelled = await b.p.call('DELETE', `${b.base}/appointments`, { appointmentReference: appointment });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const afterCancel = await listed(b);
    expect(afterCancel.read).toBe('changes');
    expect(afterCancel.items.some((x) => x.start.startsWith('2026-06-04'))).toBe(false);
    const other = await groupAppointment(b, '2026-06-05T09:00');
    expect((await listed(b)).items.some((x) => x.start.startsWith('2026-06-05'))).toBe(true);
    const deleted = await b.p.call('DELETE', `${b.base}/appointments/withoutNotification`, {
      appointmentReference: other,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await listed(b)).items.some((x) => x.start.startsWith('2026-06-05'))).toBe(false);

    // a change that names no appointment (a timeslot) reads everything
    await createTimeslots(b, [{ start: '2026-06-06T09:00', end: '2026-06-06T09:30' }]);
    expect((await listed(b)).read).toBe('full');
  });

  it('answers a new request shape from the data of another shape of the resource, brought up to date', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', defaultCapacity: 2 }]);
    expect((await listed(b)).read).toBe('full');
    const { items } = await listed(b);
    expect((await book(t, b.resource.uuid, bookBodyFor(items[0], b.product.uuid))).statusCode).toBe(201);
    // other formats and another language: no answer of their own
    // yet, the data of the default shape and the booking since
    const shapes: Record<string, string>[] = [
      { timeFormat: 'HH:mm' },
      { groupFormat: 'EEEE d MMMM', languageTag: 'de-DE' },
      { timeFormat: "yyyy-MM-dd'T'HH:mm" },
    ];
    for (const query of shapes) {
      const before = await readsByKind();
      const res = await upcoming(t, b.resource.uuid, query);
      const after = await readsByKind();
      expect(res.statusCode, res.body).toBe(200);
      expect(after.full - before.full, JSON.stringify(query)).toBe(0);
      expect(after.changes + after.versions - before.changes - before.versions).toBe(1);
      const shown = flatten(res);
      expect(shown).toHaveLength(items.length);
      expect(shown[0]).toMatchObject({ capacity_left: 1 });
    }
    expect(flatten(await upcoming(t, b.resource.uuid, { timeFormat: "yyyy-MM-dd'T'HH:mm" }))[0].start).toBe(
      items[0].start.replace(' ', 'T'),
    );
    expect(
      Object.keys((await upcoming(t, b.resource.uuid, { groupFormat: 'EEEE d MMMM', languageTag: 'de-DE' })).json())[0],
    ).toBe('Dienstag 2 Juni');
  });

  it('keeps every shape of one resource up to date when they are asked together, reading changes only', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00', defaultCapacity: 3 }]);
    expect((await listed(b)).read).toBe('full');
    const shapes: (Record<string, string> | undefined)[] = [
      undefined,
      { timeFormat: 'HH:mm' },
      { languageTag: 'de-DE', groupFormat: 'd MMMM' },
    ];
    const placesLeft = (res: Awaited<ReturnType<typeof upcoming>>) => flatten(res).map((x) => x.capacity_left);
    for (let round = 0; round < 4; round++) {
      const { items } = await listed(b);
      expect(
        (await book(t, b.resource.uuid, bookBodyFor(items[round % items.length], b.product.uuid))).statusCode,
      ).toBe(201);
      const before = await readsByKind();
      const answers = await Promise.all(shapes.map((query) => upcoming(t, b.resource.uuid, query)));
      const after = await readsByKind();
      expect(after.full - before.full).toBe(0);
      const oracle = ((await fromFullRead(b)) ?? {}) as Record<string, unknown>;
      const oracleLeft = Object.values(oracle).flatMap((v) =>
        Array.isArray(v) ? v.map((x: { capacity_left: number }) => x.capacity_left) : [],
      );
      for (const res of answers) expect(placesLeft(res)).toEqual(oracleLeft);
    }
  });

  it('frees the place of a hold that expired with no database change, then goes on reading changes', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00', defaultCapacity: 1 }]);
    const { items } = await listed(b);
    expect((await reserve(t, b.resource.uuid, reserveBodyFor(items[0], b.product.uuid))).statusCode).toBe(201);
    expect((await listed(b)).items).toHaveLength(1);
    try {
      t.clock.advance(181_000); // the hold is over: its data is not brought up to date any more, it is read again
      const after = await listed(b);
      expect(after.read).toBe('full');
      expect(after.items).toHaveLength(2);
      expect(
        (await book(t, b.resource.uuid, bookBodyFor(after.items[1], b.product.uuid, undefined, consumer()))).statusCode,
      ).toBe(201);
      const booked = await listed(b);
      expect(booked.read).toBe('changes');
      expect(booked.items).toHaveLength(1);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('reads everything when the changes since were compacted away', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00' }]);
    const { items } = await listed(b);
    expect((await book(t, b.resource.uuid, bookBodyFor(items[0], b.product.uuid))).statusCode).toBe(201);
    await compactListingChanges(t.db);
    const after = await listed(b);
    expect(after.read).toBe('full');
    expect(after.items).toHaveLength(1);
  });

  it('goes on reading only changes when the compactor folds what was committed before its previous run', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00' }]);
    const { items } = await listedAgain(b);
    const [{ snapshot }] = await t.db.query<{ snapshot: string }>('SELECT pg_current_snapshot()::text AS snapshot');
    expect((await book(t, b.resource.uuid, bookBodyFor(items[0], b.product.uuid))).statusCode).toBe(201);
    await compactListingChanges(t.db, () => false, snapshot); // the booking came after that snapshot: it stays
    const [{ n }] = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM listing_changes WHERE resource_id = $1',
      [b.resource.uuid],
    );
    expect(n).toBeGreaterThan(0);
    const after = await listed(b);
    expect(after.read).toBe('changes');
    expect(after.items).toHaveLength(4); // 3 of the 4 slots on June 2, and June 20's
  });
});

describe.runIf(currentBackend() === 'postgres')('A1 after a change committed late', () => {
  it('shows a change whose transaction began before the last read and committed after it', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00', defaultCapacity: 3 }]);
    const appointment = await groupAppointment(b, '2026-06-03T09:00', 3);
    const slow = await t.database.openAnother(); // closed with the test database
    await slow.transaction(async (tx) => {
      // a participation written, not yet committed: its xid is running at the next read
      await tx.query(
        `INSERT INTO participations (crm_id, provider_id, appointment_id, reference, customer_id, state)
         SELECT a.crm_id, a.provider_id, a.id, $2, NULL, 'BOOKED' FROM appointments a WHERE a.reference = $1`,
        [appointment, `${uniqueId('late')}@crm`],
      );
      // meanwhile a booking commits and A1 reads it (only the changes): the late one is not visible yet
      const { items } = await listedAgain(b);
      expect((await book(t, b.resource.uuid, bookBodyFor(items[0], b.product.uuid))).statusCode).toBe(201);
      const meanwhile = await listed(b);
      expect(meanwhile.read).toBe('changes');
      expect(meanwhile.items.find((x) => x.start.startsWith('2026-06-03'))).toMatchObject({ capacity_left: 3 });
    });
    // committed after that read: a log ordered by insertion would have it behind the read; the snapshot does not
    const after = await listed(b);
    expect(after.read).toBe('changes');
    expect(after.items.find((x) => x.start.startsWith('2026-06-03'))).toMatchObject({ capacity_left: 2 });
  });
});
