/**
 * The booking kernel: the only code that creates appointments on a resource and takes places in
 * an appointment. Everything that must never break is decided here, under row locks in the
 * caller's transaction, with the database's exclusion constraint as the last word:
 *  - a resource's live appointments never overlap (appointments_no_overlap), and a new one's
 *    lead/follow-up buffers are free (checked while the resource row is locked);
 *  - an appointment never has more live participations than its capacity (checked while the
 *    appointment row is locked).
 * Lock order is always resource, then appointment, so two transactions cannot deadlock.
 */
import { conflict, DomainError } from '../errors.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';

export interface AppointmentRow {
  id: string;
  crm_id: string;
  provider_id: string;
  resource_id: string | null;
  product_id: string | null;
  timeslot_id: string | null;
  reference: string;
  series_id: string | null;
  start_at: Date;
  end_at: Date;
  capacity: number;
  accept_bookings: boolean;
  product_name: string | null;
  contact_user_id: string | null;
  address: unknown;
  price_value: number | string | null;
  price_currency: string | null;
  description: string | null;
  notes: string | null;
  archived: boolean;
  state: 'ACTIVE' | 'CANCELLED';
}

export interface NewAppointment {
  crmId: string;
  providerId: string;
  resourceId: string;
  productId: string | null;
  timeslotId?: string | null;
  reference: string;
  seriesId?: string | null;
  start: Date;
  end: Date;
  capacity: number;
  acceptBookings: boolean;
  productName?: string | null;
  contactUserId?: string | null;
  address?: unknown;
  priceValue?: number | null;
  priceCurrency?: string | null;
  description?: string | null;
  /** created by the public booking flow (A2/A3): the hold sweeper may remove it once empty (migration 004) */
  createdByPublicFlow?: boolean;
}

export interface Buffers {
  leadMin: number;
  followUpMin: number;
}

/** Raised when a new appointment would overlap another; the public flow turns it into 412/"201". */
export class SlotConflict extends DomainError {
  constructor(readonly clashingReference: string) {
    super('CONFLICT', `the time overlaps appointment ${clashingReference} of the same resource`);
  }
}

/** Serializes appointment creation per resource for the rest of the transaction. */
export async function lockResource(tx: Queryable, resourceId: string): Promise<void> {
  await tx.query('SELECT id FROM resources WHERE id = $1 FOR UPDATE', [resourceId]);
}

/**
 * Creates an appointment on a resource whose row the caller has locked with lockResource.
 * Throws SlotConflict when [start - lead, end + followUp] meets a live appointment.
 */
export async function insertAppointment(tx: Queryable, a: NewAppointment, buffers: Buffers = { leadMin: 0, followUpMin: 0 }): Promise<AppointmentRow> {
  const [clash] = await tx.query<{ reference: string }>(
    `SELECT reference FROM appointments
      WHERE resource_id = $1 AND state = 'ACTIVE' AND NOT archived
        AND tstzrange(start_at, end_at) && tstzrange($2::timestamptz - make_interval(mins => $4::int), $3::timestamptz + make_interval(mins => $5::int))
      ORDER BY start_at LIMIT 1`,
    [a.resourceId, a.start, a.end, buffers.leadMin, buffers.followUpMin],
  );
  if (clash) throw new SlotConflict(clash.reference);
  try {
    const [row] = await tx.query<AppointmentRow>(
      `INSERT INTO appointments (crm_id, provider_id, resource_id, product_id, timeslot_id, reference, series_id, start_at, end_at,
         capacity, accept_bookings, product_name, contact_user_id, address, price_value, price_currency, description, created_by_public_flow)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15, $16, $17, $18) RETURNING *`,
      [
        a.crmId, a.providerId, a.resourceId, a.productId, a.timeslotId ?? null, a.reference, a.seriesId ?? null, a.start, a.end,
        a.capacity, a.acceptBookings, a.productName ?? null, a.contactUserId ?? null,
        a.address === undefined || a.address === null ? null : JSON.stringify(a.address),
        a.priceValue ?? null, a.priceCurrency ?? null, a.description ?? null, a.createdByPublicFlow ?? false,
      ],
    );
    return row;
  } catch (err) {
    if (sqlState(err) === '23P01') throw new SlotConflict('(concurrent)');
    if (sqlState(err) === '23505' && constraintName(err) === 'appointments_provider_id_reference_key') {
      throw conflict(`an appointment with reference ${a.reference} already exists`);
    }
    throw err;
  }
}

