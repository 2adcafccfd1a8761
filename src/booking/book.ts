/**
 * A3 create_appointment_with_consumer: turns a live hold into the booking, or books anew when the
 * hold is gone and a place is free (DESIGN §4); the mails go to the outbox in the same transaction.
 *
 * Everything the booking shows (resource, products, slot, hold, contact) is read before the
 * transaction, in one query. Converting a live hold locks nothing but the consumer's own rows;
 * booking anew takes the place with claim_place as the transaction's last writes.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { DomainError, invalid } from '../errors.js';
import { bookingProcessOf, type ChannelKey } from '../offerings/channels.js';
import { needsCancelLink, needsDecisionLink, participationMails, type ParticipationFacts } from '../notifications/compose.js';
import { enqueueMails } from '../notifications/outbox.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { LIVE_PARTICIPATION_SQL, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import { constraintName, retryOnUniqueViolation, sqlState, type Queryable } from '../storage/db.js';
import { viewOf } from './bookableView.js';
import { cancelLinkFor, decisionLinkFor } from './cancelToken.js';
import { claimSlot, slotTaken, type SlotTarget } from './claimSlot.js';
import { consumerCustomer, type ConsumerCustomer, type ConsumerInput } from './consumer.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import type { ProductRow } from './publicProducts.js';
import type { PublicResource } from './publicResources.js';
import { assertSlotFields, bookableResource, requestedProduct, requestTimes, type HoldRow } from './slotRequest.js';
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

const FIELDS = { start: 'body.start', end: 'body.end' };

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

interface Changes {
  customerId: string;
  state: ParticipationRow['state'];
  message: string | null;
  locale: string | null;
  channelKey: string;
}

/**
 * The reservation placeholder_id names, when it is still a live hold: it must be a hold of the
 * requested slot (else 400), whose appointment is still open (else 412). null: none to convert.
 */
function liveHold(hold: HoldRow | null, slot: { start: Date; end: Date; resourceId: string }, now: Date): HoldRow | null {
  if (!hold || hold.participation.state !== 'RESERVED' || !(hold.participation.hold_until! > now)) return null;
  const a = hold.appointment;
  if (a.resource_id !== slot.resourceId || a.start_at.getTime() !== slot.start.getTime() || a.end_at.getTime() !== slot.end.getTime()) {
    throw invalid('body.placeholder_id belongs to a reservation of another slot');
  }
  // a hold does not outlive its appointment: cancelled or archived meanwhile, the slot is gone
  if (a.state !== 'ACTIVE' || a.archived) throw slotTaken(`the slot ${a.start_at.toISOString()} is no longer bookable`);
  return hold;
}

/**
 * Converts the hold in one statement that locks only the hold's own row; null when it is no longer
 * a live hold of an open appointment (then the booking is made anew).
 */
async function convertHold(tx: Queryable, hold: HoldRow, now: Date, changes: Changes): Promise<Booked | null> {
  try {
    // The hold was live and stays live as a booking, so the count is the count after it.
    const [row] = await tx.query<ParticipationRow & { live_after: number }>(
      `UPDATE participations p SET customer_id = $3, state = $4, hold_until = NULL, message = $5, locale = $6, channel_key = $7, updated_at = now()
         FROM appointments a
        WHERE p.id = $1 AND p.state = 'RESERVED' AND p.hold_until > $2 AND a.id = p.appointment_id AND a.state = 'ACTIVE' AND NOT a.archived
        RETURNING p.*, (SELECT count(*)::int FROM participations WHERE appointment_id = p.appointment_id AND ${LIVE_PARTICIPATION_SQL}) AS live_after`,
      [hold.participation.id, now, changes.customerId, changes.state, changes.message, changes.locale, changes.channelKey],
    );
    if (!row) return null;
    const { live_after, ...participation } = row;
    return { appointment: hold.appointment, participation, liveAfter: live_after };
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') throw alreadyBooked();
    throw err;
  }
}

/** What the booking's mails say, from what the booking read and wrote. */
function mailFacts(b: Booked, resource: PublicResource, product: ProductRow, customer: ConsumerCustomer): ParticipationFacts {
  const { appointment: a, participation: p } = b;
  return {
    crm_id: resource.crm_id,
    p_id: p.id,
    p_reference: p.reference,
    p_state: p.state,
    p_locale: p.locale,
    p_message: p.message,
    a_id: a.id,
    a_reference: a.reference,
    start_at: a.start_at,
    end_at: a.end_at,
    a_address: a.address,
    a_product_name: a.product_name,
    product_name: a.product_id === product.id ? product.name : null,
    resource_id: resource.id,
    resource_name: resource.public_name,
    resource_address: resource.address,
    provider_name: resource.provider_name,
    provider_email: resource.provider_email,
    provider_phone: resource.provider_phone,
    time_zone: resource.time_zone,
    c_name: customer.user_name,
    c_email: customer.email,
    c_mobile: customer.mobile,
    c_language: customer.language,
  };
}

export async function createAppointmentWithConsumer(deps: Deps, input: BookInput) {
  assertSlotFields(input.start, input.end, FIELDS);
  const timeFormat = timePattern(input.timeFormat, 'query.timeFormat', DEFAULT_TIME_FORMAT);
  const language = input.locale?.slice(0, 2).toLowerCase();
  const locale = localeOf(language);
  const consumer: ConsumerInput = { ...input, language };

  const booking = await bookableResource(deps.db, input.ref, input.timeslotUuid, { placeholderId: input.placeholderId, withContact: true });
  const { resource, slotAppointment } = booking;
  const view = viewOf(resource, booking.products, input.channelKey, booking.contact);
  const { start, end } = requestTimes(resource, input.start, input.end, FIELDS);
  const target: SlotTarget = slotAppointment ? { appointmentId: slotAppointment.id } : { timeslotId: input.timeslotUuid };
  const product = await requestedProduct(deps.db, booking, input.channelKey, input.productUuid);
  const process = PROCESS[bookingProcessOf(resource.channels, input.channelKey)];
  const provider = { id: resource.provider_id, crmId: resource.crm_id };
  const templates: MailTemplate[] = [...process.templates];

  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const hold = liveHold(booking.hold, { start, end, resourceId: resource.id }, now);
      const customer = await consumerCustomer(tx, provider, consumer);
      const changes: Changes = { customerId: customer.id, state: process.state, message: input.message ?? null, locale: language ?? null, channelKey: input.channelKey };
      let booked = hold ? await convertHold(tx, hold, now, changes) : null;
      if (!booked) {
        const claim = await claimSlot(tx, {
          booking,
          product,
          target,
          start,
          end,
          now,
          fields: FIELDS,
          participation: { crmId: resource.crm_id, providerId: resource.provider_id, reference: `${randomUUID()}@booking`, ...changes },
        });
        booked = { appointment: claim.appointment, participation: claim.participation, liveAfter: claim.liveBefore + 1 };
      }
      const cancelLink = await cancelLinkFor(tx, deps.config, booked.participation.id);
      const facts = mailFacts(booked, resource, product, customer);
      const decisionLink = needsDecisionLink(templates) ? await decisionLinkFor(tx, deps.config, booked.participation.id) : null;
      await enqueueMails(
        tx,
        participationMails({ facts, contact: booking.contact, cancelLink: needsCancelLink(templates) ? cancelLink : null, decisionLink }, templates),
      );
      return createdAppointmentView({ ...booked, view, product, timeFormat, locale, cancelLink });
    }),
  );
}
