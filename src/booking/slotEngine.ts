/**
 * Pure slot engine: turns timeslots (availabilities) and appointments into the list of
 * bookables offered by A1 upcoming_bookables.
 *
 * No I/O, no clock, no time-zone arithmetic: every instant is epoch milliseconds and every
 * raster unit is a fixed number of real minutes, so DST transitions need no special casing
 * (a 30-minute raster across the spring-forward gap still yields units 30 real minutes apart).
 *
 * Contract (docs/api.md, Booking rules):
 * - Only timeslots with state BOOKABLE, defaultAcceptBookings and defaultCapacity > 0 produce
 *   models.Bookable items. Archived resources are filtered by the caller.
 * - A timeslot is cut from its start into raster units [start + k*r, start + (k+1)*r) that lie
 *   fully inside [start, end]; a trailing partial unit is dropped.
 * - With a product whose minDurationMin exceeds the raster, a candidate spans
 *   n = ceil(minDurationMin / rasterMin) consecutive units of the same timeslot; candidates start at
 *   every unit boundary where n units fit. Otherwise a candidate is one unit.
 * - A candidate is listed when nowMs < start < untilMs and [start - lead, end + followUp]
 *   (buffers only with a product) overlaps the blocked range of no blocking appointment of the
 *   same resource (state ACTIVE, not archived, any capacity) and no busy time of that resource
 *   (a closure or a subscribed calendar's event, DESIGN.md §7.6). An appointment's blocked range is
 *   its time widened by the buffers it was booked with (the database's exclusion constraint spans
 *   the same ranges). Overlap is half-open: touching is fine.
 * - Existing appointments (ACTIVE, not archived, acceptBookings, capacity - live > 0,
 *   nowMs < start < untilMs, blocked range meeting no busy time; with a product only those of that
 *   product) are listed as models.LotAppointment with capacityLeft = capacity - live.
 * - Neither is listed when its start lies in a closed span of its resource, [startMs, endMs): a date
 *   or week at the resource's booking limit (offerings/bookingLimits.ts closedSpans).
 * - Identical (resource, start, end) Bookable candidates from overlapping timeslots are listed
 *   once; the timeslot with the smallest id (string order) wins, so the result does not depend
 *   on input order.
 * - Output sorted by startMs, resourceId, endMs (then kind, then id, for determinism).
 */

import { isCurrentAppointment } from '../scheduling/appointmentState.js';

export interface EngineTimeslot {
  id: string;
  resourceId: string;
  startMs: number;
  endMs: number;
  rasterMin: number;
  defaultCapacity: number;
  defaultAcceptBookings: boolean;
  state: 'CREATED' | 'BOOKABLE';
}

export interface EngineAppointment {
  id: string;
  resourceId: string;
  timeslotId: string | null;
  productId: string | null;
  startMs: number;
  endMs: number;
  capacity: number;
  acceptBookings: boolean;
  /** RESERVED-with-live-hold + REQUESTED + BOOKED participations */
  live: number;
  state: 'ACTIVE' | 'CANCELLED';
  archived: boolean;
  /** start of the range it blocks (its lead buffer included); default startMs */
  blockedFromMs?: number;
  /** end of the range it blocks (its follow-up buffer included); default endMs */
  blockedUntilMs?: number;
}

/**
 * A time the resource is busy outside this service's appointments:
 * it blocks as an appointment does, but is never listed.
 */
export interface EngineBusy {
  resourceId: string;
  startMs: number;
  endMs: number;
}

/**
 * A span in which no slot of the resource may start, whatever its end: a date or week at the
 * resource's booking limit (offerings/bookingLimits.ts closedSpans).
 */
export interface EngineClosedSpan {
  resourceId: string;
  startMs: number;
  endMs: number;
}

/** What blocks: an appointment (its blocked range) or a busy time (its own range). */
type Blocking = Pick<EngineAppointment, 'startMs' | 'endMs' | 'blockedFromMs' | 'blockedUntilMs'>;

export interface EngineProduct {
  id: string;
  leadMin: number;
  followUpMin: number;
  minDurationMin: number | null;
}

export interface EngineQuery {
  nowMs: number;
  untilMs: number;
  product: EngineProduct | null;
}

export type EngineBookable =
  | {
      kind: 'models.Bookable';
      timeslotId: string;
      resourceId: string;
      startMs: number;
      endMs: number;
      capacity: number;
      capacityLeft: number;
    }
  | {
      kind: 'models.LotAppointment';
      appointmentId: string;
      timeslotId: string | null;
      productId: string | null;
      resourceId: string;
      startMs: number;
      endMs: number;
      capacity: number;
      capacityLeft: number;
    };

export type EngineBookableSlot = Extract<EngineBookable, { kind: 'models.Bookable' }>;
export type EngineLotAppointment = Extract<EngineBookable, { kind: 'models.LotAppointment' }>;

const MINUTE_MS = 60_000;

