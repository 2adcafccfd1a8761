import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { propertyRuns, seeded } from '../helpers/property.js';
import {
  computeBookables,
  type EngineAppointment,
  type EngineBookable,
  type EngineProduct,
  type EngineQuery,
  type EngineTimeslot,
} from '../../src/booking/slotEngine.js';

const MIN = 60_000;
/** 2026-05-04T06:00:00Z; all generated times are minute offsets from here. */
const BASE = Date.UTC(2026, 4, 4, 6);
const at = (min: number) => BASE + min * MIN;

const RESOURCES = ['r1', 'r2', 'r3'];
const PRODUCTS = ['p1', 'p2'];

const rasterArb = fc.oneof(fc.constantFrom(15, 30, 45, 60), fc.integer({ min: 5, max: 120 }));
// Coarse starts on few resources so that timeslots often overlap and produce identical candidates.
const slotStartArb = fc.oneof(
  fc.integer({ min: 0, max: 80 }).map((x) => x * 15),
  fc.integer({ min: 0, max: 2000 }),
);

const timeslotArb = fc.record({
  tag: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  resourceId: fc.constantFrom('r1', 'r1', ...RESOURCES),
  startMin: slotStartArb,
  durMin: fc.integer({ min: 0, max: 600 }),
  rasterMin: rasterArb,
  defaultCapacity: fc.integer({ min: 0, max: 3 }),
  defaultAcceptBookings: fc.constantFrom(true, true, true, false),
  state: fc.constantFrom<'CREATED' | 'BOOKABLE'>('BOOKABLE', 'BOOKABLE', 'BOOKABLE', 'CREATED'),
});

const appointmentArb = fc.record({
  resourceId: fc.constantFrom(...RESOURCES),
  productId: fc.constantFrom<string | null>(null, ...PRODUCTS),
  startMin: fc.integer({ min: -60, max: 2200 }),
  durMin: fc.integer({ min: 5, max: 180 }),
  capacity: fc.integer({ min: 0, max: 4 }),
  live: fc.integer({ min: 0, max: 5 }),
  acceptBookings: fc.boolean(),
  state: fc.constantFrom<'ACTIVE' | 'CANCELLED'>('ACTIVE', 'ACTIVE', 'ACTIVE', 'CANCELLED'),
  archived: fc.constantFrom(false, false, false, false, true),
});

const productArb: fc.Arbitrary<EngineProduct | null> = fc.option(
  fc.record({
    id: fc.constantFrom(...PRODUCTS),
    leadMin: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90 })),
    followUpMin: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90 })),
    minDurationMin: fc.option(fc.integer({ min: 5, max: 300 }), { nil: null }),
  }),
  { nil: null },
);

const scheduleArb = fc
  .record({
    timeslots: fc.array(timeslotArb, { maxLength: 6 }),
    appointments: fc.array(appointmentArb, { maxLength: 10 }),
    product: productArb,
    // Copies of generated timeslots shifted by whole raster units: overlapping timeslots that
    // produce identical candidates, so the dedupe rule is exercised.
    twins: fc.array(
      fc.record({
        of: fc.nat(),
        tag: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        shiftUnits: fc.integer({ min: -4, max: 4 }),
        durDeltaMin: fc.integer({ min: -120, max: 240 }),
        capacity: fc.integer({ min: 1, max: 3 }),
      }),
      { maxLength: 3 },
    ),
    nowMin: fc.oneof(fc.integer({ min: -100, max: 2500 }), fc.integer({ min: -100, max: 600 })),
    windowMin: fc.oneof(fc.constant(100_000), fc.integer({ min: 0, max: 3000 })),
  })
  .map(({ timeslots, twins, appointments, product, nowMin, windowMin }) => {
    const ts: EngineTimeslot[] = timeslots.map((t, i) => ({
      id: `${t.tag}${i}`,
      resourceId: t.resourceId,
      startMs: at(t.startMin),
      endMs: at(t.startMin + t.durMin),
      rasterMin: t.rasterMin,
      defaultCapacity: t.defaultCapacity,
      defaultAcceptBookings: t.defaultAcceptBookings,
      state: t.state,
    }));
    if (ts.length > 0) {
      for (const [j, w] of twins.entries()) {
        const base = ts[w.of % ts.length];
        const startMs = base.startMs + w.shiftUnits * base.rasterMin * MIN;
        ts.push({
          ...base,
          id: `${w.tag}${ts.length + j}`,
          startMs,
          endMs: Math.max(startMs, base.endMs + w.durDeltaMin * MIN),
          defaultCapacity: w.capacity,
        });
      }
    }
    const ap: EngineAppointment[] = appointments.map((a, i) => ({
      id: `ap${i}`,
      resourceId: a.resourceId,
      timeslotId: ts.length > 0 ? ts[i % ts.length].id : null,
      productId: a.productId,
      startMs: at(a.startMin),
      endMs: at(a.startMin + a.durMin),
      capacity: a.capacity,
      acceptBookings: a.acceptBookings,
      live: a.live,
      state: a.state,
      archived: a.archived,
    }));
    const query: EngineQuery = { nowMs: at(nowMin), untilMs: at(nowMin + windowMin), product };
    return { ts, ap, query };
  });

