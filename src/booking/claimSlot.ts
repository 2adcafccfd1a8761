/**
 * Claims a place in a requested slot for the public flow (A2, and A3 without a live hold): the
 * request is checked against the slot read beforehand (400 for times that are not a slot of it, 404
 * for an unknown or hidden slot, 409 once it has started), then the kernel's claim_place takes the
 * place in one statement: it creates the slot's appointment from the timeslot's defaults, or joins
 * the slot's appointment when one exists, and refuses a taken, overlapping or full slot (412 "201").
 */
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { DomainError, invalid, notFound } from '../errors.js';
import { assertBookable, bookingWindowOf } from '../offerings/bookingWindow.js';
import { limitReachedText } from '../offerings/bookingLimits.js';
import {
  claimPlace,
  PlaceRefused,
  type ClaimedPlace,
  type PlaceClaim,
  type PlaceHolder,
} from '../scheduling/claimPlace.js';
import type { Queryable } from '../storage/db.js';
import { asEngineTimeslot } from './engineTimeslot.js';
import { engineProduct, type ProductRow } from './publicProducts.js';
import type { EventSource } from '../webhooks/events.js';
import type { SlotRequest } from './slotRequest.js';
import { computeBookables, isOfferingTimeslot, type EngineTimeslot } from './slotEngine.js';

export interface ClaimRequest {
  /** the slot asked for, read (readSlotRequest) */
  request: SlotRequest;
  now: Date;
  /** names of the request fields, for messages: A2 says from/to, A3 start/end */
  fields: { start: string; end: string };
  participation: PlaceHolder;
  /** A2: the client's live holds are counted first */
  holdLimit?: { ip: string; max: number };
  /** webhook source of the place's events (default public); null: the caller reports the change itself */
  source?: EventSource | null;
  /** A2: the appointment's live participations read in the same statement */
  listLive?: boolean;
  /** A2: the hold commits on its own at asynchronous commit (PlaceClaim.asyncCommit) */
  asyncCommit?: boolean;
  /** reschedule: the participation it moves (PlaceClaim.moving) */
  moving?: string;
}

export const slotTaken = (message: string) => new DomainError('SLOT_TAKEN', message);

/** An instant as error messages show it: ISO 8601 in the provider's zone, e.g. 2026-11-30T09:30:00+01:00. */
export const zonedIso = (at: Date, zone: string) =>
  DateTime.fromJSDate(at, { zone }).toISO({ suppressMilliseconds: true }) ?? at.toISOString();

/** "the slot 2026-11-30T09:30:00+01:00 to 2026-11-30T10:00:00+01:00 (Europe/Berlin)" */
export const slotText = (start: Date, end: Date, zone: string) =>
  `the slot ${zonedIso(start, zone)} to ${zonedIso(end, zone)} (${zone})`;

/**
 * The slot engine's own rule: is [start, end) a candidate of
 * this timeslot for this product (ignoring other appointments)?
 */
function isCandidate(ts: EngineTimeslot, product: ProductRow, start: Date, end: Date): boolean {
  const s = start.getTime();
  return computeBookables([ts], [], { nowMs: s - 1, untilMs: s + 1, product: engineProduct(product) }).some(
    (b) => b.kind === 'models.Bookable' && b.startMs === s && b.endMs === end.getTime(),
  );
}

function assertNotStarted(startAt: Date, now: Date, field: string): void {
  if (startAt.getTime() <= now.getTime())
    throw new DomainError('TOO_LATE', `${field} lies in the past: the slot can no longer be booked`);
}

/** The resource's booking window (412 BOOKING_WINDOW outside it); A3 converting a hold checks it too. */
export function assertInBookingWindow(resource: SlotRequest['resource'], start: Date, now: Date, field: string): void {
  assertBookable(bookingWindowOf(resource.booking_window), start, now, resource.time_zone, field);
}

type Placement = Pick<PlaceClaim, 'join' | 'create'>;

function joinExisting(appointmentId: string, req: ClaimRequest): Placement {
  const appt = req.request.slotAppointment;
  if (!appt || appt.id !== appointmentId)
    throw notFound(`no appointment ${appointmentId} found on resource ${req.request.resource.reference}`);
  const zone = req.request.resource.time_zone;
  if (appt.start_at.getTime() !== req.request.start.getTime())
    throw invalid(`${req.fields.start} must be the appointment's start ${zonedIso(appt.start_at, zone)}`);
  if (appt.end_at.getTime() !== req.request.end.getTime())
    throw invalid(`${req.fields.end} must be the appointment's end ${zonedIso(appt.end_at, zone)}`);
  assertNotStarted(appt.start_at, req.now, req.fields.start);
  assertInBookingWindow(req.request.resource, appt.start_at, req.now, req.fields.start);
  return { join: appt.id };
}

