/** A1's computation from what readListing read: run the pure slot engine, group and serialize. */
import type { ChannelKey } from '../offerings/channels.js';
import type { ListingData, LoadedAppointment } from './bookablesLoader.js';
import {
  InstantFormatter,
  singleProduct,
  slotItem,
  type ResourceView,
  type SlotFacts,
} from '../booking/bookableView.js';
import { publicVisible } from '../offerings/channels.js';
import {
  compareListed,
  memberRun,
  offersOf,
  poolDay,
  sameOffers,
  type MemberData,
  type MemberRun,
  type Offers,
  type PoolFacts,
} from './poolListing.js';
import type { CompiledPattern } from '../booking/datePattern.js';
import { engineProduct, type ProductRow } from '../booking/publicProducts.js';
import {
  compareBookables,
  computeBookables,
  type EngineBookable,
  type EngineClosedSpan,
} from '../booking/slotEngine.js';
import { bookingLimitsOf, closedSpans, hasLimits } from '../offerings/bookingLimits.js';
import {
  bookingWindowOf,
  insideWindow,
  nextDayStartMs,
  startBounds,
  type StartBounds,
} from '../offerings/bookingWindow.js';

/** How far ahead A1 looks; slots starting later are not listed (docs/decisions.md). */
export const BOOKING_HORIZON_DAYS = 90;
const DAY_MS = 86_400_000;

export interface ListingRequest {
  channelKey: ChannelKey;
  /** a pool's listing (listing/poolListing.ts): the members' slots merged by span and product */
  pool?: PoolFacts;
  prdRef?: string;
  groupFormat: CompiledPattern;
  timeFormat: CompiledPattern;
  locale: string;
  nowMs: number;
}

export interface Listing {
  /** the A1 answer as UTF-8 JSON; null: nothing bookable */
  json: Buffer | null;
  /** the listing stays true until then: the first listed slot starts or a live hold expires */
  changesAtMs: number;
  /** its days, for the next computation from the same views (computeListing's previous) */
  days: SerializedDays;
}

/** The product a listed slot shows: prdRef's, else the appointment's, else the resource's only one. */
function productOf(view: ResourceView, prd: ProductRow | null, appt: LoadedAppointment | undefined) {
  const name = appt?.productName;
  if (prd) return { id: prd.id, name: name ?? prd.name };
  if (appt?.productId) return { id: appt.productId, name: name ?? '' };
  const single = singleProduct(view);
  return single ? { id: single.id, name: single.name } : null;
}

/**
 * The dates and weeks at a listed resource's booking limit (offerings/bookingLimits.ts), as the spans
 * in which none of its slots start. The live counts are those read with the data, which stay true
 * until the next hold expires (Listing.changesAtMs, ListingBase.reusableUntilMs); the data holds
 * the appointments a week beyond the window each way for limited resources (bookablesLoader.ts).
 */
export function limitClosedSpans(
  views: ListingData['views'],
  appointments: readonly LoadedAppointment[],
): EngineClosedSpan[] {
  const closed: EngineClosedSpan[] = [];
  for (const [resourceId, view] of views) {
    const limits = bookingLimitsOf(view.resource);
    if (!hasLimits(limits)) continue;
    const own = appointments.filter((a) => a.resourceId === resourceId);
    for (const span of closedSpans(limits, view.resource.time_zone, own)) closed.push({ resourceId, ...span });
  }
  return closed;
}

/** Each member's view, product and own data (one pass over the data), for memberRun. */
function membersOf(
  ids: string[],
  views: ListingData['views'],
  prd: ProductRow | null,
  data: Pick<MemberData, 'timeslots' | 'appointments' | 'busy' | 'closed'>,
): MemberData[] {
  const members = new Map<string, MemberData>();
  for (const id of ids) {
    const view = views.get(id)!;
    const single = prd ? null : singleProduct(view);
    const product = prd ? engineProduct(prd) : single ? engineProduct(single) : null;
    members.set(id, { view, product, timeslots: [], appointments: [], busy: [], closed: [] });
  }
  for (const key of ['timeslots', 'appointments', 'busy', 'closed'] as const)
    for (const x of data[key]) (members.get(x.resourceId)?.[key] as { resourceId: string }[] | undefined)?.push(x);
  return [...members.values()];
}