/** An appointment blocks slots on its resource when it is ACTIVE and not archived, whatever its capacity. */
export function isBlockingAppointment(a: EngineAppointment): boolean {
  return isCurrentAppointment(a);
}

/** A timeslot produces models.Bookable candidates only when this holds. */
export function isOfferingTimeslot(t: EngineTimeslot): boolean {
  return (
    t.state === 'BOOKABLE' &&
    t.defaultAcceptBookings === true &&
    t.defaultCapacity > 0 &&
    Number.isFinite(t.rasterMin) &&
    t.rasterMin > 0 &&
    Number.isFinite(t.startMs) &&
    Number.isFinite(t.endMs) &&
    t.endMs > t.startMs
  );
}

/** Number of consecutive raster units a candidate spans for the given product. */
export function unitsPerCandidate(rasterMin: number, product: EngineProduct | null): number {
  const min = product?.minDurationMin;
  if (min == null || !(min > rasterMin)) return 1;
  return Math.ceil(min / rasterMin);
}

/**
 * Blocked ranges of one resource's blocking appointments, sorted by start, with the running maximum
 * of their ends. [a, b) overlaps some range iff, among the ranges starting before b, the largest
 * end exceeds a. This holds even when ranges overlap each other (which the database forbids, but
 * the engine does not rely on it).
 */
interface BlockIndex {
  starts: Float64Array;
  maxEnds: Float64Array;
}

const blockedFrom = (a: Blocking) => a.blockedFromMs ?? a.startMs;
const blockedUntil = (a: Blocking) => a.blockedUntilMs ?? a.endMs;
const byBlockedFrom = (x: Blocking, y: Blocking) => blockedFrom(x) - blockedFrom(y);

/**
 * Sorts `appts` in place (the engine's own per-resource array, never the caller's) unless they come sorted, as loaded.
 */
function buildBlockIndex(appts: Blocking[]): BlockIndex {
  const n = appts.length;
  for (let i = 1; i < n; i++) {
    if (blockedFrom(appts[i - 1]) > blockedFrom(appts[i])) {
      appts.sort(byBlockedFrom);
      break;
    }
  }
  const starts = new Float64Array(n);
  const maxEnds = new Float64Array(n);
  let maxEnd = -Infinity;
  for (let i = 0; i < n; i++) {
    const a = appts[i];
    starts[i] = blockedFrom(a);
    const until = blockedUntil(a);
    if (until > maxEnd) maxEnd = until;
    maxEnds[i] = maxEnd;
  }
  return { starts, maxEnds };
}

/** Number of entries of the sorted array strictly below x. */
function countBelow(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const EMPTY_INDEX: BlockIndex = { starts: new Float64Array(0), maxEnds: new Float64Array(0) };

/** Whether [lo, hi) overlaps a range of the index. */
function meets({ starts, maxEnds }: BlockIndex, lo: number, hi: number): boolean {
  const p = countBelow(starts, hi);
  return p > 0 && maxEnds[p - 1] > lo;
}

/** `list` grouped by resource, each group a new array. */
function byResource<T extends { resourceId: string }>(list: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const x of list) {
    const group = groups.get(x.resourceId);
    if (group) group.push(x);
    else groups.set(x.resourceId, [x]);
  }
  return groups;
}

/** The order of computeBookables' output: startMs, resourceId, endMs, then Bookable before LotAppointment, then id. */
export function compareBookables(x: EngineBookable, y: EngineBookable): number {
  if (x.startMs !== y.startMs) return x.startMs - y.startMs;
  if (x.resourceId !== y.resourceId) return x.resourceId < y.resourceId ? -1 : 1;
  if (x.endMs !== y.endMs) return x.endMs - y.endMs;
  if (x.kind !== y.kind) return x.kind === 'models.Bookable' ? -1 : 1;
  const xi = x.kind === 'models.Bookable' ? x.timeslotId : x.appointmentId;
  const yi = y.kind === 'models.Bookable' ? y.timeslotId : y.appointmentId;
  return xi < yi ? -1 : xi > yi ? 1 : 0;
}

