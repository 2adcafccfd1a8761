/**
 * A pool's A1 (DESIGN 7.11): one models.PoolBookable per distinct (start, end, product) at which at
 * least one member could take the booking now, by every rule that member's own A1 applies. The
 * members' slots are computed exactly as their own listings are (listingCompute.ts, the same run
 * of the slot engine over the same data), then merged here: capacity_left counts the members
 * listing the span, capacity the members whose BOOKABLE timeslots offer it before any booking,
 * busy time, window or limit.
 */
import type { InstantFormatter, ResourceView } from '../booking/bookableView.js';
import type { CompiledPattern } from '../booking/datePattern.js';
import {
  compareBookables,
  computeBookables,
  type EngineAppointment,
  type EngineBookable,
  type EngineBusy,
  type EngineClosedSpan,
  type EngineProduct,
  type EngineTimeslot,
} from '../booking/slotEngine.js';

/** A member's listed slot (listingCompute.ts's ListedSlot), as far as the merge reads it. */
interface ListedSlot {
  view: ResourceView;
  startMs: number;
  endMs: number;
  product: { id: string; name: string } | null;
}

/** The pool a listing is of. */
export interface PoolFacts {
  id: string;
  name: string;
}

export interface PoolItem {
  kind: 'models.PoolBookable';
  pool_uuid: string;
  timeslot_uuid: null;
  product_uuid: string | null;
  resource_uuid: null;
  product_name: string;
  resource_name: string;
  start: string;
  end: string;
  formattedStart: string;
  formattedEnd: string;
  contact_channel: null;
  capacity: number;
  capacity_left: number;
  products: { uuid: string; name: string }[];
}

/** A merged slot: the first member's slot (for times and product) and what the item needs. */
export interface PoolSlot {
  view: ListedSlot['view'];
  item(fmt: InstantFormatter, timeFormat: CompiledPattern): PoolItem;
}

/** Per start instant, the spans from it: their end, and what is counted or merged for them. */
type ByStart<T> = Map<number, (T & { endMs: number })[]>;

function spanEntry<T>(map: ByStart<T>, startMs: number, endMs: number, make: () => T): T & { endMs: number } {
  const list = map.get(startMs) ?? [];
  if (list.length === 0) map.set(startMs, list);
  for (const e of list) if (e.endMs === endMs) return e;
  const e = { ...make(), endMs };
  list.push(e);
  return e;
}

/**
 * The members' listed slots by group text, merged per span and product, in the groups' order.
 * Keyed by numbers (start, then end), not by texts: a pool of 20 lists thousands of member slots.
 */
export function poolSlots(
  groups: Record<string, ListedSlot[]>,
  offered: EngineBookable[],
  pool: PoolFacts,
): Record<string, PoolSlot[]> {
  const offering: ByStart<{ members: Set<string> }> = new Map();
  for (const b of offered)
    spanEntry(offering, b.startMs, b.endMs, () => ({ members: new Set<string>() })).members.add(b.resourceId);
  const out: Record<string, PoolSlot[]> = Object.create(null);
  for (const [group, slots] of Object.entries(groups)) {
    const merged: ByStart<{
      items: { first: ListedSlot; members: Set<string>; refs: Set<ResourceView['productRefs']> }[];
    }> = new Map();
    const all: { first: ListedSlot; members: Set<string>; refs: Set<ResourceView['productRefs']> }[] = [];
    for (const s of slots) {
      const at = spanEntry(merged, s.startMs, s.endMs, () => ({ items: [] as typeof all }));
      const productId = s.product?.id;
      let m = at.items.find((x) => x.first.product?.id === productId);
      if (!m) {
        m = { first: s, members: new Set(), refs: new Set() };
        at.items.push(m);
        all.push(m);
      }
      m.members.add(s.view.resource.id);
      m.refs.add(s.view.productRefs);
    }
    out[group] = all
      .sort((a, b) => a.first.startMs - b.first.startMs || a.first.endMs - b.first.endMs)
      .map(({ first, members, refs }) => {
        const offeredBy = offering.get(first.startMs)?.find((e) => e.endMs === first.endMs)?.members;
        // a group appointment of a member is offered by it even where its timeslot is gone
        let capacity = offeredBy ? offeredBy.size : 0;
        for (const id of members) if (!offeredBy?.has(id)) capacity++;
        const products = new Map<string, string>();
        for (const list of refs) for (const p of list) if (!products.has(p.uuid)) products.set(p.uuid, p.name);
        const productRefs = [...products].map(([uuid, name]) => ({ uuid, name }));
        return {
          view: first.view,
          item: (fmt, timeFormat) => ({
            kind: 'models.PoolBookable',
            pool_uuid: pool.id,
            timeslot_uuid: null,
            product_uuid: first.product ? first.product.id : null,
            resource_uuid: null,
            product_name: first.product ? first.product.name : '',
            resource_name: pool.name,
            start: fmt.iso(first.startMs),
            end: fmt.iso(first.endMs),
            formattedStart: fmt.format(first.startMs, timeFormat),
            formattedEnd: fmt.format(first.endMs, timeFormat),
            contact_channel: null,
            capacity,
            capacity_left: members.size,
            products: productRefs,
          }),
        };
      });
  }
  return out;
}