/** The end of the window A1 lists at `nowMs`. */
export const listingUntilMs = (nowMs: number) => nowMs + BOOKING_HORIZON_DAYS * DAY_MS;

/** The listing of `data` at q.nowMs (data is left as it is: it may serve again, brought up to date). */
export function computeListing(
  { views: loadedViews, prd, ...loaded }: ListingData,
  q: ListingRequest,
  previous?: SerializedDays,
): Listing {
  const untilMs = listingUntilMs(q.nowMs);
  // resources without prdRef's product list nothing
  const views = new Map([...loadedViews].filter(([, view]) => !prd || view.products.some((p) => p.id === prd.id)));
  const nothingListed = (changesAtMs: number): Listing => ({
    json: null,
    changesAtMs,
    days: { views: loadedViews, parts: new Map() },
  });
  if (views.size === 0) return nothingListed(Infinity);

  const ids = [...views.keys()];
  // Without prdRef, a resource's only product is the slot's product, so its rules apply there too.
  const runs = prd
    ? [{ ids, product: engineProduct(prd) }]
    : ids.map((id) => {
        const single = singleProduct(views.get(id)!);
        return { ids: [id], product: single ? engineProduct(single) : null };
      });
  const listed = (x: { resourceId: string }) => views.has(x.resourceId);
  const timeslots = loaded.timeslots.filter(listed);
  const appointments = loaded.appointments.filter(listed);
  const busy = loaded.busy.filter(listed);
  const closed = limitClosedSpans(views, appointments);
  const window = { nowMs: q.nowMs, untilMs };
  let changesAtMs = Infinity;
  for (const a of appointments)
    if (a.nextHoldExpiryMs !== null && a.nextHoldExpiryMs < changesAtMs) changesAtMs = a.nextHoldExpiryMs;
  // Each resource's booking window, applied here so the cached answer is exact: a slot leaves the
  // listing when it comes closer than minNotice (changesAtMs below), and slots enter with the
  // maxAdvanceDays horizon at the provider's midnight, when the entry expires too.
  const windows = new Map<string, StartBounds>();
  for (const [id, view] of views) {
    const window = bookingWindowOf(view.resource.booking_window);
    windows.set(id, startBounds(window, q.nowMs, view.resource.time_zone));
    if (window.maxAdvanceDays !== null)
      changesAtMs = Math.min(changesAtMs, nextDayStartMs(q.nowMs, view.resource.time_zone));
  }
  const byId = new Map(appointments.map((a) => [a.id, a]));
  const formatters = new Map<string, InstantFormatter>();
  const formatterOf = (zone: string) => {
    let fmt = formatters.get(zone);
    if (!fmt) {
      fmt = new InstantFormatter(zone, q.locale);
      formatters.set(zone, fmt);
    }
    return fmt;
  };
  /** The slot `b` of `view` as listed, before the booking window; null: not listed on this channel. */
  const listedSlot = (b: EngineBookable, view: ResourceView): ListedSlot | null => {
    const appt = b.kind === 'models.LotAppointment' ? byId.get(b.appointmentId) : undefined;
    if (appt?.productExclusive && !prd && q.channelKey !== 'RESOURCE_EXCLUSIVE') return null;
    return {
      kind: b.kind,
      appointmentId: appt?.id,
      timeslotId: b.kind === 'models.Bookable' ? b.timeslotId : (b.timeslotId ?? b.appointmentId),
      product: productOf(view, prd, appt),
      startMs: b.startMs,
      endMs: b.endMs,
      capacity: b.capacity,
      capacityLeft: b.capacityLeft,
      view,
    };
  };
  if (q.pool) {
    // a pool: every member's own run, reused while its data is unchanged (poolListing.ts memberRun)
    const members = membersOf(ids, views, prd, { timeslots, appointments, busy, closed });
    const previousPool = previous?.views === loadedViews ? previous.pool : undefined;
    const pooled = poolListingOf(members, window, q, q.pool, { windows, listedSlot, formatterOf }, previousPool);
    if (!pooled) return nothingListed(changesAtMs);
    return {
      json: pooled.json,
      changesAtMs: Math.min(changesAtMs, pooled.changesAtMs),
      days: { views: loadedViews, parts: new Map(), pool: pooled.state },
    };
  }
  const bookables =
    runs.length === 1
      ? computeBookables(timeslots, appointments, { ...window, product: runs[0].product }, busy, closed)
      : runs
          .flatMap((run) => {
            const mine = (x: { resourceId: string }) => x.resourceId === run.ids[0];
            const query = { ...window, product: run.product };
            const own = { timeslots: timeslots.filter(mine), appointments: appointments.filter(mine) };
            return computeBookables(own.timeslots, own.appointments, query, busy.filter(mine), closed.filter(mine));
          })
          .sort(compareBookables);

  // an object, as the answer is one: its keys keep JavaScript's order (array-index keys such as '2026' first);
  // no prototype, so a group text such as '__proto__' is a key like any other
  const groups: Record<string, ListedSlot[] | boolean> = Object.create(null);
  let empty = true;
  for (const b of bookables) {
    const view = views.get(b.resourceId)!;
    const bounds = windows.get(b.resourceId)!;
    if (!insideWindow(bounds, b.startMs)) continue;
    const slot = listedSlot(b, view);
    if (!slot) continue;
    // the slot leaves the listing once less than the minimum notice is left
    changesAtMs = Math.min(changesAtMs, b.startMs - (bounds.fromMs - q.nowMs));
    const key = formatterOf(view.resource.time_zone).format(b.startMs, q.groupFormat);
    const group = groups[key];
    if (Array.isArray(group)) group.push(slot);
    else groups[key] = [slot];
    empty = false;
  }
  if (empty) return nothingListed(changesAtMs);
  groups.public_visible = publicVisible(q.channelKey);
  const reusable = previous?.views === loadedViews ? previous.parts : undefined;
  const parts = new Map<string, SerializedDay>();
  const json = jsonBytes(
    groups,
    (key, value) => {
      if (!Array.isArray(value)) return undefined;
      const before = reusable?.get(key);
      if (before && sameSlots(before.slots, value)) return before.bytes;
      return memberJson(
        key,
        value.map((s) => slotItem(s, s.view, formatters.get(s.view.resource.time_zone)!, q.timeFormat)),
      );
    },
    // the kept days point into the answer's bytes: they cost no memory of their own
    (key, bytes) => {
      const slots = groups[key];
      if (Array.isArray(slots)) parts.set(key, { slots, bytes });
    },
  );
  return { json, changesAtMs, days: { views: loadedViews, parts } };
}