function createFromTimeslot(timeslotId: string, req: ClaimRequest): Placement {
  const row = req.request.slotTimeslot;
  const { resource } = req.request;
  const ts = row && row.id === timeslotId ? asEngineTimeslot(row) : undefined;
  if (!ts || !isOfferingTimeslot(ts))
    throw notFound(`no bookable timeslot ${timeslotId} found on resource ${resource.reference}`);
  if (!isCandidate(ts, req.request.product, req.request.start, req.request.end)) {
    throw invalid(
      `${req.fields.start} and ${req.fields.end} must be a bookable slot of timeslot ${timeslotId}: ` +
        `raster ${ts.rasterMin} minutes from its start, inside it, and as long as the product needs`,
    );
  }
  assertNotStarted(req.request.start, req.now, req.fields.start);
  assertInBookingWindow(resource, req.request.start, req.now, req.fields.start);
  // docs/api.md, Booking rules: when the slot has its appointment already, claim_place joins it instead.
  return {
    create: {
      appointment: {
        id: randomUUID(),
        crmId: resource.crm_id,
        providerId: resource.provider_id,
        resourceId: resource.id,
        productId: req.request.product.id,
        timeslotId: ts.id,
        reference: `${randomUUID()}@booking`,
        start: req.request.start,
        end: req.request.end,
        capacity: ts.defaultCapacity,
        acceptBookings: ts.defaultAcceptBookings,
        contactUserId: resource.contact_user_id,
        address: row!.address,
        createdByPublicFlow: true,
      },
      buffers: {
        leadMin: req.request.product.lead_time_minutes ?? 0,
        followUpMin: req.request.product.follow_up_time_minutes ?? 0,
      },
    },
  };
}

/**
 * The kernel's refusals as the public flow words them: a slot that cannot be had is 412 errorCode
 * "201", one on a date or week at the resource's booking limit 412 BOOKING_LIMIT. The words are
 * this module's, not the database's: the field, the slot in ISO 8601 in the provider's zone (the
 * date or week at a limit), and what to do.
 */
function publicRefusal(err: PlaceRefused, req: ClaimRequest): DomainError {
  const slot = `${req.fields.start}: ${slotText(req.request.start, req.request.end, req.request.resource.time_zone)}`;
  switch (err.reason) {
    case 'HOLD_LIMIT':
      return new DomainError('HOLD_LIMIT', err.message);
    case 'GONE':
      return notFound(`${slot} is no longer offered: its appointment was removed`);
    case 'TIMESLOT_GONE':
      return notFound(`${slot} is no longer offered: its timeslot was removed or changed; choose another slot`);
    case 'DUPLICATE':
      return new DomainError('AppointmentAlreadyBookedException', `${slot} is booked by this consumer already`);
    case 'FULL':
      return slotTaken(`${slot} has no free place left; choose another slot`);
    case 'CLOSED':
      return slotTaken(`${slot} is no longer bookable: its appointment was cancelled or archived; choose another slot`);
    case 'NOT_OPEN':
      return slotTaken(`${slot} is not open for bookings of this product; choose another slot or product`);
    case 'BUSY':
      return slotTaken(`${slot} is not available: the provider is busy then; choose another slot`);
    case 'LIMIT': {
      const reached = err.limit ? limitReachedText(err.limit) : err.message;
      return new DomainError('BOOKING_LIMIT', `${req.fields.start}: ${reached}`);
    }
    default:
      return slotTaken(`${slot} is taken: it overlaps another appointment of this resource; choose another slot`);
  }
}

/**
 * Checks the request against its slot and takes a place in one statement. Committed on its own
 * (A2) the appointment's lock is never held across a round trip; A3 runs it last in its transaction.
 */
export async function claimSlot(q: Queryable, req: ClaimRequest): Promise<ClaimedPlace> {
  const placement =
    'appointmentId' in req.request.target
      ? joinExisting(req.request.target.appointmentId, req)
      : createFromTimeslot(req.request.target.timeslotId, req);
  try {
    return await claimPlace(q, {
      ...placement,
      participation: req.participation,
      now: req.now,
      publicProduct: req.request.product.id,
      holdLimit: req.holdLimit,
      source: req.source === undefined ? 'public' : req.source,
      listLive: req.listLive,
      asyncCommit: req.asyncCommit,
      moving: req.moving,
    });
  } catch (err) {
    throw err instanceof PlaceRefused ? publicRefusal(err, req) : err;
  }
}
