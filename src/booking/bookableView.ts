/**
 * How a slot looks on the wire (models.Bookable / models.LotAppointment, and createdAppointment,
 * which shares its members): resource context loaded once per request, instants formatted once.
 */
import { DateTime } from 'luxon';
import type { ChannelKey } from '../offerings/channels.js';
import type { ResolvedContact } from '../offerings/contact.js';
import type { CompiledPattern } from './datePattern.js';
import { onChannel, productRef, type ProductRow } from './publicProducts.js';
import type { PublicResource } from './publicResources.js';

export interface ContactChannelView {
  type: string;
  value: string;
}

/** Everything about a resource that every slot of it repeats. */
export interface ResourceView {
  resource: PublicResource;
  /** the resource's products on the channel */
  products: ProductRow[];
  productRefs: { uuid: string; name: string }[];
  contactChannel: ContactChannelView | null;
}

/** The channel of the resource's contactChannelType in its resolved contact; null when unset or missing. */
export function contactChannelOf(type: string | null, contact: ResolvedContact | null): ContactChannelView | null {
  if (!type || !contact) return null;
  const channel = contact.channels.find((c) => c.type === type);
  const fallback =
    type === 'email' ? contact.email : type === 'mobile' ? contact.mobile : type === 'phone' ? contact.phone : null;
  const value = channel?.value ?? fallback;
  return value ? { type, value } : null;
}

/** The view of a resource whose products (all of them, channel not applied) and contact are known. */
export function viewOf(
  resource: PublicResource,
  products: ProductRow[],
  channel: ChannelKey,
  contact: ResolvedContact | null,
): ResourceView {
  const onKey = onChannel(products, channel);
  return {
    resource,
    products: onKey,
    productRefs: onKey.map(productRef),
    contactChannel: contactChannelOf(resource.contact_channel_type, contact),
  };
}

/** The product a slot shows when nothing more specific is known: the resource's only product. */
export function singleProduct(view: ResourceView): ProductRow | null {
  return view.products.length === 1 ? view.products[0] : null;
}

interface Instant {
  dt: DateTime;
  iso: string;
  /** its texts by pattern, a few at most (a listing formats each instant with its group and time patterns) */
  formatted?: Map<CompiledPattern, string>;
}
// Slots recur from request to request, and so do their texts, which are dear to build (a luxon
// DateTime in a named zone, a pattern applied). Kept per zone and locale, keyed by the
// instant itself (no key text to build per slot); compiled patterns are shared (compilePattern's
// cache), so a repeated pattern finds its texts.
const instantsOf = new Map<string, Map<number, Instant>>();
let instantCount = 0;
const INSTANT_LIMIT = 50_000;
const TEXTS_PER_INSTANT = 4;

function instantsIn(zone: string, locale: string): Map<number, Instant> {
  const key = `${zone}|${locale}`;
  let instants = instantsOf.get(key);
  if (!instants) {
    instants = new Map();
    instantsOf.set(key, instants);
  }
  return instants;
}

/** Formats instants of one zone and locale; an instant's DateTime, ISO text and pattern texts are made once. */
export class InstantFormatter {
  private readonly instants: Map<number, Instant>;
  constructor(
    readonly zone: string,
    readonly locale: string,
  ) {
    this.instants = instantsIn(zone, locale);
  }

  private entry(ms: number): Instant {
    let e = this.instants.get(ms);
    if (e) return e;
    if (instantCount >= INSTANT_LIMIT) {
      // emptied in place: formatters in use keep their maps
      for (const instants of instantsOf.values()) instants.clear();
      instantCount = 0;
    }
    const dt = DateTime.fromMillis(ms, { zone: this.zone, locale: this.locale });
    e = { dt, iso: dt.toISO({ suppressMilliseconds: true })! };
    this.instants.set(ms, e);
    instantCount++;
    return e;
  }

  iso(ms: number): string {
    return this.entry(ms).iso;
  }

  format(ms: number, pattern: CompiledPattern): string {
    const e = this.entry(ms);
    e.formatted ??= new Map();
    const texts = e.formatted;
    let text = texts.get(pattern);
    if (text === undefined) {
      if (texts.size >= TEXTS_PER_INSTANT) texts.clear();
      text = pattern(e.dt);
      texts.set(pattern, text);
    }
    return text;
  }
}

export interface SlotItem {
  kind: 'models.Bookable' | 'models.LotAppointment';
  appointment_uuid?: string;
  timeslot_uuid: string;
  product_uuid: string | null;
  resource_uuid: string;
  product_name: string;
  resource_name: string;
  start: string;
  end: string;
  formattedStart: string;
  formattedEnd: string;
  contact_channel: ContactChannelView | null;
  capacity: number;
  capacity_left: number;
  products: { uuid: string; name: string }[];
}

export interface SlotFacts {
  kind: SlotItem['kind'];
  appointmentId?: string;
  timeslotId: string;
  product: { id: string; name: string } | null;
  startMs: number;
  endMs: number;
  capacity: number;
  capacityLeft: number;
}

/**
 * The item as the wire shows it. One object literal, so every item has the same hidden class and
 * JSON.stringify takes its fast path over a listing of hundreds; a Bookable's appointment_uuid is
 * undefined, which JSON leaves out.
 */
export function slotItem(
  facts: SlotFacts,
  view: ResourceView,
  fmt: InstantFormatter,
  timeFormat: CompiledPattern,
): SlotItem {
  const product = facts.product;
  return {
    kind: facts.kind,
    appointment_uuid: facts.appointmentId || undefined,
    timeslot_uuid: facts.timeslotId,
    product_uuid: product ? product.id : null,
    resource_uuid: view.resource.id,
    product_name: product ? product.name : '',
    resource_name: view.resource.public_name,
    start: fmt.iso(facts.startMs),
    end: fmt.iso(facts.endMs),
    formattedStart: fmt.format(facts.startMs, timeFormat),
    formattedEnd: fmt.format(facts.endMs, timeFormat),
    contact_channel: view.contactChannel,
    capacity: facts.capacity,
    capacity_left: facts.capacityLeft,
    products: view.productRefs,
  };
}
