/**
 * A hold is live while now < hold_until and expired from hold_until on, whether or not the sweeper
 * has removed it yet. Every reader and writer must agree on that instant (issue 40): the partner
 * views (D5, D2: capacityLeft and participations), A1's listing, and book_hold in SQL.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  createTimeslots,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
} from '../helpers/bookingFixtures.js';
import { createAppointment, createCustomer, participate, setupScheduling } from '../helpers/schedulingFixtures.js';
import { consumerArgument } from '../../src/booking/consumer.js';

const T0 = '2026-06-01T08:00:00Z';
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: 1_000 }, undefined, { jobs: false });
});
afterAll(() => t.close());
afterEach(() => t.clock.set(T0));

const ipHeaders = () => ({
  'x-forwarded-for': `10.40.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
});

async function holdRow(id: string): Promise<{ state: string; hold_until: Date }> {
  const [row] = await t.db.query<{ state: string; hold_until: Date }>(
    'SELECT state, hold_until FROM participations WHERE id = $1',
    [id],
  );
  return { state: row.state, hold_until: new Date(row.hold_until) };
}

describe('the partner views leave out a hold that has expired but is not swept yet', () => {
  /** capacity 2: one BOOKED, one RESERVED hold taken at T0 */
  async function groundWithHold() {
    t.clock.set(T0);
    const s = await setupScheduling(t);
    const apt = await createAppointment(s, { capacity: 2 });
    const booked = await createCustomer(s);
    const holder = await createCustomer(s);
    const bookedRef = `${uniqueId('booked')}@crm`;
    const heldRef = `${uniqueId('held')}@crm`;
    expect(
      (
        await participate(
          s,
          { reference: bookedRef, appointmentReference: apt.reference, customerReference: booked.customerReference },
          { sendMails: 'false' },
        )
      ).statusCode,
    ).toBe(201);
    const held = await participate(s, {
      reference: heldRef,
      appointmentReference: apt.reference,
      customerReference: holder.customerReference,
      state: 'RESERVED',
    });
    expect(held.statusCode, held.body).toBe(201);
    const hold = await holdRow(held.json().participation.uuid);
    expect(hold.hold_until.getTime()).toBe(new Date(T0).getTime() + t.config.reservationHoldSeconds * 1000);
    const d5 = async () => {
      const res = await s.p.call('GET', `${s.base}/appointments`);
      expect(res.statusCode, res.body).toBe(200);
      const a = res.json().find((x: { reference: string }) => x.reference === apt.reference);
      return {
        capacityLeft: a.capacityLeft as number,
        participants: (a.participations as { reference: string }[]).map((p) => p.reference).sort(),
      };
    };
    const d2 = async () => {
      const res = await s.p.call(
        'GET',
        `${s.base}/resource/${encodeURIComponent(s.resourceRef)}/timeslots`,
        undefined,
        { from: '2026-07-01T00:00', to: '2026-07-02T00:00' },
      );
      expect(res.statusCode, res.body).toBe(200);
      const [a] = res.json().appointments;
      return {
        capacityLeft: a.capacityLeft as number,
        participants: (a.participations as { reference: string }[]).map((p) => p.reference).sort(),
      };
    };
    return { s, apt, bookedRef, heldRef, holdId: held.json().participation.uuid as string, hold, d5, d2 };
  }

  it('counts the hold and lists it one millisecond before hold_until', async () => {
    const g = await groundWithHold();
    t.clock.set(new Date(g.hold.hold_until.getTime() - 1));
    const live = { capacityLeft: 0, participants: [g.bookedRef, g.heldRef].sort() };
    expect(await g.d5()).toEqual(live);
    expect(await g.d2()).toEqual(live);
  });

  it.each([0, 1, 60_000])(
    'counts it for nothing and leaves it out of the participations %i ms after hold_until, unswept',
    async (after) => {
      const g = await groundWithHold();
      t.clock.set(new Date(g.hold.hold_until.getTime() + after));
      const expired = { capacityLeft: 1, participants: [g.bookedRef] };
      expect(await g.d5()).toEqual(expired);
      expect(await g.d2()).toEqual(expired);
      // nothing swept it: the row is still a RESERVED hold
      expect((await holdRow(g.holdId)).state).toBe('RESERVED');
    },
  );
});

