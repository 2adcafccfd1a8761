/**
 * What A2 and A3 share before anything is written: the resource named by the path with its
 * products and the slot the request names (a timeslot, or an appointment of an already booked
 * slot), read in one query; the product of the request; and the request's times in the provider's zone.
 */
import type { Queryable } from '../storage/db.js';
import { reviveOptionalRow, reviveRow } from '../storage/jsonRows.js';
import { invalid, notFound } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { contactFromRow, resourceContactJsonSql, type ContactRow, type ResolvedContact } from '../offerings/contact.js';
import type { AppointmentRow, ParticipationRow } from '../scheduling/capacity.js';
import { parseInstant } from '../scheduling/time.js';
import type { EngineTimeslotRow } from './engineTimeslot.js';
import { productVisibleOn } from './channels.js';
import { findProduct, onChannel, productsJsonSql, type ProductRow } from './publicProducts.js';
import { resolveResourceWith, type PublicResource } from './publicResources.js';

export type SlotTimeslotRow = EngineTimeslotRow & { address: unknown };

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
     (SELECT row_to_json(t) FROM (SELECT id, resource_id, start_at, end_at, raster, default_capacity, default_accept_bookings, state, address
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
  const product = offered.find((p) => p.id === id) ?? (id === own ? await findProduct(db, id, [b.resource.provider_id], 'body.product_uuid') : undefined);
  if (!product || !productVisibleOn(product, channel)) {
    throw invalid(`body.product_uuid ${id} is not a product of resource ${b.resource.reference} on channel ${channel}`);
  }
  return product;
}

const hasOffset = (value: string) => /T.*(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value);

/**
 * Request checks that need no lookup (400 before anything else). When both times carry an offset,
 * or neither does, their order is known without the provider's zone; requestTimes checks again.
 */
export function assertSlotFields(start: string, end: string, fields: { start: string; end: string }): void {
  const s = parseInstant(start, 'UTC', fields.start);
  const e = parseInstant(end, 'UTC', fields.end);
  if (hasOffset(start) === hasOffset(end) && e.getTime() <= s.getTime()) throw invalid(`${fields.end} must be after ${fields.start}`);
}

/** Start and end of a request, in the provider's zone when they carry no offset; end after start. */
export function requestTimes(resource: PublicResource, start: string, end: string, fields: { start: string; end: string }) {
  const s = parseInstant(start, resource.time_zone, fields.start);
  const e = parseInstant(end, resource.time_zone, fields.end);
  if (e.getTime() <= s.getTime()) throw invalid(`${fields.end} must be after ${fields.start}`);
  return { start: s, end: e };
}
