/**
 * Property (issue 5 §5): on generated schedules (DST days, overlapping timeslots with different
 * rasters, products with minimum durations and buffers, provider appointments), every bookable A1
 * lists can be reserved and booked, and a candidate slot A1 does not list cannot be reserved; also
 * with a booking window on the resource (minimum notice, days ahead; docs/lifecycle.md).
 * Most steps book a neighbour of the one booked before (the last listed before it, or the
 * first after it): where a product's buffers keep the neighbouring slots free, a slot the engine
 * lists wrongly is refused by the database; and no slot A1 lists may, with its buffers, overlap
 * the buffers of a slot booked before (the rule the engine and the exclusion constraint share).
 * BOOKING_PROPERTY_RUNS changes the number of schedules (default 100, enough to catch a dropped
 * follow-up buffer); PROPERTY_SEED replays a run (test/helpers/property.ts).
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  timeslot,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';
import { createProduct, createResource } from '../helpers/offeringsFixtures.js';
import { seeded } from '../helpers/property.js';

const RUNS = Number(process.env.BOOKING_PROPERTY_RUNS ?? 100);
const ZONE = 'Europe/Berlin';
// 2026-03-29 and 2026-10-25 are the DST switches in Berlin.
const DAYS = ['2026-03-29', '2026-06-02', '2026-10-25'];

let t: TestApp;
let base: Booking;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 1_000_000, maxHoldsPerIp: 1_000_000 });
  base = await setupBooking(t, { timeZone: ZONE });
});
afterAll(() => t.close());

const timeslotArb = fc.record({
  startMin: fc.integer({ min: 0, max: 20 * 60 }).map((m) => m - (m % 15)),
  durationMin: fc.integer({ min: 30, max: 6 * 60 }),
  raster: fc.constantFrom(15, 20, 30, 45, 60),
  capacity: fc.integer({ min: 1, max: 3 }),
});

const scheduleArb = fc.record({
  day: fc.constantFrom(...DAYS),
  /** now, in hours from the day's UTC midnight */
  nowHours: fc.integer({ min: -24, max: 8 }),
  timeslots: fc.array(timeslotArb, { minLength: 1, maxLength: 3 }),
  product: fc.record({
    minDuration: fc.constantFrom(null, 30, 60, 90),
    lead: fc.constantFrom(0, 0, 15, 30),
    followUp: fc.constantFrom(0, 15, 30, 30),
  }),
  appointments: fc.array(
    fc.record({
      startMin: fc.integer({ min: 0, max: 22 * 60 }).map((m) => m - (m % 15)),
      durationMin: fc.constantFrom(15, 30, 60),
      capacity: fc.integer({ min: 1, max: 3 }),
    }),
    { maxLength: 2 },
  ),
  window: fc.record({
    minNoticeMinutes: fc.constantFrom(null, 0, 30, 120, 600),
    maxAdvanceDays: fc.constantFrom(null, null, 0, 1),
  }),
  /** which listed bookable to book in each step: a fraction of the list, or the next one after the last booked */
  picks: fc.array(
    fc.record({
      at: fc.double({ min: 0, max: 0.999, noNaN: true }),
      near: fc.constantFrom('any', 'before', 'before', 'after'),
    }),
    { minLength: 2, maxLength: 3 },
  ),
  /** which unlisted candidates to try in each step */
  probes: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 3 }),
});

type Schedule = typeof scheduleArb extends fc.Arbitrary<infer S> ? S : never;

const local = (day: string, minutes: number) => DateTime.fromISO(day, { zone: ZONE }).startOf('day').plus({ minutes });
/** With the offset: on the fall-back day a wall-clock time alone can be ambiguous. */
const iso = (dt: DateTime) => dt.toISO({ suppressMilliseconds: true })!;

/** Every raster-aligned span of every timeslot, plus off-raster ones: the slots anybody could ask for. */
function candidates(s: Schedule, created: { uuid: string }[], spanUnits: (raster: number) => number) {
  const out: { timeslot_uuid: string; from: string; to: string }[] = [];
  s.timeslots.forEach((ts, i) => {
    const start = local(s.day, ts.startMin);
    const end = local(s.day, ts.startMin + ts.durationMin);
    const span = spanUnits(ts.raster) * ts.raster;
    for (let k = 0; ; k++) {
      const from = start.plus({ minutes: k * ts.raster });
      if (from.plus({ minutes: span }) > end.plus({ minutes: ts.raster })) break;
      for (const [shift, length] of [
        [0, span],
        [5, span],
        [0, ts.raster * 2],
      ]) {
        const f = from.plus({ minutes: shift });
        out.push({ timeslot_uuid: created[i].uuid, from: f.toISO()!, to: f.plus({ minutes: length }).toISO()! });
      }
    }
  });
  return out;
}

const key = (from: string, to: string) => `${Date.parse(from)}-${Date.parse(to)}`;

