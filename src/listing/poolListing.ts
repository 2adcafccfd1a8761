/**
 * A pool's A1 (DESIGN 7.11): one models.PoolBookable per distinct (start, end, product) at which at
 * least one member could take the booking now, by every rule that member's own A1 applies. The
 * members' slots are computed exactly as their own listings are (listingCompute.ts, the same run
 * of the slot engine over the same data), then merged here day by day (poolDay): capacity_left
 * counts the members listing the span, capacity the members whose BOOKABLE timeslots offer it
 * before any booking, busy time, window or limit. listingCompute.ts poolListingOf keeps the merged
 * days with the cached answer and merges again only the days whose member slots changed.
 */
import type { InstantFormatter, ResourceView, SlotFacts } from '../booking/bookableView.js';
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
type ListedSlot = SlotFacts & { view: ResourceView };

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

/** The spans a member's timeslots offer before any booking: per start instant, the ends. */
export type Offers = Map<number, number[]>;

/** A member's offers (MemberRun.offered) indexed by span. */
export function offersOf(offered: readonly EngineBookable[]): Offers {
  const offers: Offers = new Map();
  for (const b of offered) {
    const ends = offers.get(b.startMs);
    if (!ends) offers.set(b.startMs, [b.endMs]);
    else if (!ends.includes(b.endMs)) ends.push(b.endMs);
  }
  return offers;
}

/** Offers of the same spans. */
export function sameOffers(a: Offers, b: Offers): boolean {
  if (a.size !== b.size) return false;
  for (const [startMs, ends] of a) {
    const other = b.get(startMs);
    if (!other || other.length !== ends.length || ends.some((e) => !other.includes(e))) return false;
  }
  return true;
}

/** The listing order of slots (slotEngine.ts compareBookables), on listed slots. */
export function compareListed(x: ListedSlot, y: ListedSlot): number {
  if (x.startMs !== y.startMs) return x.startMs - y.startMs;
  const xr = x.view.resource.id;
  const yr = y.view.resource.id;
  if (xr !== yr) return xr < yr ? -1 : 1;
  if (x.endMs !== y.endMs) return x.endMs - y.endMs;
  if (x.kind !== y.kind) return x.kind === 'models.Bookable' ? -1 : 1;
  const xi = x.kind === 'models.Bookable' ? x.timeslotId : (x.appointmentId ?? '');
  const yi = y.kind === 'models.Bookable' ? y.timeslotId : (y.appointmentId ?? '');
  return xi < yi ? -1 : xi > yi ? 1 : 0;
}

/**
 * One day (group) of a pool's listing: the members' listed slots of that day, in listing order
 * (compareListed), merged per span and product. capacity_left counts the members listing the span,
 * capacity the members whose timeslots offer it (`offers`, every member's) or that list it.
 */
export function poolDay(
  slots: readonly ListedSlot[],
  offers: ReadonlyMap<string, Offers>,
  pool: PoolFacts,
): PoolSlot[] {
  const offersSpan = (o: Offers | undefined, s: ListedSlot) => o?.get(s.startMs)?.includes(s.endMs) === true;
  type Merged = { first: ListedSlot; members: Set<string>; refs: Set<ResourceView['productRefs']> };
  const byStart = new Map<number, Merged[]>();
  const all: Merged[] = [];
  for (const s of slots) {
    let list = byStart.get(s.startMs);
    if (!list) {
      list = [];
      byStart.set(s.startMs, list);
    }
    const productId = s.product?.id;
    let m = list.find((x) => x.first.endMs === s.endMs && x.first.product?.id === productId);
    if (!m) {
      m = { first: s, members: new Set(), refs: new Set() };
      list.push(m);
      all.push(m);
    }
    m.members.add(s.view.resource.id);
    m.refs.add(s.view.productRefs);
  }
  return all
    .sort((a, b) => a.first.startMs - b.first.startMs || a.first.endMs - b.first.endMs)
    .map(({ first, members, refs }) => {
      // a group appointment of a member is offered by it even where its timeslot is gone
      let offering = 0;
      for (const o of offers.values()) if (offersSpan(o, first)) offering++;
      let capacity = offering;
      for (const id of members) if (!offersSpan(offers.get(id), first)) capacity++;
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

/**
 * A member's run of the slot engine, kept with the view it was made for: a pool's cold A1 (the
 * first read after a booking) reruns the engine only for the members whose data changed. The data
 * brought up to date with changes keeps every unchanged appointment, timeslot and busy time as the
 * same object (bookablesLoader.ts withChanges), so "unchanged" is: the same objects, the same
 * closed spans and product. A run made at an earlier now serves for MAX_REUSE_MS (the listing
 * cache's own bound on slots entering the horizon late), its slots that have started left out.
 */
export interface MemberRun {
  nowMs: number;
  product: EngineProduct | null;
  timeslots: EngineTimeslot[];
  appointments: EngineAppointment[];
  busy: EngineBusy[];
  closed: string;
  bookables: EngineBookable[];
  offered: EngineBookable[];
  /** the now `offered` was computed at (it may come from an earlier run, for at most MAX_REUSE_MS) */
  offeredAtMs: number;
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
    const run = memberRun(m, window);
    for (const b of run.bookables) if (future(b)) bookables.push(b);
    for (const b of run.offered) if (future(b)) offered.push(b);
  }
  bookables.sort(compareBookables);
  return { bookables, offered };
}

/** A member's run at window.nowMs: its slots include those that have started (the caller leaves them out). */
export function memberRun(m: MemberData, window: { nowMs: number; untilMs: number }): MemberRun {
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
    // what the timeslots offer does not depend on the appointments, busy times or limits: a booking keeps it
    const sameOffer =
      run &&
      window.nowMs - run.nowMs <= MAX_REUSE_MS &&
      run.product === m.product &&
      sameItems(run.timeslots, m.timeslots);
    run = {
      nowMs: window.nowMs,
      product: m.product,
      timeslots: m.timeslots,
      appointments: m.appointments,
      busy: m.busy,
      closed,
      bookables: computeBookables(m.timeslots, m.appointments, query, m.busy, m.closed),
      offered: sameOffer && run ? run.offered : computeBookables(m.timeslots, [], query),
      offeredAtMs: sameOffer && run ? run.offeredAtMs : window.nowMs,
    };
    runs.set(m.view, run);
  }
  return run;
}