/**
 * A listed slot before it becomes its item: what the item shows
 * (it is kept with the listing's days, its formatter is not).
 */
export interface ListedSlot extends SlotFacts {
  view: ResourceView;
}

/** A day (a group) of a computed listing: its slots, and its member of the answer (`"group":[items]`). */
interface SerializedDay {
  slots: ListedSlot[];
  bytes: Buffer;
}

/**
 * The days of a computed listing, kept with the cached answer (CachedListing): a computation from the same
 * resource views (data brought up to date with changed appointments) serializes anew only the days
 * whose slots changed; in a rush a booking changes one day of 28.
 */
export interface SerializedDays {
  views: ListingData['views'];
  parts: Map<string, SerializedDay>;
  /** a pool's listing: its members' days and its merged days (poolListingOf) */
  pool?: PoolDays;
}

/**
 * A pool's listing kept with its cached answer, so that a cold read merges again only the days
 * whose members' slots changed (in a rush a booking changes one member's day): per member, the
 * run its days were grouped from, its slots by day before and after the booking window, and its
 * offers; per day, the member lists and offers it was merged from and its member of the answer.
 */
interface PoolDays {
  members: Map<string, MemberDays>;
  merged: Map<string, { lists: ListedSlot[][]; offers: Offers[]; bytes: Buffer }>;
}

