/**
 * A2 and A3 on a pool (DESIGN 7.11, docs/pools.md): what is read before anything is written. The
 * pool the path names, and in one query each member with its products, contact, the timeslots
 * around the requested span and the member's appointment of that very span. From these, the
 * members that offer the slot (candidates): each with the place A2 on that member would take (its
 * group appointment of that product and span, or an appointment made from its timeslot). Whether a
 * candidate can still take it (free, not full, not busy, under its limits) is decided by the
 * database, in the statement that takes the place (claim_pool_place.sql).
 */
import { randomUUID } from 'node:crypto';
import { DomainError, invalid } from '../errors.js';
import { productVisibleOn, type ChannelKey } from '../offerings/channels.js';
import { contactFromRow, resourceContactJsonSql, type ContactRow, type ResolvedContact } from '../offerings/contact.js';
import { requirePublicPool, type PublicPool } from '../pools/publicPools.js';
import { appointmentJson } from '../scheduling/claimPlace.js';
import type { AppointmentRow } from '../scheduling/capacity.js';
import { spanIn, type RequestSpan } from '../scheduling/time.js';
import type { Queryable } from '../storage/db.js';
import { reviveOptionalRow, reviveRow } from '../storage/jsonRows.js';
import { assertInBookingWindow, slotTaken, slotText } from './claimSlot.js';
import { asEngineTimeslot } from './engineTimeslot.js';
import { engineProduct, productsJsonSql, type ProductRow } from './publicProducts.js';
import { PUBLIC_RESOURCE_COLUMNS, PUBLIC_RESOURCE_FROM, type PublicResource } from './publicResources.js';
import { computeBookables, isOfferingTimeslot } from './slotEngine.js';
import type { SlotTimeslotRow } from './slotRequest.js';

export interface PoolMemberData {
  resource: PublicResource;
  products: ProductRow[];
  contact: ResolvedContact | null;
}

/** A member that offers the slot, and the place it would take there. */
export interface PoolCandidate {
  resource_id: string;
  join: string | null;
  new: Record<string, unknown> | null;
}

export interface PoolRequest {
  pool: PublicPool;
  members: Map<string, PoolMemberData>;
  product: ProductRow;
  start: Date;
  end: Date;
  candidates: PoolCandidate[];
}

export interface PoolRequestInput {
  ref: string;
  poolUuid: string;
  channelKey: ChannelKey;
  productUuid?: string;
  span: RequestSpan;
  fields: { start: string; end: string };
  now: Date;
  withQuestions?: boolean;
}

interface Row extends PublicResource {
  products: ProductRow[];
  contact: ContactRow | null;
  timeslots: Record<string, unknown>[] | null;
  slot_appointment: Record<string, unknown> | null;
}

async function readMembers(db: Queryable, pool: PublicPool, start: Date, end: Date, withQuestions: boolean) {
  const ids = pool.members.filter((m) => !m.archived).map((m) => m.id);
  return db.query<Row>(
    `SELECT ${PUBLIC_RESOURCE_COLUMNS}, ${productsJsonSql('r.id', withQuestions)} AS products,
            ${resourceContactJsonSql('r.id')} AS contact,
            (SELECT json_agg(row_to_json(t)) FROM (
               SELECT id, resource_id, start_at, end_at, raster, default_capacity, default_accept_bookings,
                      state, address
                 FROM timeslots WHERE resource_id = r.id AND start_at <= $2 AND end_at >= $3) t) AS timeslots,
            (SELECT row_to_json(a) FROM appointments a
              WHERE a.resource_id = r.id AND a.start_at = $2 AND a.end_at = $3 AND a.state = 'ACTIVE' AND NOT a.archived
              LIMIT 1) AS slot_appointment
       ${PUBLIC_RESOURCE_FROM} JOIN unnest($1::uuid[]) WITH ORDINALITY AS m(id, pos) ON m.id = r.id
      ORDER BY m.pos`,
    [ids, start, end],
  );
}

/** The product: the given one, else the only one the members offer on the channel; 400 otherwise. */
function poolProduct(rows: Row[], channel: ChannelKey, productUuid: string | undefined, pool: PublicPool) {
  const offered = new Map<string, ProductRow>();
  for (const r of rows) for (const p of r.products) if (productVisibleOn(p, channel)) offered.set(p.id, p);
  const id = productUuid ?? (offered.size === 1 ? [...offered.keys()][0] : undefined);
  if (!id) throw invalid('body.product_uuid is required: the members of the pool offer several products');
  const product = offered.get(id);
  if (!product)
    throw invalid(
      `body.product_uuid ${id} is not a product of a member of pool ${pool.reference} on channel ${channel}`,
    );
  return product;
}