// ---------------------------------------------------------------------------------------------
// Naive reference: O(candidates × appointments), written straight from the rules.

const overlaps = (a0: number, a1: number, b0: number, b1: number) => a0 < b1 && b0 < a1;
const blocking = (a: EngineAppointment) => a.state === 'ACTIVE' && !a.archived;

let referenceDuplicates = 0;

function reference(ts: EngineTimeslot[], ap: EngineAppointment[], q: EngineQuery): EngineBookable[] {
  const lead = q.product ? q.product.leadMin * MIN : 0;
  const follow = q.product ? q.product.followUpMin * MIN : 0;
  const byKey = new Map<string, EngineBookable>();
  for (const t of ts) {
    if (t.state !== 'BOOKABLE' || !t.defaultAcceptBookings || t.defaultCapacity <= 0) continue;
    const unit = t.rasterMin * MIN;
    const min = q.product?.minDurationMin;
    const n = min != null && min > t.rasterMin ? Math.ceil(min / t.rasterMin) : 1;
    for (let k = 0; t.startMs + (k + n) * unit <= t.endMs; k++) {
      const s = t.startMs + k * unit;
      const e = s + n * unit;
      if (!(s > q.nowMs && s < q.untilMs)) continue;
      if (
        ap.some(
          (a) => blocking(a) && a.resourceId === t.resourceId && overlaps(s - lead, e + follow, a.startMs, a.endMs),
        )
      )
        continue;
      const key = `${t.resourceId}|${s}|${e}`;
      const prev = byKey.get(key);
      if (prev) referenceDuplicates++;
      if (prev && prev.kind === 'models.Bookable' && prev.timeslotId < t.id) continue;
      byKey.set(key, {
        kind: 'models.Bookable',
        timeslotId: t.id,
        resourceId: t.resourceId,
        startMs: s,
        endMs: e,
        capacity: t.defaultCapacity,
        capacityLeft: t.defaultCapacity,
      });
    }
  }
  const out = [...byKey.values()];
  for (const a of ap) {
    if (!blocking(a) || !a.acceptBookings || a.capacity - a.live <= 0) continue;
    if (!(a.startMs > q.nowMs && a.startMs < q.untilMs)) continue;
    if (q.product && a.productId !== q.product.id) continue;
    out.push({
      kind: 'models.LotAppointment',
      appointmentId: a.id,
      timeslotId: a.timeslotId,
      productId: a.productId,
      resourceId: a.resourceId,
      startMs: a.startMs,
      endMs: a.endMs,
      capacity: a.capacity,
      capacityLeft: a.capacity - a.live,
    });
  }
  const id = (b: EngineBookable) => (b.kind === 'models.Bookable' ? `B:${b.timeslotId}` : `L:${b.appointmentId}`);
  return out.sort(
    (x, y) =>
      x.startMs - y.startMs ||
      (x.resourceId < y.resourceId ? -1 : x.resourceId > y.resourceId ? 1 : 0) ||
      x.endMs - y.endMs ||
      (id(x) < id(y) ? -1 : id(x) > id(y) ? 1 : 0),
  );
}

// ---------------------------------------------------------------------------------------------

