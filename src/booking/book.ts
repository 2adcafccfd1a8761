/**
 * A3 create_appointment_with_consumer: turns a live hold into the booking, or books anew when the
 * hold is gone and a place is free (DESIGN §4); the mails go to the outbox in the same transaction.
 */
import type { Deps } from '../context.js';
import { DomainError, invalid } from '../errors.js';
import { bookingProcessOf, type ChannelKey } from '../offerings/channels.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { insertParticipation, LIVE_PARTICIPATION_SQL, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import { constraintName, retryOnUniqueViolation, sqlState, type Queryable } from '../storage/db.js';
import { randomUUID } from 'node:crypto';
import { resourceView } from './bookableView.js';
import { claimSlot, slotTaken, withClaimRetry, type SlotTarget } from './claimSlot.js';
import { consumerCustomer, type ConsumerInput } from './consumer.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import { assertSlotFields, bookableResource, requestedProduct, requestTimes } from './slotRequest.js';
import { DEFAULT_TIME_FORMAT, localeOf, timePattern } from './upcomingBookables.js';

export interface BookInput extends Omit<ConsumerInput, 'language'> {
  ref: string;
  /** language of the mails, e.g. de, en or de_DE */
  locale?: string;
  channelKey: ChannelKey;
  timeFormat?: string;
  start: string;
  end: string;
  /** a timeslot's UUID, or the UUID of the slot's appointment (DESIGN §6) */
  timeslotUuid: string;
  productUuid?: string;
  placeholderId?: string;
  message?: string;
}

const FIELDS = { start: 'body.start', end: 'body.end', target: 'body.timeslot_uuid' };

const PROCESS = {
  IMMEDIATE: { state: 'BOOKED', templates: ['booking-confirmed', 'booking-notification'] },
  REQUESTED: { state: 'REQUESTED', templates: ['booking-requested', 'booking-request-to-confirm'] },
} as const satisfies Record<string, { state: ParticipationRow['state']; templates: MailTemplate[] }>;

const alreadyBooked = () => new DomainError('AppointmentAlreadyBookedException', 'the consumer already participates in this appointment');

interface Booked {
  appointment: AppointmentRow;
  participation: ParticipationRow;
  /** live participations of the appointment with this booking */
  liveAfter: number;
}

/** Converts the caller's live hold on this very appointment; null when it is not (or no longer) one. */
async function convertHold(
  tx: Queryable,
  placeholderId: string,
  slot: { start: Date; end: Date; resourceId: string },
  now: Date,
  changes: { customerId: string; state: ParticipationRow['state']; message: string | null; locale: string | null; channelKey: string },
): Promise<Booked | null> {
  // The appointment of a live hold, locked as the kernel's lockAppointment does. Only a live hold's:
  // otherwise the booking goes through claimSlot, which locks the resource first.
  const [appointment] = await tx.query<AppointmentRow & { hold_id: string }>(
    `SELECT a.*, p.id AS hold_id FROM participations p JOIN appointments a ON a.id = p.appointment_id
      WHERE p.placeholder_id = $1 AND p.state = 'RESERVED' AND p.hold_until > $2 FOR UPDATE OF a`,
    [placeholderId, now],
  );
  if (!appointment) return null;
  if (appointment.resource_id !== slot.resourceId || appointment.start_at.getTime() !== slot.start.getTime() || appointment.end_at.getTime() !== slot.end.getTime()) {
    throw invalid('body.placeholder_id belongs to a reservation of another slot');
  }
  // a hold does not outlive its appointment: cancelled or archived meanwhile, the slot is gone
  if (appointment.state !== 'ACTIVE' || appointment.archived) throw slotTaken(`the slot ${appointment.start_at.toISOString()} is no longer bookable`);
  const { hold_id: holdId, ...appointmentRow } = appointment;
  try {
    // The hold was live and stays live as a booking, so the count (taken before the update) is the count after it.
    const [row] = await tx.query<ParticipationRow & { live_after: number }>(
      `UPDATE participations p SET customer_id = $3, state = $4, hold_until = NULL, message = $5, locale = $6, channel_key = $7, updated_at = now()
        WHERE p.id = $1 AND p.state = 'RESERVED' AND p.hold_until > $2
        RETURNING p.*, (SELECT count(*)::int FROM participations WHERE appointment_id = p.appointment_id AND ${LIVE_PARTICIPATION_SQL}) AS live_after`,
      [holdId, now, changes.customerId, changes.state, changes.message, changes.locale, changes.channelKey],
    );
    if (!row) return null;
    const { live_after, ...participation } = row;
    return { appointment: appointmentRow, participation, liveAfter: live_after };
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') throw alreadyBooked();
    throw err;
  }
}

export async function createAppointmentWithConsumer(deps: Deps, input: BookInput) {
  assertSlotFields(input.start, input.end, FIELDS);
  const timeFormat = timePattern(input.timeFormat, 'query.timeFormat', DEFAULT_TIME_FORMAT);
  const language = input.locale?.slice(0, 2).toLowerCase();
  const locale = localeOf(language);
  const consumer: ConsumerInput = { ...input, language };

  const booking = await bookableResource(deps.db, input.ref, input.timeslotUuid);
  const { resource, slotAppointment } = booking;
  const view = await resourceView(deps.db, resource, booking.products, input.channelKey);
  const { start, end } = requestTimes(resource, input.start, input.end, FIELDS);
  const target: SlotTarget = slotAppointment ? { appointmentId: slotAppointment.id } : { timeslotId: input.timeslotUuid };
  const product = await requestedProduct(deps.db, booking, input.channelKey, input.productUuid);
  const process = PROCESS[bookingProcessOf(resource.channels, input.channelKey)];
  const provider = { id: resource.provider_id, crmId: resource.crm_id };

  return withClaimRetry(() =>
    retryOnUniqueViolation(() =>
      deps.db.transaction(async (tx) => {
        const now = deps.clock.now();
        const customerId = await consumerCustomer(tx, provider, consumer);
        const changes = { customerId, state: process.state, message: input.message ?? null, locale: language ?? null, channelKey: input.channelKey };
        let booked = input.placeholderId ? await convertHold(tx, input.placeholderId, { start, end, resourceId: resource.id }, now, changes) : null;
        if (!booked) {
          const claim = await claimSlot(tx, { resource, product, target, start, end, now, fields: FIELDS });
          const participation = await insertParticipation(tx, {
            crmId: resource.crm_id,
            providerId: resource.provider_id,
            appointmentId: claim.appointment.id,
            reference: `${randomUUID()}@booking`,
            customerId,
            state: process.state,
            channelKey: input.channelKey,
            message: changes.message,
            locale: changes.locale,
          });
          booked = { appointment: claim.appointment, participation, liveAfter: claim.liveBefore + 1 };
        }
        await enqueueParticipationMails(tx, deps.config, booked.participation.id, [...process.templates]);
        return createdAppointmentView(tx, deps.config, { ...booked, view, product, timeFormat, locale });
      }),
    ),
  );
}
