/** D9 add (or update) a participation and D10 change its state. */
import type { Deps } from '../context.js';
import { conflict, invalid } from '../errors.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import { mailSources } from '../offerings/contact.js';
import { requireProvider } from '../partners/providers.js';
import { changeParticipationState } from './participations.js';
import { takePlace } from './places.js';
import * as repo from './repo.js';
import type { ParticipationState } from './transitions.js';
import { loadParticipationView, type ParticipationView } from './views.js';

export interface ParticipationInput {
  reference: string;
  appointmentReference: string;
  customerReference: string;
  state: ParticipationState;
  message?: string;
}

export interface AddOptions {
  ignoreCapacity?: boolean;
  onDuplicateRaise?: boolean;
  sendMails?: boolean;
}

/**
 * D9. A new reference takes a place (claim_place) (capacity enforced unless
 * ignoreCapacity; a customer already in the appointment is 409 AppointmentAlreadyBookedException);
 * a new BOOKED participation gets the 'participation-booked' mail. A known reference is 400 with
 * onDuplicateRaise, else its state changes per the transition table (D10's rules) and it is 200.
 */
export async function addParticipation(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: ParticipationInput,
  options: AddOptions = {},
): Promise<{ created: boolean; participation: ParticipationView }> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const appointment = await repo.requireAppointment(tx, provider.id, input.appointmentReference);
    const customer = await repo.requireCustomer(tx, provider.id, input.customerReference);
    const existing = await repo.participationByReference(tx, provider.id, input.reference);
    if (existing) {
      if (options.onDuplicateRaise)
        throw invalid(`a participation with reference ${input.reference} already exists (onDuplicateRaise=true)`);
      if (existing.appointment_id !== appointment.id || existing.customer_id !== customer.id) {
        throw conflict(`participation ${input.reference} belongs to another appointment or customer`);
      }
      const { participation } = await changeParticipationState(tx, deps, existing, input.state, {
        sendMails: options.sendMails,
        message: input.message,
      });
      return { created: false, participation: await loadParticipationView(tx, participation.id) };
    }
    const row = await takePlace(tx, deps, appointment, {
      reference: input.reference,
      customerId: customer.id,
      state: input.state,
      message: input.message,
      ignoreCapacity: options.ignoreCapacity,
    });
    if (row.state === 'BOOKED' && options.sendMails !== false) {
      await enqueueParticipationMails(tx, mailSources(deps.config), row.id, ['participation-booked'], {
        message: input.message ?? null,
      });
    }
    return { created: true, participation: await loadParticipationView(tx, row.id) };
  });
}

/** D10: a state change exactly per the transition table; same state again is 200 without mail. */
export async function updateParticipation(
  deps: Deps,
  crmId: string,
  providerRef: string,
  reference: string,
  body: { state: ParticipationState; message?: string },
  options: { sendMails?: boolean } = {},
): Promise<ParticipationView> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const existing = await repo.participationByReference(tx, provider.id, reference);
    if (!existing) throw repo.participationNotFound(reference);
    const { participation } = await changeParticipationState(tx, deps, existing, body.state, {
      sendMails: options.sendMails,
      message: body.message,
    });
    return loadParticipationView(tx, participation.id);
  });
}
