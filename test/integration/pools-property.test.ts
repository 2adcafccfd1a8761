/**
 * Property (issue 53, DESIGN 7.11): for random member calendars (timeslots of several rasters and
 * capacities on two days), bookings and per-day limits, the pool's A1 is the union of its members'
 * own A1s: one item per span some member lists, capacity_left = the members listing it; and every
 * listed pool slot can be booked through the pool (each step books one and checks again).
 * POOL_PROPERTY_RUNS changes the number of calendars (default 12); PROPERTY_SEED replays a run.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { book, consumer, flatten, upcoming } from '../helpers/bookingFixtures.js';
import { memberTimeslots, setupPool, type PoolSetup } from '../helpers/poolFixtures.js';
import { seeded } from '../helpers/property.js';

const RUNS = Number(process.env.POOL_PROPERTY_RUNS ?? 12);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 1_000_000, maxHoldsPerIp: 1_000_000 });
});
afterAll(() => t.close());

const hhmm = (min: number) => `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;

const memberArb = fc.record({
  timeslots: fc.array(
    fc.record({
      day: fc.constantFrom('2026-06-02', '2026-06-03'),
      startMin: fc.integer({ min: 8 * 4, max: 16 * 4 }).map((q) => q * 15),
      lengthMin: fc.constantFrom(30, 60, 90, 120),
      raster: fc.constantFrom(15, 30, 60),
      capacity: fc.integer({ min: 1, max: 2 }),
    }),
    { minLength: 0, maxLength: 2 },
  ),
  perDay: fc.constantFrom(null, null, 1, 2, 3),
});

const calendarArb = fc.record({
  members: fc.array(memberArb, { minLength: 2, maxLength: 4 }),
  /** booking steps: which listed pool slot to book next (an index modulo their number) */
  steps: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
});

interface Item {
  start: string;
  end: string;
  capacity_left: number;
}
const spanOf = (x: { start: string; end: string }) => `${x.start}/${x.end}`;

/** The members' own A1s, merged: span -> number of members listing it. */
async function unionOfMembers(s: PoolSetup): Promise<Map<string, number>> {
  const union = new Map<string, number>();
  for (const m of s.members) {
    const spans = new Set(flatten(await upcoming(t, m.reference)).map(spanOf));
    for (const span of spans) union.set(span, (union.get(span) ?? 0) + 1);
  }
  return union;
}

async function poolItems(s: PoolSetup): Promise<Item[]> {
  return flatten(await upcoming(t, s.pool.reference)) as unknown as Item[];
}

it("pool A1 is the union of the members' A1s, and every listed pool slot can be booked", async () => {
  await fc.assert(
    fc.asyncProperty(calendarArb, async ({ members, steps }) => {
      const s = await setupPool(t, members.length);
      for (const [i, m] of members.entries()) {
        const one = { ...s, members: [s.members[i]] };
        // non-overlapping timeslots of one member: each a window of its own day
        const items = m.timeslots
          .filter((x, k) => !m.timeslots.slice(0, k).some((y) => y.day === x.day))
          .map((x) => ({
            start: `${x.day}T${hhmm(x.startMin)}`,
            end: `${x.day}T${hhmm(x.startMin + x.lengthMin)}`,
            raster: x.raster,
            defaultCapacity: x.capacity,
          }));
        if (items.length > 0) await memberTimeslots(one, items);
        if (m.perDay !== null) {
          const res = await s.p.call('POST', `${s.base}/resources/${encodeURIComponent(s.members[i].reference)}`, {
            bookingLimits: { perDay: m.perDay },
          });
          expect(res.statusCode).toBe(202);
        }
      }
      for (const step of [...steps, -1]) {
        const listed = await poolItems(s);
        const union = await unionOfMembers(s);
        expect(new Map(listed.map((x) => [spanOf(x), x.capacity_left]))).toEqual(union);
        if (step < 0 || listed.length === 0) break;
        const slot = listed[step % listed.length];
        const res = await book(t, s.pool.reference, {
          start: slot.start,
          end: slot.end,
          pool_uuid: s.pool.uuid,
          product_uuid: s.product.uuid,
          ...consumer(),
        });
        expect(res.statusCode, res.body).toBe(201);
      }
    }),
    seeded('pool A1 = union of members', { numRuns: RUNS }),
  );
}, 600_000);
