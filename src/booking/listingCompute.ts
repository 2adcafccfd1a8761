/** A1's computation: load what the listing needs, run the pure slot engine, group and format. */
import type { Deps } from '../context.js';
import type { ChannelKey } from '../offerings/channels.js';
import { loadAppointments, loadTimeslots, type LoadedAppointment } from './bookablesLoader.js';
import { InstantFormatter, loadResourceViews, singleProduct, slotItem, type ResourceView, type SlotItem } from './bookableView.js';
import { publicVisible } from './channels.js';
import type { CompiledPattern } from './datePattern.js';
import { engineProduct, findProduct, type ProductRow } from './publicProducts.js';
import type { PublicResource } from './publicResources.js';
import { compareBookables, computeBookables } from './slotEngine.js';
import { bookingWindowOf, insideWindow, nextDayStartMs, startBounds, type StartBounds } from '../offerings/bookingWindow.js';

/** How far ahead A1 looks; slots starting later are not listed (docs/decisions.md). */
export const BOOKING_HORIZON_DAYS = 90;
const DAY_MS = 86_400_000;

export type UpcomingResult = Record<string, SlotItem[] | boolean> & { public_visible: boolean };

export interface ListingRequest {
  resources: PublicResource[];
  channelKey: ChannelKey;
  prdRef?: string;
  groupFormat: CompiledPattern;
  timeFormat: CompiledPattern;
  locale: string;
  nowMs: number;
}

export interface Listing {
  /** null: nothing bookable */
  result: UpcomingResult | null;
  /** the listing stays true until then: the first listed slot starts or a live hold expires */
  changesAtMs: number;
}

/** The product a listed slot shows: prdRef's, else the appointment's, else the resource's only one. */
function productOf(view: ResourceView, prd: ProductRow | null, appt: LoadedAppointment | undefined) {
  const name = appt?.productName;
  if (prd) return { id: prd.id, name: name ?? prd.name };
  if (appt?.productId) return { id: appt.productId, name: name ?? '' };
  const single = singleProduct(view);
  return single ? { id: single.id, name: single.name } : null;
}

export async function computeListing(deps: Deps, q: ListingRequest): Promise<Listing> {
  const { db } = deps;
  const prd = q.prdRef ? await findProduct(db, q.prdRef, [...new Set(q.resources.map((r) => r.provider_id))], 'query.prdRef') : null;
  const views = await loadResourceViews(db, q.resources.filter((r) => !r.archived), q.channelKey);
  for (const [id, view] of views) {
    if (prd && !view.products.some((p) => p.id === prd.id)) views.delete(id);
  }
  if (views.size === 0) return { result: null, changesAtMs: Infinity };

  const ids = [...views.keys()];
  const now = new Date(q.nowMs);
  const until = new Date(q.nowMs + BOOKING_HORIZON_DAYS * DAY_MS);
  // Without prdRef, a resource's only product is the slot's product, so its rules apply there too.
  const runs = prd
    ? [{ ids, product: engineProduct(prd) }]
    : ids.map((id) => {
        const single = singleProduct(views.get(id)!);
        return { ids: [id], product: single ? engineProduct(single) : null };
      });
  // Appointments can block a slot through the product's buffers, so look that much further both ways.
  const buffers = Math.max(0, ...runs.map((r) => (r.product ? r.product.leadMin + r.product.followUpMin : 0)));
  const margin = buffers * 60_000 + DAY_MS;
  const [timeslots, appointments] = await Promise.all([
    loadTimeslots(db, ids, now, until),
    loadAppointments(db, ids, new Date(q.nowMs - margin), new Date(until.getTime() + margin), now),
  ]);
  const window = { nowMs: q.nowMs, untilMs: until.getTime() };
  const bookables =
    runs.length === 1
      ? computeBookables(timeslots, appointments, { ...window, product: runs[0].product })
      : runs
          .flatMap((run) => {
            const mine = (x: { resourceId: string }) => x.resourceId === run.ids[0];
            return computeBookables(timeslots.filter(mine), appointments.filter(mine), { ...window, product: run.product });
          })
          .sort(compareBookables);

  let changesAtMs = Math.min(Infinity, ...appointments.map((a) => a.nextHoldExpiryMs ?? Infinity));
  // Each resource's booking window, applied here so the cached answer is exact: a slot leaves the
  // listing when it comes closer than minNotice (changesAtMs below), and slots enter with the
  // maxAdvanceDays horizon at the provider's midnight, when the entry expires too.
  const windows = new Map<string, StartBounds>();
  for (const [id, view] of views) {
    const window = bookingWindowOf(view.resource.booking_window);
    windows.set(id, startBounds(window, q.nowMs, view.resource.time_zone));
    if (window.maxAdvanceDays !== null) changesAtMs = Math.min(changesAtMs, nextDayStartMs(q.nowMs, view.resource.time_zone));
  }
  const byId = new Map(appointments.map((a) => [a.id, a]));
  const formatters = new Map<string, InstantFormatter>();
  const groups = new Map<string, SlotItem[]>();
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
    if (!fmt) formatters.set(zone, (fmt = new InstantFormatter(zone, q.locale)));
    const item = slotItem(
      {
        kind: b.kind,
        appointmentId: appt?.id,
        timeslotId: b.kind === 'models.Bookable' ? b.timeslotId : (b.timeslotId ?? b.appointmentId),
        product: productOf(view, prd, appt),
        startMs: b.startMs,
        endMs: b.endMs,
        capacity: b.capacity,
        capacityLeft: b.capacityLeft,
      },
      view,
      fmt,
      q.timeFormat,
    );
    const key = fmt.format(b.startMs, q.groupFormat);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  if (groups.size === 0) return { result: null, changesAtMs };
  return { result: { ...Object.fromEntries(groups), public_visible: publicVisible(q.channelKey) } as UpcomingResult, changesAtMs };
}
