/**
 * A pool's member runs (listing/poolListing.ts memberRuns): the same as the slot engine's own runs,
 * whether a run is made afresh or reused for a member whose data did not change.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceView } from '../../src/booking/bookableView.js';
import { computeBookables, type EngineAppointment, type EngineTimeslot } from '../../src/booking/slotEngine.js';
import { memberRuns, type MemberData } from '../../src/listing/poolListing.js';

const H = 3_600_000;
const T0 = Date.UTC(2026, 5, 2, 7);
const timeslot = (resourceId: string): EngineTimeslot => ({
  id: `ts-${resourceId}`,
  resourceId,
  startMs: T0,
  endMs: T0 + 3 * H,
  rasterMin: 30,
  defaultCapacity: 1,
  defaultAcceptBookings: true,
  state: 'BOOKABLE',
});
const appointment = (resourceId: string, startMs: number): EngineAppointment => ({
  id: `a-${resourceId}-${startMs}`,
  resourceId,
  timeslotId: `ts-${resourceId}`,
  productId: null,
  startMs,
  endMs: startMs + H / 2,
  capacity: 1,
  acceptBookings: true,
  live: 1,
  state: 'ACTIVE',
  archived: false,
});
const member = (id: string, appointments: EngineAppointment[]): MemberData => ({
  view: { id } as unknown as ResourceView,
  product: null,
  timeslots: [timeslot(id)],
  appointments,
  busy: [],
  closed: [],
});
const own = (m: MemberData, nowMs: number) =>
  computeBookables(m.timeslots, m.appointments, { nowMs, untilMs: nowMs + 90 * 24 * H, product: null });

describe('memberRuns', () => {
  it("equals the members' own engine runs, made afresh, reused, and after a change of one member", () => {
    const a = member('a', []);
    const b = member('b', [appointment('b', T0)]);
    const now = T0 - H;
    const window = { nowMs: now, untilMs: now + 90 * 24 * H };
    const first = memberRuns([a, b], window);
    expect(first.bookables).toHaveLength(own(a, now).length + own(b, now).length);
    expect(first.offered).toHaveLength(12);
    // reused: same objects
    expect(memberRuns([a, { ...b }], window).bookables).toEqual(first.bookables);
    // one member changed: its run is made again
    const b2 = { ...b, appointments: [...b.appointments, appointment('b', T0 + H)] };
    const second = memberRuns([a, b2], window);
    expect(second.bookables).toHaveLength(own(a, now).length + own(b2, now).length);
    // later: started slots are left out of a reused run
    const later = { nowMs: T0 + 10 * 60_000, untilMs: T0 + 90 * 24 * H };
    const third = memberRuns([a, b2], later);
    expect(third.bookables.every((x) => x.startMs > later.nowMs)).toBe(true);
    expect(third.bookables).toHaveLength(own(a, later.nowMs).length + own(b2, later.nowMs).length);
  });
});