interface MemberDays {
  run: MemberRun;
  offers: Offers;
  /** every slot the run lists on the channel, by day, in listing order (compareListed) */
  days: Map<string, ListedSlot[]>;
  /** the slots the last computation listed, by day (those of `days` inside the window) */
  listed: Map<string, ListedSlot[]>;
}

/**
 * A pool's listing (DESIGN 7.11): each member's listed slots grouped by day as its own listing
 * groups them, kept while its engine run is reused and, day by day, while equal; each day merged
 * (poolDay) and serialized again only when a member's list of that day or a member's offers
 * changed. The same answer as merging every member slot anew, in the same order: the days in the
 * order of their first slot, as one sorted list of all members' slots gives them.
 */
function poolListingOf(
  members: MemberData[],
  window: { nowMs: number; untilMs: number },
  q: ListingRequest,
  pool: PoolFacts,
  c: {
    windows: Map<string, StartBounds>;
    listedSlot: (b: EngineBookable, view: ResourceView) => ListedSlot | null;
    formatterOf: (zone: string) => InstantFormatter;
  },
  previous: PoolDays | undefined,
): { json: Buffer; changesAtMs: number; state: PoolDays } | null {
  const { nowMs } = window;
  let changesAtMs = Infinity;
  const state: PoolDays = { members: new Map(), merged: new Map() };
  const byDay = new Map<string, ListedSlot[][]>();
  const offers = new Map<string, Offers>();
  members.forEach((m, i) => {
    const id = m.view.resource.id;
    const run = memberRun(m, window);
    const before = previous?.members.get(id);
    let days: Map<string, ListedSlot[]>;
    let own: Offers;
    if (before?.run === run) {
      days = before.days;
      own = before.offers;
    } else {
      days = new Map();
      const fmt = c.formatterOf(m.view.resource.time_zone);
      for (const b of run.bookables) {
        const slot = c.listedSlot(b, m.view);
        if (!slot) continue;
        const key = fmt.format(b.startMs, q.groupFormat);
        const day = days.get(key);
        if (day) day.push(slot);
        else days.set(key, [slot]);
      }
      for (const [key, slots] of days) {
        slots.sort(compareListed);
        const old = before?.days.get(key);
        if (old && sameSlots(old, slots)) days.set(key, old);
      }
      own = before?.run.offered === run.offered ? before.offers : offersOf(run.offered);
      if (before && own !== before.offers && sameOffers(before.offers, own)) own = before.offers;
    }
    offers.set(id, own);
    const bounds = c.windows.get(id)!;
    // started slots and those outside the booking window are not listed: at the ends of the days
    const inside = (s: ListedSlot) => s.startMs > nowMs && insideWindow(bounds, s.startMs);
    const listed = new Map<string, ListedSlot[]>();
    for (const [key, slots] of days) {
      let list = slots;
      if (!inside(slots[0]) || !inside(slots[slots.length - 1])) {
        list = slots.filter(inside);
        if (list.length === 0) continue;
        const old = before?.listed.get(key);
        if (old && sameSlots(old, list)) list = old;
      }
      listed.set(key, list);
      // the slot leaves the listing once less than the minimum notice is left
      changesAtMs = Math.min(changesAtMs, list[0].startMs - (bounds.fromMs - nowMs));
      let lists = byDay.get(key);
      if (!lists) {
        lists = new Array(members.length).fill(NO_SLOTS);
        byDay.set(key, lists);
      }
      lists[i] = list;
    }
    state.members.set(id, { run, offers: own, days, listed });
  });
  if (byDay.size === 0) return null;
  const memberOffers = members.map((m) => offers.get(m.view.resource.id)!);
  const firsts = new Map<string, ListedSlot>();
  for (const [key, lists] of byDay) {
    let first: ListedSlot | undefined;
    for (const list of lists) if (list.length > 0 && (!first || compareListed(list[0], first) < 0)) first = list[0];
    firsts.set(key, first!);
  }
  // an object, as the answer is one: its keys in JavaScript's order (array-index keys first), no prototype
  const days: Record<string, ListedSlot[][]> = Object.create(null);
  for (const key of [...byDay.keys()].sort((a, b) => compareListed(firsts.get(a)!, firsts.get(b)!)))
    days[key] = byDay.get(key)!;
  const reusable = new Map<string, Buffer>();
  for (const [key, lists] of byDay) {
    const before = previous?.merged.get(key);
    if (before && sameItems(before.lists, lists) && sameItems(before.offers, memberOffers))
      reusable.set(key, before.bytes);
  }
  const json = jsonBytes(
    { ...days, public_visible: publicVisible(q.channelKey) },
    (key, value) => {
      if (!Array.isArray(value)) return undefined;
      const kept = reusable.get(key);
      if (kept) return kept;
      const slots = (value as ListedSlot[][]).flat().sort(compareListed);
      const items = poolDay(slots, offers, pool).map((s) =>
        s.item(c.formatterOf(s.view.resource.time_zone), q.timeFormat),
      );
      return memberJson(key, items);
    },
    (key, bytes) => {
      const lists = days[key];
      if (Array.isArray(lists)) state.merged.set(key, { lists, offers: memberOffers, bytes });
    },
  );
  return { json, changesAtMs, state };
}

