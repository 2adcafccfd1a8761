/**
 * Claims a place in a requested slot for the public flow (A2 and A3), on the booking kernel:
 * the resource row is locked first, then the slot's appointment is found (or created from the
 * timeslot's defaults) and locked, and a free place in it is asserted. The caller inserts the
 * participation in the same transaction, so the check and the taking of the place are atomic.
 */
import { randomUUID } from 'node:crypto';
import { DomainError, invalid, notFound } from '../errors.js';
import {
  assertPlaceFree,
  insertAppointment,
  lockAppointment,
  lockResource,
  SlotConflict,
  type AppointmentRow,
} from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import { asEngineTimeslot, type EngineTimeslotRow } from './bookablesLoader.js';
import { engineProduct, type ProductRow } from './publicProducts.js';
import type { PublicResource } from './publicResources.js';
import { computeBookables, isOfferingTimeslot, type EngineTimeslot } from './slotEngine.js';

export type SlotTarget = { timeslotId: string } | { appointmentId: string };

export interface ClaimRequest {
  resource: PublicResource;
  product: ProductRow;
  target: SlotTarget;
  start: Date;
  end: Date;
  now: Date;
  /** names of the request fields, for messages: A2 says from/to, A3 start/end */
  fields: { start: string; end: string; target: string };
}

export const slotTaken = (message: string) => new DomainError('SLOT_TAKEN', message);

/** The slot's appointment, locked, and how many live places it had before the caller takes one. */
export interface Claim {
  appointment: AppointmentRow;
  liveBefore: number;
  /** created by this claim (so the caller's participation is its only one) */
  created: boolean;
}

interface SlotTimeslotRow extends EngineTimeslotRow {
  address: unknown;
  /** a live appointment of exactly the requested slot, if any */
  same_slot: string | null;
}

/** The slot engine's own rule: is [start, end) a candidate of this timeslot for this product (ignoring other appointments)? */
function isCandidate(ts: EngineTimeslot, product: ProductRow, start: Date, end: Date): boolean {
  const s = start.getTime();
  return computeBookables([ts], [], { nowMs: s - 1, untilMs: s + 1, product: engineProduct(product) }).some(
    (b) => b.kind === 'models.Bookable' && b.startMs === s && b.endMs === end.getTime(),
  );
}

function assertNotStarted(startAt: Date, now: Date, field: string): void {
  if (startAt.getTime() <= now.getTime()) throw new DomainError('TOO_LATE', `${field} lies in the past: the slot can no longer be booked`);
}

/** Takes a place in an existing appointment the caller has locked. */
async function joinAppointment(tx: Queryable, appt: AppointmentRow, req: ClaimRequest): Promise<Claim> {
  if (appt.state !== 'ACTIVE' || appt.archived || !appt.accept_bookings) {
    throw slotTaken(`the slot ${appt.start_at.toISOString()} is not open for bookings`);
  }
  if (appt.product_id !== null && appt.product_id !== req.product.id) {
    throw slotTaken(`the slot ${appt.start_at.toISOString()} is already booked for another product`);
  }
  try {
    return { appointment: appt, liveBefore: await assertPlaceFree(tx, appt, req.now), created: false };
  } catch (err) {
    if (err instanceof DomainError && err.code === 'CAPACITY_EXHAUSTED') throw slotTaken(`the slot ${appt.start_at.toISOString()} is fully booked`);
    throw err;
  }
}

async function claimByAppointment(tx: Queryable, appointmentId: string, req: ClaimRequest): Promise<Claim> {
  const appt = await lockAppointment(tx, appointmentId);
  if (!appt || appt.resource_id !== req.resource.id) throw notFound(`no appointment ${appointmentId} found on resource ${req.resource.reference}`);
  if (appt.start_at.getTime() !== req.start.getTime()) throw invalid(`${req.fields.start} must be the appointment's start ${appt.start_at.toISOString()}`);
  if (appt.end_at.getTime() !== req.end.getTime()) throw invalid(`${req.fields.end} must be the appointment's end ${appt.end_at.toISOString()}`);
  assertNotStarted(appt.start_at, req.now, req.fields.start);
  return joinAppointment(tx, appt, req);
}

async function claimByTimeslot(tx: Queryable, timeslotId: string, req: ClaimRequest): Promise<Claim> {
  // DESIGN §6: a slot that already has its appointment is joined while places are left.
  const [row] = await tx.query<SlotTimeslotRow>(
    `SELECT t.*, (SELECT a.id FROM appointments a WHERE a.resource_id = t.resource_id AND a.start_at = $3 AND a.end_at = $4
                    AND a.state = 'ACTIVE' AND NOT a.archived LIMIT 1) AS same_slot
       FROM timeslots t WHERE t.id = $1 AND t.resource_id = $2`,
    [timeslotId, req.resource.id, req.start, req.end],
  );
  const ts = row && asEngineTimeslot(row);
  if (!ts || !isOfferingTimeslot(ts)) throw notFound(`no bookable timeslot ${timeslotId} found on resource ${req.resource.reference}`);
  if (!isCandidate(ts, req.product, req.start, req.end)) {
    throw invalid(
      `${req.fields.start} and ${req.fields.end} must be a bookable slot of timeslot ${timeslotId}: raster ${ts.rasterMin} minutes from its start, inside it, and as long as the product needs`,
    );
  }
  assertNotStarted(req.start, req.now, req.fields.start);
  const existing = row.same_slot ? await lockAppointment(tx, row.same_slot) : undefined;
  if (existing) return joinAppointment(tx, existing, req);
  try {
    const created = await insertAppointment(
      tx,
      {
        crmId: req.resource.crm_id,
        providerId: req.resource.provider_id,
        resourceId: req.resource.id,
        productId: req.product.id,
        timeslotId: ts.id,
        reference: `${randomUUID()}@booking`,
        start: req.start,
        end: req.end,
        capacity: ts.defaultCapacity,
        acceptBookings: ts.defaultAcceptBookings,
        contactUserId: req.resource.contact_user_id,
        address: row.address,
        createdByPublicFlow: true,
      },
      { leadMin: req.product.lead_time_minutes ?? 0, followUpMin: req.product.follow_up_time_minutes ?? 0 },
    );
    return { appointment: created, liveBefore: 0, created: true };
  } catch (err) {
    if (err instanceof SlotConflict && err.clashingReference !== CONCURRENT) throw slotTaken(`the slot ${req.start.toISOString()} overlaps another appointment`);
    throw err;
  }
}

/** insertAppointment's reference for an exclusion violation: another instance won the race. */
const CONCURRENT = '(concurrent)';

/**
 * Locks the resource, then finds or creates the slot's appointment and asserts a free place in it.
 * 412 (errorCode "201") when the slot is taken or full; 400 when the times are not a slot of the
 * timeslot; 404 for an unknown or hidden timeslot or appointment.
 */
export async function claimSlot(tx: Queryable, req: ClaimRequest): Promise<Claim> {
  await lockResource(tx, req.resource.id);
  return 'appointmentId' in req.target ? claimByAppointment(tx, req.target.appointmentId, req) : claimByTimeslot(tx, req.target.timeslotId, req);
}

/**
 * Runs a claiming transaction, once more when it lost a race at the database's exclusion constraint
 * (the transaction is then aborted): the rerun finds and joins the winner's appointment.
 */
export async function withClaimRetry<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof SlotConflict && err.clashingReference === CONCURRENT)) throw err;
  }
  try {
    return await run();
  } catch (err) {
    if (err instanceof SlotConflict) throw slotTaken('the slot overlaps another appointment');
    throw err;
  }
}
