/**
 * Taking a place in an appointment for a provider-side participation (D6 inline, D9), through the
 * kernel's claim_place: the check and the take under the appointment's lock in one statement,
 * with the participation's webhook event.
 */
import type { Deps } from '../context.js';
import type { Queryable } from '../storage/db.js';
import { recordParticipationEvent } from './events.js';
import { insertParticipation, type AppointmentRow, type ParticipationRow } from './capacity.js';
import { claimPlace, partnerRefusal, PlaceRefused } from './claimPlace.js';
import { PLACE_HOLDING, type ParticipationState } from './transitions.js';

export interface PlaceRequest {
  reference: string;
  customerId: string;
  state: ParticipationState;
  message?: string | null;
  note?: string | null;
  ignoreCapacity?: boolean;
}

/**
 * Inserts a participation. One that holds a place (RESERVED, REQUESTED, BOOKED) needs an active
 * appointment, a customer not yet in it and a free place (unless ignoreCapacity): 409 otherwise; a
 * RESERVED one gets the usual hold. CANCELED and DELETED ones are recorded as they are.
 */
export async function takePlace(
  tx: Queryable,
  deps: Pick<Deps, 'config' | 'clock'>,
  appointment: Pick<AppointmentRow, 'id' | 'crm_id' | 'provider_id'>,
  request: PlaceRequest,
): Promise<ParticipationRow> {
  const now = deps.clock.now();
  const holder = {
    crmId: appointment.crm_id,
    providerId: appointment.provider_id,
    reference: request.reference,
    customerId: request.customerId,
    state: request.state,
    holdUntil:
      request.state === 'RESERVED' ? new Date(now.getTime() + deps.config.reservationHoldSeconds * 1000) : null,
    message: request.message ?? null,
    note: request.note ?? null,
  };
  if (!PLACE_HOLDING.includes(request.state)) {
    const row = await insertParticipation(tx, { ...holder, appointmentId: appointment.id });
    await recordParticipationEvent(tx, {
      participationId: row.id,
      source: 'partner',
      previousState: null,
      message: row.message,
    });
    return row;
  }
  try {
    return (
      await claimPlace(tx, {
        participation: holder,
        now,
        join: appointment.id,
        ignoreCapacity: request.ignoreCapacity,
        source: 'partner',
      })
    ).participation;
  } catch (err) {
    throw err instanceof PlaceRefused ? partnerRefusal(err) : err;
  }
}