const NO_SLOTS: ListedSlot[] = [];
const sameItems = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Slots whose items are equal: the same facts, of the same resource view, in the same order. */
function sameSlots(a: ListedSlot[], b: ListedSlot[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (
      x.startMs !== y.startMs ||
      x.endMs !== y.endMs ||
      x.capacityLeft !== y.capacityLeft ||
      x.capacity !== y.capacity ||
      x.kind !== y.kind ||
      x.appointmentId !== y.appointmentId ||
      x.timeslotId !== y.timeslotId ||
      x.view !== y.view ||
      x.product?.id !== y.product?.id ||
      x.product?.name !== y.product?.name
    ) {
      return false;
    }
  }
  return true;
}

/** `"key":value` as JSON text; null for a value JSON leaves out of an object. */
function memberJson(key: string, value: unknown): string | null {
  const json = JSON.stringify(value);
  return json === undefined ? null : `${JSON.stringify(key)}:${json}`;
}

/**
 * JSON.stringify(object) as UTF-8, serialized member by member: `member` may give a member itself
 * (`"key":value` as text, or as bytes kept from an earlier answer), and `placed` learns where each
 * member lies in the result.
 *
 * V8 builds the string of a whole listing as a rope that encoding must first flatten into one large
 * object, which costs more than the serialization itself. A member's text (a day's slots) stays
 * small, and all are written into one buffer (docs/decisions.md).
 */
export function jsonBytes(
  object: Record<string, unknown>,
  member: (key: string, value: unknown) => string | Buffer | null | undefined = () => undefined,
  placed?: (key: string, bytes: Buffer) => void,
): Buffer {
  const parts: { key: string; part: string | Buffer; length: number }[] = [];
  let length = 2; // { and }
  for (const key of Object.keys(object)) {
    const part = member(key, object[key]) ?? memberJson(key, object[key]);
    if (part === null) continue; // a value JSON leaves out (undefined, a function)
    const partLength = typeof part === 'string' ? Buffer.byteLength(part) : part.length;
    parts.push({ key, part, length: partLength });
    length += partLength + (parts.length > 1 ? 1 : 0);
  }
  const json = Buffer.allocUnsafe(length);
  let at = 0;
  json[at++] = 0x7b; // {
  parts.forEach(({ part, length: partLength }, i) => {
    if (i > 0) json[at++] = 0x2c; // ,
    if (typeof part === 'string') json.write(part, at);
    else part.copy(json, at);
    at += partLength;
  });
  json[at] = 0x7d; // }
  if (placed) {
    let start = 1;
    for (const { key, length: partLength } of parts) {
      placed(key, json.subarray(start, start + partLength));
      start += partLength + 1;
    }
  }
  return json;
}
