/**
 * What A2 and A3 share before any transaction: the resource named by the path, the product of the
 * request (offered by the resource on the channel), and the request's times read in the provider's zone.
 */
import type { Queryable } from '../storage/db.js';
import { invalid, notFound } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { parseInstant } from '../scheduling/time.js';
import { productVisibleOn } from './channels.js';
import { findProduct, onChannel, productsJsonSql, type ProductRow } from './publicProducts.js';
import { resolveResourceWith, type PublicResource } from './publicResources.js';

export interface BookableResource {
  resource: PublicResource;
  /** all products of the resource (channel not applied) */
  products: ProductRow[];
  /** the appointment `slotUuid` names on this resource, when it names one */
  slotAppointment: { id: string; product_id: string | null } | null;
}

/**
 * The resource of a public booking path with its products, in one query, and whether `slotUuid`
 * (A3's timeslot_uuid) is one of its appointments. Archived resources cannot be booked (404).
 */
export async function bookableResource(db: Queryable, ref: string, slotUuid: string | null = null): Promise<BookableResource> {
  const row = await resolveResourceWith<{ products: ProductRow[]; slot_appointment: BookableResource['slotAppointment'] }>(
    db,
    ref,
    'ref',
    `${productsJsonSql('r.id')} AS products,
     (SELECT json_build_object('id', a.id, 'product_id', a.product_id) FROM appointments a WHERE a.id = $1::uuid AND a.resource_id = r.id) AS slot_appointment`,
    [slotUuid],
  );
  if (row.archived) throw notFound(`resource ${ref} is archived and cannot be booked`);
  const { products, slot_appointment, ...resource } = row;
  return { resource, products, slotAppointment: slot_appointment };
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
