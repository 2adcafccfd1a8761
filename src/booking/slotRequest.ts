/**
 * What A2, A3 and a reschedule share before anything is written: the resource named by the path
 * with its products and the slot the request names (a timeslot, or an appointment of an already
 * booked slot), read in one query; the product of the request; and the request's times in the
 * provider's zone, read once (readSlotRequest).
 */
import type { Queryable } from '../storage/db.js';
import { reviveOptionalRow, reviveRow } from '../storage/jsonRows.js';
import { invalid, notFound } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { contactFromRow, resourceContactJsonSql, type ContactRow, type ResolvedContact } from '../offerings/contact.js';
import type { AppointmentRow, ParticipationRow } from '../scheduling/capacity.js';
import { spanIn, type RequestSpan } from '../scheduling/time.js';
import type { EngineTimeslotRow } from './engineTimeslot.js';
import { productVisibleOn } from '../offerings/channels.js';
import { findProduct, onChannel, productsJsonSql, type ProductRow } from './publicProducts.js';
import { resolveResourceWith, type PublicResource } from './publicResources.js';

export type SlotTimeslotRow = EngineTimeslotRow & { address: unknown };

/** The place a request takes: in the slot's appointment, or in one made from the timeslot. */
export type SlotTarget = { timeslotId: string } | { appointmentId: string };

export interface BookableResource {
  resource: PublicResource;
  /** all products of the resource (channel not applied) */
  products: ProductRow[];
  /** the appointment the slot uuid names on this resource, when it names one */
  slotAppointment: AppointmentRow | null;
  /** the timeslot the slot uuid names on this resource, when it names one */
  slotTimeslot: SlotTimeslotRow | null;
}

/** A reservation (A2) and its appointment, as A3 finds it by its placeholder id. */
export interface HoldRow {
  participation: ParticipationRow;
  appointment: AppointmentRow;
}

export interface BookingLookup {
  /** also find the reservation with this placeholder id (A3) */
  placeholderId?: string | null;
  /** also read the resource's contact (for the mails and contact_channel) */
  withContact?: boolean;
  /** also read the products' booking questions (A3) */
  withQuestions?: boolean;
}

interface Row extends PublicResource {
  products: ProductRow[];
  slot_appointment: Record<string, unknown> | null;
  slot_timeslot: Record<string, unknown> | null;
  hold: { participation: Record<string, unknown>; appointment: Record<string, unknown> } | null;
  contact: ContactRow | null;
}

/**
 * The resource of a public booking path with its products and the slot `slotUuid` names (and,
 * when asked, a reservation and the resource's contact), in one query. Archived resources cannot
 * be booked (404).
 */
export async function bookableResource(
  db: Queryable,
  ref: string,
  slotUuid: string | null,
  lookup: BookingLookup = {},
): Promise<BookableResource & { hold: HoldRow | null; contact: ResolvedContact | null }> {
  const row = await resolveResourceWith<Row>(
    db,
    ref,
    'ref',
    `${productsJsonSql('r.id', lookup.withQuestions)} AS products,
     (SELECT row_to_json(a) FROM appointments a WHERE a.id = $1::uuid AND a.resource_id = r.id) AS slot_appointment,
     (SELECT row_to_json(t) FROM (SELECT id, resource_id, start_at, end_at, raster, default_capacity,
       default_accept_bookings, state, address
                                    FROM timeslots WHERE id = $1::uuid AND resource_id = r.id) t) AS slot_timeslot,
     (SELECT json_build_object('participation', row_to_json(p), 'appointment', row_to_json(a))
        FROM participations p JOIN appointments a ON a.id = p.appointment_id WHERE p.placeholder_id = $2::uuid) AS hold,
     ${lookup.withContact ? resourceContactJsonSql('r.id') : 'NULL'} AS contact`,
    [slotUuid, lookup.placeholderId ?? null],
  );
  if (row.archived) throw notFound(`resource ${ref} is archived and cannot be booked`);
  const { products, slot_appointment, slot_timeslot, hold, contact, ...resource } = row;
  return {
    resource,
    products,
    slotAppointment: reviveOptionalRow<AppointmentRow>(slot_appointment),
    slotTimeslot: reviveOptionalRow<SlotTimeslotRow>(slot_timeslot),
    hold: hold && { participation: reviveRow(hold.participation), appointment: reviveRow(hold.appointment) },
    contact: contactFromRow(contact),
  };
}

/**
 * The product of a booking request: the given one, else the slot appointment's, else the resource's
 * only one on the channel. It must be offered on the channel, or be the slot appointment's own
 * product (a partner may set up an appointment for any product of the provider): else 400.
 */
export async function requestedProduct(
  db: Queryable,
  b: BookableResource,
  channel: ChannelKey,
  productId: string | undefined,
): Promise<ProductRow> {
  const offered = onChannel(b.products, channel);
  const own = b.slotAppointment?.product_id ?? undefined;
  const id = productId ?? own ?? (offered.length === 1 ? offered[0].id : undefined);
  if (!id) throw invalid('body.product_uuid is required: the resource offers several products');
  const product =
    offered.find((p) => p.id === id) ??
    (id === own ? await findProduct(db, id, [b.resource.provider_id], 'body.product_uuid') : undefined);
  if (!product || !productVisibleOn(product, channel)) {
    throw invalid(`body.product_uuid ${id} is not a product of resource ${b.resource.reference} on channel ${channel}`);
  }
  return product;
}

/** What A2, A3 and a reschedule ask for: a slot of a resource, for a product, at a span of time. */
export interface SlotRequestInput {
  /** the resource: the public path's reference or uuid, or a booking's resource id */
  ref: string;
  /** a timeslot's uuid, or the uuid of the slot's appointment (an already booked group slot) */
  slotUuid: string;
  channelKey: ChannelKey;
  productUuid?: string;
  /** the request's times, read before any lookup (readRequestSpan) */
  span: RequestSpan;
  lookup?: BookingLookup;
}

/**
 * A slot request with everything read: the resource and slot, the
 * product, the times in the provider's zone, and the place to take.
 */
export interface SlotRequest extends BookableResource {
  hold: HoldRow | null;
  contact: ResolvedContact | null;
  product: ProductRow;
  start: Date;
  end: Date;
  /** the slot's appointment when it has one (its place is joined), else the timeslot (an appointment is made) */
  target: SlotTarget;
}

/**
 * A2's, A3's and reschedule's reads before anything is written: the resource with its slot (one
 * query, bookableResource), the product (requestedProduct) and the span's instants in the provider's zone.
 */
export async function readSlotRequest(db: Queryable, r: SlotRequestInput): Promise<SlotRequest> {
  const booking = await bookableResource(db, r.ref, r.slotUuid, r.lookup);
  const product = await requestedProduct(db, booking, r.channelKey, r.productUuid);
  const { start, end } = spanIn(r.span, booking.resource.time_zone);
  const target: SlotTarget = booking.slotAppointment
    ? { appointmentId: booking.slotAppointment.id }
    : { timeslotId: r.slotUuid };
  return { ...booking, product, start, end, target };
}
