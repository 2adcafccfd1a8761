/**
 * What A2 and A3 share before any transaction: the resource named by the path, the product of the
 * request (offered by the resource on the channel), and the request's times read in the provider's zone.
 */
import type { Queryable } from '../storage/db.js';
import { invalid, notFound } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { parseInstant } from '../scheduling/time.js';
import { productsJsonSql, type ProductRow } from './publicProducts.js';
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

/** The requested product among the offered ones; 400 naming the field when the resource does not offer it there. */
export function offeredProduct(offered: ProductRow[], productId: string, field: string, resource: PublicResource, channel: ChannelKey): ProductRow {
  const product = offered.find((p) => p.id === productId);
  if (!product) throw invalid(`${field} ${productId} is not a product of resource ${resource.reference} on channel ${channel}`);
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