async function check(s: Schedule): Promise<void> {
  t.clock.set(new Date(Date.parse(`${s.day}T00:00:00Z`) + s.nowHours * 3_600_000));
  const product = await createProduct(base.p, base.provider.providerRef, {
    name: 'Generated',
    minDuration: s.product.minDuration ?? undefined,
    leadTimeMinutes: s.product.lead,
    followUpTimeMinutes: s.product.followUp,
  });
  const resource = await createResource(base.p, base.provider.providerRef, {
    products: [product.reference],
    bookingWindow: s.window,
  });
  const b = { ...base, resource };
  const created = await b.p.call('POST', `${b.base}/timeslots`, {
    timeslots: s.timeslots.map((ts) =>
      timeslot(b as Booking, {
        start: iso(local(s.day, ts.startMin)),
        end: iso(local(s.day, ts.startMin + ts.durationMin)),
        raster: ts.raster,
        defaultCapacity: ts.capacity,
      }),
    ),
  });
  expect(created.statusCode, created.body).toBe(201);
  for (const a of s.appointments) {
    // overlapping ones are refused by the service; the schedule simply has fewer
    await b.p.call('POST', `${b.base}/appointments`, {
      reference: `${uniqueId('apt')}@crm`,
      start: iso(local(s.day, a.startMin)),
      end: iso(local(s.day, a.startMin + a.durationMin)),
      resourceReference: resource.reference,
      productReference: product.reference,
      capacity: a.capacity,
      acceptBookings: true,
    });
  }
  const spanUnits = (raster: number) =>
    s.product.minDuration && s.product.minDuration > raster ? Math.ceil(s.product.minDuration / raster) : 1;
  const all = candidates(s, created.json().timeslots, spanUnits);

  let last: ListedBookable | undefined;
  // the new appointments booked so far: each blocks [start - lead, end + followUp] (docs/api.md, buffers)
  const booked: { startMs: number; endMs: number }[] = [];
  const leadMs = s.product.lead * 60_000;
  const followMs = s.product.followUp * 60_000;
  const expectBuffersKept = (listed: ListedBookable[]) => {
    for (const x of listed) {
      if (x.kind !== 'models.Bookable') continue;
      const [from, to] = [Date.parse(x.start) - leadMs, Date.parse(x.end) + followMs];
      for (const b of booked) {
        const clear = to <= b.startMs - leadMs || from >= b.endMs + followMs;
        expect(
          clear,
          `listed ${x.start}-${x.end} with its buffers overlaps the buffers of the booked ` +
            `${new Date(b.startMs).toISOString()}-${new Date(b.endMs).toISOString()}`,
        ).toBe(true);
      }
    }
  };
  for (let step = 0; step < s.picks.length; step++) {
    const listed: ListedBookable[] = flatten(await upcoming(t, resource.uuid, { prdRef: product.uuid }));
    expectBuffersKept(listed);
    const listedKeys = new Set(listed.map((x) => key(x.start, x.end)));
    const unlisted = all.filter((c) => !listedKeys.has(key(c.from, c.to)));
    const probe = unlisted[Math.floor((s.probes[step] ?? 0) * unlisted.length)];
    if (probe) {
      const res = await reserve(t, resource.uuid, { ...probe, product_uuid: product.uuid });
      expect(res.statusCode, `unlisted ${JSON.stringify(probe)} was reserved: ${res.body}`).not.toBe(201);
    }
    if (listed.length === 0) return;
    const { at, near } = s.picks[step];
    const lastStart = last ? Date.parse(last.start) : NaN;
    const neighbour =
      near === 'after'
        ? listed.find((x) => Date.parse(x.start) > lastStart)
        : near === 'before'
          ? [...listed].reverse().find((x) => Date.parse(x.start) < lastStart)
          : undefined;
    const pick = neighbour ?? listed[Math.floor(at * listed.length)];
    last = pick;
    const held = await reserve(t, resource.uuid, reserveBodyFor(pick, product.uuid));
    expect(held.statusCode, `listed ${JSON.stringify(pick)} could not be reserved: ${held.body}`).toBe(201);
    const done = await book(
      t,
      resource.uuid,
      bookBodyFor(pick, product.uuid, held.json().participation.customer_uuid, consumer()),
    );
    expect(done.statusCode, `listed ${JSON.stringify(pick)} could not be booked: ${done.body}`).toBe(201);
    if (pick.kind === 'models.Bookable') booked.push({ startMs: Date.parse(pick.start), endMs: Date.parse(pick.end) });
  }
  expectBuffersKept(flatten(await upcoming(t, resource.uuid, { prdRef: product.uuid })));
}

it(`every listed bookable can be reserved and booked, no unlisted candidate reserved (${RUNS} schedules)`, async () => {
  try {
    await fc.assert(
      fc.asyncProperty(scheduleArb, check),
      seeded('A1 listing through the real stack', { numRuns: RUNS, endOnFailure: true }),
    );
  } finally {
    t.clock.set('2026-06-01T08:00:00Z');
  }
}, 600_000);
