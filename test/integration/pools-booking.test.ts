/**
 * The public flow on a pool (issue 53, DESIGN 7.11, docs/pools.md): A1 lists models.PoolBookable
 * items, the union of the members' own listings; A2 and A3 take pool_uuid and the service assigns a
 * member by the pool's rule, in the database, in one statement; a hold blocks its member only;
 * K concurrent requests on N free members: N succeed on N members, the rest 412 "201".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { book, consumer, flatten, publicCall, reserve, upcoming } from '../helpers/bookingFixtures.js';
import { memberTimeslots, setupPool, type PoolSetup } from '../helpers/poolFixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the clock stands at Monday 2026-06-01T08:00Z, 10:00 in Berlin
  t = await startTestApp({ bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000 });
});
afterAll(() => t.close());

interface PoolItem {
  kind: string;
  pool_uuid: string;
  timeslot_uuid: null;
  resource_uuid: null;
  resource_name: string;
  product_uuid: string;
  start: string;
  end: string;
  capacity: number;
  capacity_left: number;
}
const listed = async (s: PoolSetup) => flatten(await upcoming(t, s.pool.reference)) as unknown as PoolItem[];
const slotAt = async (s: PoolSetup, start: string) => {
  const found = (await listed(s)).find((x) => x.start.startsWith(start));
  if (!found) throw new Error(`no pool slot at ${start}`);
  return found;
};
const bookBody = (s: PoolSetup, slot: PoolItem, over: object = {}) => ({
  start: slot.start,
  end: slot.end,
  pool_uuid: s.pool.uuid,
  product_uuid: s.product.uuid,
  ...consumer(),
  ...over,
});
const memberName = (s: PoolSetup, uuid: string) => s.members.findIndex((m) => m.uuid === uuid);

describe('A1 on a pool', () => {
  it('lists one PoolBookable per span, counting the members that offer it and that can take it now', async () => {
    const s = await setupPool(t, 3);
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00' }]);
    // the third member offers one more slot of its own
    await memberTimeslots({ ...s, members: [s.members[2]] }, [{ start: '2026-06-02T10:00', end: '2026-06-02T10:30' }]);
    const items = await listed(s);
    expect(items.map((i) => [i.start, i.capacity, i.capacity_left])).toEqual([
      ['2026-06-02T09:00:00+02:00', 3, 3],
      ['2026-06-02T09:30:00+02:00', 3, 3],
      ['2026-06-02T10:00:00+02:00', 1, 1],
    ]);
    expect(items[0]).toMatchObject({
      kind: 'models.PoolBookable',
      pool_uuid: s.pool.uuid,
      timeslot_uuid: null,
      resource_uuid: null,
      resource_name: 'Any stylist',
      product_uuid: s.product.uuid,
    });
    const booked = await book(t, s.pool.reference, bookBody(s, items[0]));
    expect(booked.statusCode, booked.body).toBe(201);
    expect((await slotAt(s, '2026-06-02T09:00')).capacity_left).toBe(2);
  });

  it('answers 404 for a reference that is neither a resource nor a pool', async () => {
    const res = await upcoming(t, 'nobody@nowhere');
    expect(res.statusCode).toBe(404);
  });
});

describe('A2 and A3 on a pool', () => {
  it('LEAST_RECENTLY_BOOKED assigns A, B, C, A, B, C booking one slot after another', async () => {
    const s = await setupPool(t, 3);
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00' }]);
    const order: number[] = [];
    for (const start of ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30']) {
      const slot = await slotAt(s, `2026-06-02T${start}`);
      const res = await book(t, s.pool.reference, bookBody(s, slot));
      expect(res.statusCode, res.body).toBe(201);
      const created = res.json().createdAppointment;
      expect(created.pool_uuid).toBe(s.pool.uuid);
      order.push(memberName(s, created.resource_uuid));
    }
    expect(order).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('a hold blocks its member only, and A3 with its placeholder books that member', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30' }]);
    const slot = await slotAt(s, '2026-06-02T09:00');
    const held = await reserve(t, s.pool.reference, {
      pool_uuid: s.pool.uuid,
      product_uuid: s.product.uuid,
      from: slot.start,
      to: slot.end,
    });
    expect(held.statusCode, held.body).toBe(201);
    const p = held.json().participation;
    expect(p.pool_uuid).toBe(s.pool.uuid);
    expect(p.resource_uuid).toBe(s.members[0].uuid);
    expect((await slotAt(s, '2026-06-02T09:00')).capacity_left).toBe(1);
    // another consumer gets the other member
    const other = await book(t, s.pool.reference, bookBody(s, slot));
    expect(other.statusCode, other.body).toBe(201);
    expect(other.json().createdAppointment.resource_uuid).toBe(s.members[1].uuid);
    // the hold still books its member
    const mine = await book(t, s.pool.reference, bookBody(s, slot, { placeholder_id: p.customer_uuid }));
    expect(mine.statusCode, mine.body).toBe(201);
    expect(mine.json().createdAppointment).toMatchObject({
      resource_uuid: s.members[0].uuid,
      appointment_uuid: p.appointment_uuid,
      pool_uuid: s.pool.uuid,
    });
    // nobody is left
    expect(flatten(await upcoming(t, s.pool.reference))).toEqual([]);
    const late = await book(t, s.pool.reference, bookBody(s, slot));
    expect(late.statusCode).toBe(412);
    expect(late.json().errors[0].errorCode).toBe('201');
  });

  it('K concurrent bookings on N free members: N succeed on N different members, the rest 412 "201"', async () => {
    const s = await setupPool(t, 3);
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30' }]);
    const slot = await slotAt(s, '2026-06-02T09:00');
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        i % 2 === 0
          ? book(t, s.pool.reference, bookBody(s, slot))
          : reserve(t, s.pool.reference, {
              pool_uuid: s.pool.uuid,
              product_uuid: s.product.uuid,
              from: slot.start,
              to: slot.end,
            }),
      ),
    );
    const won = results.filter((r) => r.statusCode === 201);
    const lost = results.filter((r) => r.statusCode !== 201);
    expect(won).toHaveLength(3);
    const members = won.map((r) => (r.json().createdAppointment ?? r.json().participation).resource_uuid);
    expect(new Set(members).size).toBe(3);
    for (const r of lost) {
      expect(r.statusCode, r.body).toBe(412);
      expect(r.json().errors[0].errorCode).toBe('201');
    }
  });

  it('PRIORITY picks the highest priority first, then the least recently booked', async () => {
    const s = await setupPool(t, 3, { assignment: 'PRIORITY', priorities: [1, 4, 4] });
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00' }]);
    const order: number[] = [];
    for (const start of ['09:00', '09:30', '10:00']) {
      const res = await book(t, s.pool.reference, bookBody(s, await slotAt(s, `2026-06-02T${start}`)));
      expect(res.statusCode, res.body).toBe(201);
      order.push(memberName(s, res.json().createdAppointment.resource_uuid));
    }
    expect(order).toEqual([1, 2, 1]);
  });

  it('BALANCED picks the member with the fewest bookings in the week', async () => {
    const s = await setupPool(t, 2, { assignment: 'BALANCED' });
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00' }]);
    // the first member has two bookings of its own this week, made on it directly
    for (const start of ['09:00', '09:30']) {
      const res = await book(t, s.members[0].reference, {
        start: `2026-06-02T${start}`,
        end: `2026-06-02T${start === '09:00' ? '09:30' : '10:00'}`,
        timeslot_uuid: (await upcoming(t, s.members[0].reference)).json()['2026-06-02'][0].timeslot_uuid,
        product_uuid: s.product.uuid,
        ...consumer(),
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const order: number[] = [];
    for (const start of ['10:00', '10:30', '11:00']) {
      const res = await book(t, s.pool.reference, bookBody(s, await slotAt(s, `2026-06-02T${start}`)));
      expect(res.statusCode, res.body).toBe(201);
      order.push(memberName(s, res.json().createdAppointment.resource_uuid));
    }
    expect(order).toEqual([1, 1, 0]);
  });

  it('skips a member at its booking limit; A1 leaves out what every member leaves out', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00' }]);
    const limit = await s.p.call('POST', `${s.base}/resources/${encodeURIComponent(s.members[0].reference)}`, {
      bookingLimits: { perDay: 1 },
    });
    expect(limit.statusCode).toBe(202);
    const first = await book(t, s.pool.reference, bookBody(s, await slotAt(s, '2026-06-02T09:00')));
    expect(first.json().createdAppointment.resource_uuid).toBe(s.members[0].uuid);
    // member 0 is at its limit for the day: the next slot is offered by member 1 only
    expect((await slotAt(s, '2026-06-02T09:30')).capacity_left).toBe(1);
    const second = await book(t, s.pool.reference, bookBody(s, await slotAt(s, '2026-06-02T09:30')));
    expect(second.json().createdAppointment.resource_uuid).toBe(s.members[1].uuid);
  });

  it("refuses a pool_uuid that is not the path's pool, and a span no member offers", async () => {
    const s = await setupPool(t, 1);
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30' }]);
    const slot = await slotAt(s, '2026-06-02T09:00');
    const wrong = await book(t, s.pool.reference, bookBody(s, slot, { pool_uuid: s.product.uuid }));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].message).toContain('body.pool_uuid');
    const nowhere = await book(
      t,
      s.pool.reference,
      bookBody(s, slot, { start: '2026-06-03T09:00', end: '2026-06-03T09:30' }),
    );
    expect(nowhere.statusCode).toBe(400);
  });
});

describe('A4 and A5 on a pool', () => {
  it('A4 lists the products any member offers; A5 describes the pool and its members', async () => {
    const s = await setupPool(t, 2);
    const products = await publicCall(t, 'POST', '/products/active_products', undefined, { ref: s.pool.reference });
    expect(products.statusCode, products.body).toBe(200);
    expect(products.json().products.map((p: { uuid: string }) => p.uuid)).toEqual([s.product.uuid]);
    const data = await publicCall(t, 'POST', '/resources/public_data', undefined, { ref: s.pool.reference });
    expect(data.statusCode, data.body).toBe(200);
    expect(data.json().resource).toMatchObject({ uuid: s.pool.uuid, name: 'Any stylist' });
    expect(data.json().pool).toEqual({
      uuid: s.pool.uuid,
      name: 'Any stylist',
      description: null,
      members: s.members.map((m) => ({ uuid: m.uuid, name: m.publicName })),
    });
  });
});

describe('my bookings on a pool', () => {
  it("takes the pool's reference as the provider's (202)", async () => {
    const s = await setupPool(t, 1);
    const res = await publicCall(
      t,
      'POST',
      '/rest/1/my-bookings',
      { email: 'x@consumer.example' },
      {
        ref: s.pool.reference,
      },
    );
    expect(res.statusCode, res.body).toBe(202);
  });
});
