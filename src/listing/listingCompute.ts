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
import { memberRuns, poolSlots, type MemberData, type PoolFacts, type PoolSlot } from './poolListing.js';
import type { CompiledPattern } from '../booking/datePattern.js';
import { engineProduct, type ProductRow } from '../booking/publicProducts.js';
import { compareBookables, computeBookables, type EngineClosedSpan } from '../booking/slotEngine.js';
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

/** Each member's view, product and own data (one pass over the data), for memberRuns. */
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
  // a pool: every member's own run, reused while its data is unchanged (poolListing.ts memberRuns)
  const pooled = q.pool
    ? memberRuns(membersOf(ids, views, prd, { timeslots, appointments, busy, closed }), window)
    : null;
  const bookables = pooled
    ? pooled.bookables
    : runs.length === 1
      ? computeBookables(timeslots, appointments, { ...window, product: runs[0].product }, busy, closed)
      : runs
          .flatMap((run) => {
            const mine = (x: { resourceId: string }) => x.resourceId === run.ids[0];
            const query = { ...window, product: run.product };
            const own = { timeslots: timeslots.filter(mine), appointments: appointments.filter(mine) };
            return computeBookables(own.timeslots, own.appointments, query, busy.filter(mine), closed.filter(mine));
          })
          .sort(compareBookables);

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
  // an object, as the answer is one: its keys keep JavaScript's order (array-index keys such as '2026' first);
  // no prototype, so a group text such as '__proto__' is a key like any other
  const groups: Record<string, ListedSlot[] | boolean> = Object.create(null);
  let empty = true;
  for (const b of bookables) {
    const view = views.get(b.resourceId)!;
    const appt = b.kind === 'models.LotAppointment' ? byId.get(b.appointmentId) : undefined;
    if (appt?.productExclusive && !prd && q.channelKey !== 'RESOURCE_EXCLUSIVE') continue;
    const bounds = windows.get(b.resourceId)!;
    if (!insideWindow(bounds, b.startMs)) continue;
    // the slot leaves the listing once less than the minimum notice is left
    changesAtMs = Math.min(changesAtMs, b.startMs - (bounds.fromMs - q.nowMs));
    const zone = view.resource.time_zone;
    let fmt = formatters.get(zone);
    if (!fmt) {
      fmt = new InstantFormatter(zone, q.locale);
      formatters.set(zone, fmt);
    }
    const slot: ListedSlot = {
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
    const key = fmt.format(b.startMs, q.groupFormat);
    const group = groups[key];
    if (Array.isArray(group)) group.push(slot);
    else groups[key] = [slot];
    empty = false;
  }
  if (empty) return nothingListed(changesAtMs);
  if (q.pool && pooled) {
    const merged = poolSlots(groups as Record<string, ListedSlot[]>, pooled.offered, q.pool);
    const json = jsonBytes({ ...merged, public_visible: publicVisible(q.channelKey) }, (key, value) =>
      Array.isArray(value)
        ? memberJson(
            key,
            (value as PoolSlot[]).map((s) => s.item(formatters.get(s.view.resource.time_zone)!, q.timeFormat)),
          )
        : undefined,
    );
    return { json, changesAtMs, days: { views: loadedViews, parts: new Map() } };
  }
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
}

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