export function computeBookables(
  timeslots: EngineTimeslot[],
  appointments: EngineAppointment[],
  query: EngineQuery,
  busy: readonly EngineBusy[] = [],
  closed: readonly EngineClosedSpan[] = [],
): EngineBookable[] {
  const { nowMs, untilMs, product } = query;
  const leadMs = product ? Math.max(0, product.leadMin || 0) * MINUTE_MS : 0;
  const followMs = product ? Math.max(0, product.followUpMin || 0) * MINUTE_MS : 0;
  const out: EngineBookable[] = [];

  const busyByResource = byResource(busy);
  const busyIndexes = new Map<string, BlockIndex>();
  for (const [resourceId, list] of busyByResource) busyIndexes.set(resourceId, buildBlockIndex([...list]));

  // Closed spans (booking limits): a start inside one is not listed; [start, start + 1) meets it.
  const closedIndexes = new Map<string, BlockIndex>();
  for (const [resourceId, list] of byResource(closed)) closedIndexes.set(resourceId, buildBlockIndex(list));
  const startsClosed = (index: BlockIndex | undefined, startMs: number) =>
    index !== undefined && meets(index, startMs, startMs + 1);

  // Existing appointments: group blocking ones per resource; list joinable ones.
  const blockingByResource = new Map<string, Blocking[]>();
  const seenAppointments = new Set<string>();
  for (const a of appointments) {
    if (!isBlockingAppointment(a)) continue;
    let list = blockingByResource.get(a.resourceId);
    if (!list) {
      list = [];
      blockingByResource.set(a.resourceId, list);
    }
    list.push(a);
    const busyIndex = busyIndexes.get(a.resourceId);

    const left = a.capacity - a.live;
    if (
      a.acceptBookings &&
      left > 0 &&
      a.startMs > nowMs &&
      a.startMs < untilMs &&
      (!product || a.productId === product.id) &&
      !seenAppointments.has(a.id) &&
      !(busyIndex && meets(busyIndex, blockedFrom(a), blockedUntil(a))) &&
      !startsClosed(closedIndexes.get(a.resourceId), a.startMs)
    ) {
      seenAppointments.add(a.id);
      out.push({
        kind: 'models.LotAppointment',
        appointmentId: a.id,
        timeslotId: a.timeslotId,
        productId: a.productId,
        resourceId: a.resourceId,
        startMs: a.startMs,
        endMs: a.endMs,
        capacity: a.capacity,
        capacityLeft: left,
      });
    }
  }

  // Busy times block candidates as appointments do.
  for (const [resourceId, list] of busyByResource) {
    const blocking = blockingByResource.get(resourceId);
    if (blocking) blocking.push(...list);
    else blockingByResource.set(resourceId, [...list]);
  }

  const indexes = new Map<string, BlockIndex>();
  const indexFor = (resourceId: string): BlockIndex => {
    let idx = indexes.get(resourceId);
    if (!idx) {
      const list = blockingByResource.get(resourceId);
      idx = list ? buildBlockIndex(list) : EMPTY_INDEX;
      indexes.set(resourceId, idx);
    }
    return idx;
  };

  let bookableCount = 0;
  for (const t of timeslots) {
    if (!isOfferingTimeslot(t)) continue;
    const unitMs = t.rasterMin * MINUTE_MS;
    const n = unitsPerCandidate(t.rasterMin, product);
    const spanMs = n * unitMs;
    let units = Math.floor((t.endMs - t.startMs) / unitMs);
    while (units > 0 && t.startMs + units * unitMs > t.endMs) units--; // rounding guard
    const lastK = units - n; // last candidate index (inclusive)
    if (lastK < 0) continue;

    // First k with start > now.
    let k = 0;
    if (t.startMs <= nowMs) {
      k = Math.floor((nowMs - t.startMs) / unitMs) + 1;
      // Exactness guards against floating-point rounding of the division (cheap, rarely loops).
      while (k > 0 && t.startMs + (k - 1) * unitMs > nowMs) k--;
      while (t.startMs + k * unitMs <= nowMs) k++;
    }
    if (k > lastK) continue;

    const { starts, maxEnds } = indexFor(t.resourceId);
    const m = starts.length;
    const closedIndex = closedIndexes.get(t.resourceId);
    // Appointments starting before the buffered end of the candidate; moves forward only.
    let p = 0;
    for (; k <= lastK; k++) {
      const startMs = t.startMs + k * unitMs;
      if (startMs >= untilMs) break;
      const endMs = startMs + spanMs;
      const lo = startMs - leadMs;
      const hi = endMs + followMs;
      if (m > 0) {
        if (p === 0) p = countBelow(starts, hi);
        else while (p < m && starts[p] < hi) p++;
        if (p > 0 && maxEnds[p - 1] > lo) continue;
      }
      if (startsClosed(closedIndex, startMs)) continue;
      out.push({
        kind: 'models.Bookable',
        timeslotId: t.id,
        resourceId: t.resourceId,
        startMs,
        endMs,
        capacity: t.defaultCapacity,
        capacityLeft: t.defaultCapacity,
      });
      bookableCount++;
    }
  }

  out.sort(compareBookables);

  if (bookableCount === 0) return out;
  // Dedupe identical Bookables (adjacent after sorting; the smallest timeslot id comes first).
  let w = 0;
  for (let r = 0; r < out.length; r++) {
    const cur = out[r];
    if (w > 0 && cur.kind === 'models.Bookable') {
      const prev = out[w - 1];
      if (
        prev.kind === 'models.Bookable' &&
        prev.startMs === cur.startMs &&
        prev.endMs === cur.endMs &&
        prev.resourceId === cur.resourceId
      ) {
        continue;
      }
    }
    out[w++] = cur;
  }
  out.length = w;
  return out;
}