/**
 * A member's run of the slot engine, kept with the view it was made for: a pool's cold A1 (the
 * first read after a booking) reruns the engine only for the members whose data changed. The data
 * brought up to date with changes keeps every unchanged appointment, timeslot and busy time as the
 * same object (bookablesLoader.ts withChanges), so "unchanged" is: the same objects, the same
 * closed spans and product. A run made at an earlier now serves for MAX_REUSE_MS (the listing
 * cache's own bound on slots entering the horizon late), its slots that have started left out.
 */
interface MemberRun {
  nowMs: number;
  product: EngineProduct | null;
  timeslots: EngineTimeslot[];
  appointments: EngineAppointment[];
  busy: EngineBusy[];
  closed: string;
  bookables: EngineBookable[];
  offered: EngineBookable[];
}
const runs = new WeakMap<ResourceView, MemberRun>();
const MAX_REUSE_MS = 60_000;

const sameItems = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sameProduct = (a: EngineProduct | null, b: EngineProduct | null) =>
  a === b || (a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b));

export interface MemberData {
  view: ResourceView;
  product: EngineProduct | null;
  timeslots: EngineTimeslot[];
  appointments: EngineAppointment[];
  busy: EngineBusy[];
  closed: EngineClosedSpan[];
}

/**
 * The members' bookables (as their own listings compute them) and what their timeslots offer before
 * any booking (for capacity), in listing order; each member's engine run reused while its data is unchanged.
 */
export function memberRuns(
  members: MemberData[],
  window: { nowMs: number; untilMs: number },
): { bookables: EngineBookable[]; offered: EngineBookable[] } {
  const bookables: EngineBookable[] = [];
  const offered: EngineBookable[] = [];
  const future = (b: EngineBookable) => b.startMs > window.nowMs;
  for (const m of members) {
    const closed = m.closed.map((c) => `${c.startMs}-${c.endMs}`).join(',');
    let run = runs.get(m.view);
    if (
      !run ||
      window.nowMs < run.nowMs ||
      window.nowMs - run.nowMs > MAX_REUSE_MS ||
      run.closed !== closed ||
      !sameProduct(run.product, m.product) ||
      !sameItems(run.timeslots, m.timeslots) ||
      !sameItems(run.appointments, m.appointments) ||
      !sameItems(run.busy, m.busy)
    ) {
      const query = { ...window, product: m.product };
      run = {
        nowMs: window.nowMs,
        product: m.product,
        timeslots: m.timeslots,
        appointments: m.appointments,
        busy: m.busy,
        closed,
        bookables: computeBookables(m.timeslots, m.appointments, query, m.busy, m.closed),
        offered: computeBookables(m.timeslots, [], query),
      };
      runs.set(m.view, run);
    }
    for (const b of run.bookables) if (future(b)) bookables.push(b);
    for (const b of run.offered) if (future(b)) offered.push(b);
  }
  bookables.sort(compareBookables);
  return { bookables, offered };
}
