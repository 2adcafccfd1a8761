/**
 * Taking a place in an appointment for a provider-side participation (D6 inline, D9), through the
 * kernel: the caller has locked the appointment with lockAppointment in its transaction.
 */
import type { Deps } from '../context.js';
import { conflict, DomainError } from '../errors.js';
import type { Queryable } from '../storage/db.js';
import { assertPlaceFree, insertParticipation, LIVE_PARTICIPATION_SQL, type AppointmentRow, type ParticipationRow } from './capacity.js';
import { PLACE_HOLDING, type ParticipationState } from './transitions.js';

export interface PlaceRequest {
  reference: string;
  customerId: string;
  state: ParticipationState;
  message?: string | null;
  note?: string | null;
  ignoreCapacity?: boolean;
}

/** 409 AppointmentAlreadyBookedException when the customer already holds a place in the appointment. */
async function assertNotParticipating(tx: Queryable, appointment: AppointmentRow, customerId: string, now: Date): Promise<void> {
  // $2 is `now`: LIVE_PARTICIPATION_SQL refers to it.
  const [row] = await tx.query(
    `SELECT 1 FROM participations WHERE appointment_id = $1 AND customer_id = $3 AND ${LIVE_PARTICIPATION_SQL} LIMIT 1`,
    [appointment.id, now, customerId],
  );
  if (row) {
    throw new DomainError('AppointmentAlreadyBookedException', `the customer already participates in appointment ${appointment.reference}`);
  }
}

/**
 * Inserts a participation. One that holds a place (RESERVED, REQUESTED, BOOKED) needs an active
 * appointment, a customer not yet in it and a free place (unless ignoreCapacity); a RESERVED one
 * gets the usual hold. CANCELED and DELETED ones are recorded as they are.
 */
export async function takePlace(
  tx: Queryable,
  deps: Pick<Deps, 'config' | 'clock'>,
  appointment: AppointmentRow,
  request: PlaceRequest,
): Promise<ParticipationRow> {
  const now = deps.clock.now();
  if (PLACE_HOLDING.includes(request.state)) {
    if (appointment.state !== 'ACTIVE') throw conflict(`appointment ${appointment.reference} is cancelled`);
    if (appointment.archived) throw conflict(`appointment ${appointment.reference} is archived`);
    await assertNotParticipating(tx, appointment, request.customerId, now);
    await assertPlaceFree(tx, appointment, now, { ignoreCapacity: request.ignoreCapacity });
  }
  const row = await insertParticipation(tx, {
    crmId: appointment.crm_id,
    providerId: appointment.provider_id,
    appointmentId: appointment.id,
    reference: request.reference,
    customerId: request.customerId,
    state: request.state,
    holdUntil: request.state === 'RESERVED' ? new Date(now.getTime() + deps.config.reservationHoldSeconds * 1000) : null,
    message: request.message ?? null,
  });
  if (request.note) await tx.query('UPDATE participations SET note = $2 WHERE id = $1', [row.id, request.note]);
  return row;
}