describe('book_hold in SQL: a hold is live strictly before hold_until', () => {
  /** A public hold (A2) and book_hold's arguments for it, except p_now. */
  async function publicHold() {
    t.clock.set(T0);
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00', defaultCapacity: 1 }]);
    const [slot] = flatten(await upcoming(t, b.resource.reference));
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, ipHeaders());
    expect(held.statusCode, held.body).toBe(201);
    const id: string = held.json().participation.uuid;
    const [row] = await t.db.query<{ provider_id: string; crm_id: string; channel_key: string }>(
      'SELECT provider_id, crm_id, channel_key FROM participations WHERE id = $1',
      [id],
    );
    const consumer = consumerArgument(
      { id: row.provider_id, crmId: row.crm_id },
      { email: `${uniqueId('c')}@consumer.example`, firstname: 'Erika', lastname: 'Muster' },
    );
    const [{ customer }] = await t.db.query<{ customer: string }>(`SELECT consumer_customer($1)->>'id' AS customer`, [
      consumer,
    ]);
    const changes = JSON.stringify({ state: 'BOOKED', message: null, locale: null, channel_key: row.channel_key });
    /** book_hold with p_now = hold_until + offset, computed in SQL so the instant is exact (microseconds included) */
    const bookAt = (offset: string) =>
      t.db.query<{ participation: { state: string; hold_until: string | null }; live_after: number }>(
        `SELECT * FROM book_hold($1, (SELECT hold_until + $2::interval FROM participations WHERE id = $1), $3, $4)`,
        [id, offset, customer, changes],
      );
    return { id, bookAt };
  }

  it('refuses exactly at hold_until and one millisecond after it (no row), changing nothing', async () => {
    const h = await publicHold();
    expect(await h.bookAt('1 millisecond')).toEqual([]);
    expect(await h.bookAt('0 seconds')).toEqual([]);
    expect((await holdRow(h.id)).state).toBe('RESERVED');
    expect(await t.db.query(`SELECT 1 FROM participations WHERE id = $1 AND customer_id IS NOT NULL`, [h.id])).toEqual(
      [],
    );
  });

  it('books one millisecond before hold_until', async () => {
    const h = await publicHold();
    const [r] = await h.bookAt('-1 millisecond');
    expect(r.participation.state).toBe('BOOKED');
    expect(r.participation.hold_until).toBeNull();
    expect(r.live_after).toBe(1);
    expect((await holdRow(h.id)).state).toBe('BOOKED');
  });
});

describe("A1's listing frees a hold's place exactly at hold_until", () => {
  it('lists the group appointment with the hold counted 1 ms before and free at hold_until, unswept', async () => {
    t.clock.set(T0);
    const b = await setupBooking(t);
    const reference = `${uniqueId('apt')}@crm`;
    const created = await b.p.call('POST', `${b.base}/appointments`, {
      reference,
      start: '2026-06-04T09:00',
      end: '2026-06-04T09:30',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
      capacity: 2,
      acceptBookings: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    const listed = async () => flatten(await upcoming(t, b.resource.reference)).map((x) => [x.kind, x.capacity_left]);
    expect(await listed()).toEqual([['models.LotAppointment', 2]]);
    const [lot] = flatten(await upcoming(t, b.resource.reference));
    const held = await reserve(t, b.resource.reference, reserveBodyFor(lot, b.product.uuid), undefined, ipHeaders());
    expect(held.statusCode, held.body).toBe(201);
    const hold = await holdRow(held.json().participation.uuid);
    expect(await listed()).toEqual([['models.LotAppointment', 1]]);
    t.clock.set(new Date(hold.hold_until.getTime() - 1));
    expect(await listed()).toEqual([['models.LotAppointment', 1]]);
    t.clock.set(hold.hold_until);
    expect(await listed()).toEqual([['models.LotAppointment', 2]]);
    expect((await holdRow(held.json().participation.uuid)).state).toBe('RESERVED');
  });
});