/** Reads the pool, its members and the candidates for the requested slot (400, 404, 409, 412 as A2 on a member). */
export async function readPoolRequest(db: Queryable, r: PoolRequestInput): Promise<PoolRequest> {
  const pool = await requirePublicPool(db, r.ref);
  if (pool.id !== r.poolUuid) throw invalid(`body.pool_uuid must be ${pool.id}, the pool of the path`);
  const zone = (
    await db.query<{ time_zone: string }>('SELECT time_zone FROM providers WHERE id = $1', [pool.provider_id])
  )[0].time_zone;
  const { start, end } = spanIn(r.span, zone);
  const rows = await readMembers(db, pool, start, end, r.withQuestions ?? false);
  const product = poolProduct(rows, r.channelKey, r.productUuid, pool);
  if (start.getTime() <= r.now.getTime())
    throw new DomainError('TOO_LATE', `${r.fields.start} lies in the past: the slot can no longer be booked`);
  const members = new Map<string, PoolMemberData>();
  const candidates: PoolCandidate[] = [];
  let offeredAtAll = false;
  let outsideWindow: unknown;
  for (const row of rows) {
    const { products, contact, timeslots, slot_appointment, ...resource } = row;
    members.set(resource.id, { resource, products, contact: contactFromRow(contact) });
    if (!products.some((p) => p.id === product.id && productVisibleOn(p, r.channelKey))) continue;
    const place = placeOn(
      resource,
      product,
      timeslots,
      reviveOptionalRow<AppointmentRow>(slot_appointment),
      start,
      end,
    );
    if (!place) continue;
    offeredAtAll = true;
    try {
      assertInBookingWindow(resource, start, r.now, r.fields.start);
    } catch (err) {
      outsideWindow = err;
      continue;
    }
    candidates.push(place);
  }
  if (candidates.length === 0) {
    if (outsideWindow) throw outsideWindow;
    if (!offeredAtAll)
      throw invalid(
        `${r.fields.start} and ${r.fields.end} must be a listed slot of pool ${pool.reference}: ` +
          'no member offers that span for this product',
      );
    throw slotTaken(`${r.fields.start}: ${slotText(start, end, zone)} is taken on every member of the pool`);
  }
  return { pool, members, product, start, end, candidates };
}

/** The place A2 on this member would take: its appointment of the span, else one made from a timeslot. */
function placeOn(
  resource: PublicResource,
  product: ProductRow,
  timeslots: Record<string, unknown>[] | null,
  appointment: AppointmentRow | null,
  start: Date,
  end: Date,
): PoolCandidate | null {
  if (appointment) {
    if (!appointment.accept_bookings || (appointment.product_id && appointment.product_id !== product.id)) return null;
    return { resource_id: resource.id, join: appointment.id, new: null };
  }
  for (const raw of timeslots ?? []) {
    const row = reviveRow<SlotTimeslotRow>(raw);
    const ts = asEngineTimeslot(row);
    if (!isOfferingTimeslot(ts)) continue;
    const s = start.getTime();
    const fits = computeBookables([ts], [], { nowMs: s - 1, untilMs: s + 1, product: engineProduct(product) }).some(
      (b) => b.kind === 'models.Bookable' && b.startMs === s && b.endMs === end.getTime(),
    );
    if (!fits) continue;
    const created = appointmentJson(
      {
        id: randomUUID(),
        crmId: resource.crm_id,
        providerId: resource.provider_id,
        resourceId: resource.id,
        productId: product.id,
        timeslotId: ts.id,
        reference: `${randomUUID()}@booking`,
        start,
        end,
        capacity: ts.defaultCapacity,
        acceptBookings: ts.defaultAcceptBookings,
        contactUserId: resource.contact_user_id,
        address: row.address,
        createdByPublicFlow: true,
      },
      { leadMin: product.lead_time_minutes ?? 0, followUpMin: product.follow_up_time_minutes ?? 0 },
    );
    return { resource_id: resource.id, join: null, new: created };
  }
  return null;
}