function checkInvariants(ts: EngineTimeslot[], ap: EngineAppointment[], q: EngineQuery, out: EngineBookable[]): void {
  const lead = q.product ? q.product.leadMin * MIN : 0;
  const follow = q.product ? q.product.followUpMin * MIN : 0;
  const seen = new Set<string>();
  for (let i = 0; i < out.length; i++) {
    const b = out[i];
    expect(b.capacityLeft).toBeGreaterThan(0);
    expect(b.startMs).toBeGreaterThan(q.nowMs);
    expect(b.startMs).toBeLessThan(q.untilMs);
    if (b.kind === 'models.Bookable') {
      const t = ts.find((x) => x.id === b.timeslotId);
      expect(t).toBeDefined();
      if (!t) return;
      expect(t.state).toBe('BOOKABLE');
      expect(t.defaultAcceptBookings).toBe(true);
      expect(t.resourceId).toBe(b.resourceId);
      const unit = t.rasterMin * MIN;
      expect(b.startMs).toBeGreaterThanOrEqual(t.startMs);
      expect(b.endMs).toBeLessThanOrEqual(t.endMs);
      expect((b.startMs - t.startMs) % unit).toBe(0);
      expect((b.endMs - t.startMs) % unit).toBe(0);
      expect(b.endMs).toBeGreaterThan(b.startMs);
      const min = q.product?.minDurationMin;
      if (min != null) expect(b.endMs - b.startMs).toBeGreaterThanOrEqual(Math.min(min, t.rasterMin) * MIN);
      for (const a of ap) {
        if (blocking(a) && a.resourceId === b.resourceId) {
          expect(overlaps(b.startMs - lead, b.endMs + follow, a.startMs, a.endMs)).toBe(false);
        }
      }
      const key = `B|${b.resourceId}|${b.startMs}|${b.endMs}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    } else {
      const a = ap.find((x) => x.id === b.appointmentId);
      expect(a).toBeDefined();
      if (!a) return;
      expect(a.state).toBe('ACTIVE');
      expect(a.archived).toBe(false);
      expect(a.acceptBookings).toBe(true);
      expect(b.capacityLeft).toBe(a.capacity - a.live);
      if (q.product) expect(a.productId).toBe(q.product.id);
      const key = `L|${b.appointmentId}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    if (i > 0) {
      const p = out[i - 1];
      const order =
        p.startMs - b.startMs ||
        (p.resourceId < b.resourceId ? -1 : p.resourceId > b.resourceId ? 1 : 0) ||
        p.endMs - b.endMs;
      expect(order).toBeLessThanOrEqual(0);
    }
  }
}

describe('slot engine properties', () => {
  it('lists exactly the rule-satisfying candidates and keeps every invariant on random schedules', () => {
    let nonEmpty = 0;
    const dupesBefore = referenceDuplicates;
    fc.assert(
      fc.property(scheduleArb, ({ ts, ap, query }) => {
        const out = computeBookables(ts, ap, query);
        checkInvariants(ts, ap, query, out);
        const expected = reference(ts, ap, query);
        expect(out).toEqual(expected);
        if (out.length > 0) nonEmpty++;
      }),
      seeded('slot engine: exactly the rule-satisfying candidates', { numRuns: 3000 }),
    );
    // The generator must actually exercise the engine, not produce empty schedules.
    expect(nonEmpty).toBeGreaterThan(propertyRuns(3000) / 3);
    // ... and must produce identical candidates from overlapping timeslots, so dedupe is tested.
    expect(referenceDuplicates - dupesBefore).toBeGreaterThan(propertyRuns(3000) / 60);
  });

  it('does not depend on the order of timeslots and appointments', () => {
    fc.assert(
      fc.property(scheduleArb, fc.nat(), ({ ts, ap, query }, seed) => {
        const rot = <T>(xs: T[]) =>
          xs.length ? [...xs.slice(seed % xs.length), ...xs.slice(0, seed % xs.length)].reverse() : xs;
        expect(computeBookables(rot(ts), rot(ap), query)).toEqual(computeBookables(ts, ap, query));
      }),
      seeded('slot engine: order independence', { numRuns: 2000 }),
    );
  });

  it('does not modify its inputs', () => {
    fc.assert(
      fc.property(scheduleArb, ({ ts, ap, query }) => {
        const before = JSON.stringify([ts, ap, query]);
        computeBookables(ts, ap, query);
        expect(JSON.stringify([ts, ap, query])).toBe(before);
      }),
      seeded('slot engine: inputs untouched', { numRuns: 500 }),
    );
  });
});
