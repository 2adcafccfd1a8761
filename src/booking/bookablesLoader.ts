/**
 * The two reads of A1, shaped for the slot engine: timeslots overlapping the window, and the
 * live appointments of the resources with their live participation counts (one query each).
 */
import { LIVE_PARTICIPATION_SQL } from '../scheduling/capacity.js';
import type { TimeslotRow } from '../scheduling/repo.js';
import type { Queryable } from '../storage/db.js';
import type { EngineAppointment, EngineTimeslot } from './slotEngine.js';

/** An engine appointment plus what the public item shows about its product. */
export interface LoadedAppointment extends EngineAppointment {
  productName: string | null;
  productExclusive: boolean;
  /** when the earliest live hold on it expires (its live count drops then) */
  nextHoldExpiryMs: number | null;
}

/** The columns of a timeslot row (scheduling's TimeslotRow) the slot engine needs. */
export type EngineTimeslotRow = Pick<TimeslotRow, 'id' | 'resource_id' | 'start_at' | 'end_at' | 'raster' | 'default_capacity' | 'default_accept_bookings' | 'state'>;

export function asEngineTimeslot(t: EngineTimeslotRow): EngineTimeslot {
  return {
    id: t.id,
    resourceId: t.resource_id,
    startMs: t.start_at.getTime(),
    endMs: t.end_at.getTime(),
    rasterMin: t.raster,
    defaultCapacity: t.default_capacity,
    defaultAcceptBookings: t.default_accept_bookings,
    state: t.state,
  };
}

/** Offering timeslots (BOOKABLE, accepting bookings, capacity > 0) of the resources that reach into [from, until). */
export async function loadTimeslots(db: Queryable, resourceIds: string[], from: Date, until: Date): Promise<EngineTimeslot[]> {
  const rows = await db.query<EngineTimeslotRow>(
    `SELECT id, resource_id, start_at, end_at, raster, default_capacity, default_accept_bookings, state
       FROM timeslots
      WHERE resource_id = ANY($1::uuid[]) AND end_at > $2 AND start_at < $3
        AND state = 'BOOKABLE' AND default_accept_bookings AND default_capacity > 0`,
    [resourceIds, from, until],
  );
  return rows.map(asEngineTimeslot);
}

interface AppointmentRow {
  id: string;
  resource_id: string;
  timeslot_id: string | null;
  product_id: string | null;
  start_at: Date;
  end_at: Date;
  blocked_from: Date;
  blocked_until: Date;
  capacity: number;
  accept_bookings: boolean;
  live: number;
  next_hold_expiry: Date | null;
  product_name: string | null;
  exclusive: boolean | null;
}

/** Live (ACTIVE, not archived) appointments of the resources blocking time in [from, until), with live counts at `now`. */
export async function loadAppointments(db: Queryable, resourceIds: string[], from: Date, until: Date, now: Date): Promise<LoadedAppointment[]> {
  const rows = await db.query<AppointmentRow>(
    `SELECT a.id, a.resource_id, a.timeslot_id, a.product_id, a.start_at, a.end_at, a.blocked_from, a.blocked_until, a.capacity, a.accept_bookings,
            COALESCE(a.product_name, pr.name) AS product_name, pr.exclusive,
            (SELECT count(*)::int FROM participations WHERE appointment_id = a.id AND ${LIVE_PARTICIPATION_SQL}) AS live,
            (SELECT min(hold_until) FROM participations WHERE appointment_id = a.id AND state = 'RESERVED' AND hold_until > $2) AS next_hold_expiry
       FROM appointments a LEFT JOIN products pr ON pr.id = a.product_id
      WHERE a.resource_id = ANY($1::uuid[]) AND a.state = 'ACTIVE' AND NOT a.archived AND a.blocked_until > $3 AND a.blocked_from < $4`,
    [resourceIds, now, from, until],
  );
  return rows.map((r) => ({
    id: r.id,
    resourceId: r.resource_id,
    timeslotId: r.timeslot_id,
    productId: r.product_id,
    startMs: r.start_at.getTime(),
    endMs: r.end_at.getTime(),
    blockedFromMs: r.blocked_from.getTime(),
    blockedUntilMs: r.blocked_until.getTime(),
    capacity: r.capacity,
    acceptBookings: r.accept_bookings,
    live: r.live,
    state: 'ACTIVE',
    archived: false,
    productName: r.product_name,
    productExclusive: r.exclusive === true,
    nextHoldExpiryMs: r.next_hold_expiry ? r.next_hold_expiry.getTime() : null,
  }));
}
