/**
 * Property (DESIGN 7.9, freed time): random sequences of reserve, book, complete a hold, cancel by
 * link, partner cancel or delete (D10), hold expiry and reschedule on one resource whose product
 * has buffers. After each sequence, A1 equals the listing computed from the live participations
 * alone: the slot engine over the timeslot and only those appointments in which some participation
 * holds a place now, as read from the rows (not through the listing's SQL).
 * PROPERTY_SEED replays a run; FREED_TIME_PROPERTY_RUNS sets the number of sequences.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { computeBookables, type EngineAppointment } from '../../src/booking/slotEngine.js';
import { holdsPlace } from '../../src/scheduling/capacity.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  createTimeslots,
  flatten,
  publicCall,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';
import { moveBodyFor, participationOfToken, reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';

const RUNS = Number(process.env.FREED_TIME_PROPERTY_RUNS ?? 25);
const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Math.floor(Math.random() * 2 ** 31);
const START = new Date('2026-06-01T08:00:00Z');
const HOLD_MS = 180_000;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 1_000_000, maxHoldsPerIp: 1_000_000 });
});
afterAll(() => t.close());

const pick = fc.double({ min: 0, max: 0.999, noNaN: true });
const step = fc.oneof(
  fc.record({ op: fc.constant('reserve' as const), slot: pick }),
  fc.record({ op: fc.constant('book' as const), slot: pick }),
  fc.record({ op: fc.constant('complete' as const), hold: pick }),
  fc.record({ op: fc.constant('cancel' as const), booking: pick }),
  fc.record({ op: fc.constant('partner' as const), booking: pick, state: fc.constantFrom('CANCELED', 'DELETED') }),
  fc.record({ op: fc.constant('expire' as const) }),
  fc.record({ op: fc.constant('reschedule' as const), booking: pick, slot: pick }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

const scenario = fc.record({
  lead: fc.constantFrom(0, 15, 30),
  followUp: fc.constantFrom(15, 30),
  capacity: fc.constantFrom(1, 1, 2),
  steps: fc.array(step, { minLength: 1, maxLength: 10 }),
});

interface World {
  b: Booking;
  holds: { placeholder: string; slot: ListedBookable }[];
  bookings: string[];
}

const at = <T>(list: T[], fraction: number): T | undefined => list[Math.floor(fraction * list.length)];
const listed = async (b: Booking) => flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));

async function apply(w: World, s: Step): Promise<void> {
  const { b } = w;
  switch (s.op) {
    case 'reserve': {
      const slot = at(await listed(b), s.slot);
      if (!slot) return;
      const res = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid));
      expect(res.statusCode, res.body).toBe(201);
      w.holds.push({ placeholder: res.json().participation.placeholder_id, slot });
      return;
    }
    case 'book': {
      const slot = at(await listed(b), s.slot);
      if (!slot) return;
      const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid));
      expect(res.statusCode, res.body).toBe(201);
      w.bookings.push(tokenOf(res.json().createdAppointment.cancelLink));
      return;
    }
    case 'complete': {
      const hold = at(w.holds, s.hold);
      if (!hold) return;
      w.holds.splice(w.holds.indexOf(hold), 1);
      // an expired hold books anew when its place is free, else 412 "201": both are fine here
      const res = await book(t, b.resource.reference, bookBodyFor(hold.slot, b.product.uuid, hold.placeholder));
      expect([201, 412], res.body).toContain(res.statusCode);
      if (res.statusCode === 201) w.bookings.push(tokenOf(res.json().createdAppointment.cancelLink));
      return;
    }
    case 'cancel': {
      const token = at(w.bookings, s.booking);
      if (!token) return;
      w.bookings.splice(w.bookings.indexOf(token), 1);
      expect((await publicCall(t, 'POST', `/cancel/${encodeURIComponent(token)}`)).statusCode).toBe(200);
      return;
    }
    case 'partner': {
      const token = at(w.bookings, s.booking);
      if (!token) return;
      w.bookings.splice(w.bookings.indexOf(token), 1);
      const { reference } = await participationOfToken(t, token);
      const res = await b.p.call('POST', `${b.base}/participations/${encodeURIComponent(reference)}`, {
        state: s.state,
      });
      expect(res.statusCode, res.body).toBe(200);
      return;
    }
    case 'expire':
      t.clock.advance(HOLD_MS + 1);
      return;
    case 'reschedule': {
      const token = at(w.bookings, s.booking);
      const slot = at(await listed(b), s.slot);
      if (!token || !slot) return;
      const res = await reschedule(t, token, moveBodyFor(slot));
      expect([200, 412], res.body).toContain(res.statusCode);
      return;
    }
  }
}

/** The listing as the live participations alone make it: each appointment that some participation holds a place in. */
async function expectedListing(w: World & { lead: number; followUp: number }): Promise<string[]> {
  const now = t.clock.now();
  const [slot] = await t.db.query<{
    id: string;
    start_at: Date;
    end_at: Date;
    raster: number;
    default_capacity: number;
  }>('SELECT id, start_at, end_at, raster, default_capacity FROM timeslots WHERE resource_id = $1', [
    w.b.resource.uuid,
  ]);
  const rows = await t.db.query<{
    id: string;
    timeslot_id: string | null;
    product_id: string | null;
    start_at: Date;
    end_at: Date;
    blocked_from: Date;
    blocked_until: Date;
    capacity: number;
    accept_bookings: boolean;
    state: string;
    hold_until: Date | null;
  }>(
    `SELECT a.id, a.timeslot_id, a.product_id, a.start_at, a.end_at, a.blocked_from, a.blocked_until, a.capacity,
       a.accept_bookings, p.state, p.hold_until
       FROM appointments a JOIN participations p ON p.appointment_id = a.id WHERE a.resource_id = $1`,
    [w.b.resource.uuid],
  );
  const live = new Map<string, EngineAppointment>();
  for (const r of rows) {
    if (!holdsPlace(r, now)) continue;
    const a = live.get(r.id) ?? {
      id: r.id,
      resourceId: w.b.resource.uuid,
      timeslotId: r.timeslot_id,
      productId: r.product_id,
      startMs: r.start_at.getTime(),
      endMs: r.end_at.getTime(),
      blockedFromMs: r.blocked_from.getTime(),
      blockedUntilMs: r.blocked_until.getTime(),
      capacity: r.capacity,
      acceptBookings: r.accept_bookings,
      live: 0,
      state: 'ACTIVE' as const,
      archived: false,
    };
    a.live++;
    live.set(r.id, a);
  }
  const engine = computeBookables(
    [
      {
        id: slot.id,
        resourceId: w.b.resource.uuid,
        startMs: slot.start_at.getTime(),
        endMs: slot.end_at.getTime(),
        rasterMin: slot.raster,
        defaultCapacity: slot.default_capacity,
        defaultAcceptBookings: true,
        state: 'BOOKABLE',
      },
    ],
    [...live.values()].sort((x, y) => x.startMs - y.startMs),
    {
      nowMs: now.getTime(),
      untilMs: now.getTime() + 90 * 86_400_000,
      product: { id: w.b.product.uuid, leadMin: w.lead, followUpMin: w.followUp, minDurationMin: null },
    },
  );
  return engine.map((e) => `${e.kind} ${new Date(e.startMs).toISOString()} ${e.capacityLeft}`);
}

const shown = (list: ListedBookable[]) =>
  list.map((s) => `${s.kind} ${new Date(s.start).toISOString()} ${s.capacity_left}`);

it(`A1 equals the listing of the live participations alone after any sequence (seed ${SEED})`, async () => {
  console.info(`booking-freed-time-property: PROPERTY_SEED=${SEED}`);
  await fc.assert(
    fc.asyncProperty(scenario, async ({ lead, followUp, capacity, steps }) => {
      t.clock.set(START);
      try {
        const b = await setupBooking(t, { product: { leadTimeMinutes: lead, followUpTimeMinutes: followUp } });
        await createTimeslots(b, [
          { start: '2026-06-02T09:00', end: '2026-06-02T12:00', raster: 30, defaultCapacity: capacity },
        ]);
        const w: World & { lead: number; followUp: number } = { b, holds: [], bookings: [], lead, followUp };
        for (const s of steps) {
          await apply(w, s);
          expect(shown(await listed(b)), JSON.stringify(s)).toEqual(await expectedListing(w));
        }
      } finally {
        t.clock.set(START);
      }
    }),
    { numRuns: RUNS, seed: SEED },
  );
});