/** Locks an appointment row for the rest of the transaction; undefined when it does not exist. */
export async function lockAppointment(tx: Queryable, appointmentId: string): Promise<AppointmentRow | undefined> {
  const [row] = await tx.query<AppointmentRow>('SELECT * FROM appointments WHERE id = $1 FOR UPDATE', [appointmentId]);
  return row;
}

/** RESERVED with a live hold, REQUESTED and BOOKED count; an expired hold counts for nothing, swept or not. */
export const LIVE_PARTICIPATION_SQL = `(state IN ('REQUESTED', 'BOOKED') OR (state = 'RESERVED' AND hold_until > $2))`;

export async function liveParticipationCount(tx: Queryable, appointmentId: string, now: Date, excludeParticipationId?: string): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM participations
      WHERE appointment_id = $1 AND ${LIVE_PARTICIPATION_SQL} AND ($3::uuid IS NULL OR id <> $3)`,
    [appointmentId, now, excludeParticipationId ?? null],
  );
  return row.n;
}

/**
 * Asserts a free place in an appointment the caller has locked with lockAppointment. Pass the
 * participation that is about to count again (an expired hold being booked) as `excluding`.
 */
export async function assertPlaceFree(
  tx: Queryable,
  appointment: AppointmentRow,
  now: Date,
  options: { ignoreCapacity?: boolean; excluding?: string } = {},
): Promise<number> {
  const live = await liveParticipationCount(tx, appointment.id, now, options.excluding);
  if (!options.ignoreCapacity && live >= appointment.capacity) {
    throw new DomainError('CAPACITY_EXHAUSTED', `appointment ${appointment.reference} has no free place (capacity ${appointment.capacity})`);
  }
  return live;
}

export interface ParticipationRow {
  id: string;
  crm_id: string;
  provider_id: string;
  appointment_id: string;
  reference: string;
  customer_id: string | null;
  placeholder_id: string;
  state: 'RESERVED' | 'REQUESTED' | 'BOOKED' | 'CANCELED' | 'DELETED';
  hold_until: Date | null;
  client_ip: string | null;
  channel_key: string | null;
  message: string | null;
  locale: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewParticipation {
  crmId: string;
  providerId: string;
  appointmentId: string;
  reference: string;
  customerId: string | null;
  state: ParticipationRow['state'];
  holdUntil?: Date | null;
  clientIp?: string | null;
  channelKey?: string | null;
  message?: string | null;
  locale?: string | null;
}

/** Inserts a participation. Call assertPlaceFree first (same transaction, appointment locked). */
export async function insertParticipation(tx: Queryable, p: NewParticipation): Promise<ParticipationRow> {
  try {
    const [row] = await tx.query<ParticipationRow>(
      `INSERT INTO participations (crm_id, provider_id, appointment_id, reference, customer_id, state, hold_until, client_ip, channel_key, message, locale)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [p.crmId, p.providerId, p.appointmentId, p.reference, p.customerId, p.state, p.holdUntil ?? null, p.clientIp ?? null, p.channelKey ?? null, p.message ?? null, p.locale ?? null],
    );
    return row;
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') {
      throw new DomainError('AppointmentAlreadyBookedException', 'the customer already participates in this appointment');
    }
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_provider_id_reference_key') {
      throw conflict(`a participation with reference ${p.reference} already exists`);
    }
    throw err;
  }
}
