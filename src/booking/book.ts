/**
 * A3 create_appointment_with_consumer: turns a live hold into the booking, or books anew when the
 * hold is gone and a place is free (DESIGN §4); the mails go to the outbox in the same transaction.
 */
import type { Deps } from '../context.js';
import { DomainError, invalid } from '../errors.js';
import { bookingProcessOf, type ChannelKey } from '../offerings/channels.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { insertParticipation, lockAppointment, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import { constraintName, retryOnUniqueViolation, sqlState, type Queryable } from '../storage/db.js';
import { randomUUID } from 'node:crypto';
import { loadResourceViews } from './bookableView.js';
import { claimSlot, withClaimRetry, type SlotTarget } from './claimSlot.js';
import { consumerCustomer, type ConsumerInput } from './consumer.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import { findProduct, type ProductRow } from './publicProducts.js';
import { assertSlotFields, bookableResource, requestTimes } from './slotRequest.js';
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

/** The product booked: the given one, else the appointment's, else the resource's only one; it must be offered on the channel. */
async function bookedProduct(db: Queryable, offered: ProductRow[], input: BookInput, appointment: { product_id: string | null } | undefined, providerId: string): Promise<ProductRow> {
  const id = input.productUuid ?? appointment?.product_id ?? (offered.length === 1 ? offered[0].id : undefined);
  if (!id) throw invalid('body.product_uuid is required: the resource offers several products');
  const product = offered.find((p) => p.id === id) ?? (id === appointment?.product_id ? await findProduct(db, id, [providerId], 'body.product_uuid') : undefined);
  if (!product || (product.exclusive && input.channelKey !== 'RESOURCE_EXCLUSIVE')) {
    throw invalid(`body.product_uuid ${id} is not a product of this resource on channel ${input.channelKey}`);
  }
  return product;
}

/** Converts the caller's live hold on this very appointment; null when it is not (or no longer) one. */
async function convertHold(
  tx: Queryable,
  placeholderId: string,
  slot: { start: Date; end: Date; resourceId: string },
  now: Date,
  changes: { customerId: string; state: ParticipationRow['state']; message: string | null; locale: string | null; channelKey: string },
): Promise<{ appointment: AppointmentRow; participation: ParticipationRow } | null> {
  const [hold] = await tx.query<ParticipationRow>('SELECT * FROM participations WHERE placeholder_id = $1', [placeholderId]);
  if (!hold || hold.state !== 'RESERVED' || !hold.hold_until || hold.hold_until <= now) return null;
  const appointment = await lockAppointment(tx, hold.appointment_id);
  if (!appointment) return null;
  if (appointment.resource_id !== slot.resourceId || appointment.start_at.getTime() !== slot.start.getTime() || appointment.end_at.getTime() !== slot.end.getTime()) {
    throw invalid('body.placeholder_id belongs to a reservation of another slot');
  }
  try {
    const [participation] = await tx.query<ParticipationRow>(
      `UPDATE participations SET customer_id = $2, state = $3, hold_until = NULL, message = $4, locale = $5, channel_key = $6, updated_at = now()
        WHERE id = $1 AND state = 'RESERVED' AND hold_until > $7 RETURNING *`,
      [hold.id, changes.customerId, changes.state, changes.message, changes.locale, changes.channelKey, now],
    );
    return participation ? { appointment, participation } : null;
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

  const resource = await bookableResource(deps.db, input.ref);
  const view = (await loadResourceViews(deps.db, [resource], input.channelKey)).get(resource.id)!;
  const { start, end } = requestTimes(resource, input.start, input.end, FIELDS);
  const [slotAppointment] = await deps.db.query<{ id: string; product_id: string | null }>(
    'SELECT id, product_id FROM appointments WHERE id = $1::uuid AND resource_id = $2',
    [input.timeslotUuid, resource.id],
  );
  const target: SlotTarget = slotAppointment ? { appointmentId: slotAppointment.id } : { timeslotId: input.timeslotUuid };
  const product = await bookedProduct(deps.db, view.products, input, slotAppointment, resource.provider_id);
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
          const appointment = await claimSlot(tx, { resource, product, target, start, end, now, fields: FIELDS });
          const participation = await insertParticipation(tx, {
            crmId: resource.crm_id,
            providerId: resource.provider_id,
            appointmentId: appointment.id,
            reference: `${randomUUID()}@booking`,
            customerId,
            state: process.state,
            channelKey: input.channelKey,
            message: changes.message,
            locale: changes.locale,
          });
          booked = { appointment, participation };
        }
        await enqueueParticipationMails(tx, deps.config, booked.participation.id, [...process.templates]);
        return createdAppointmentView(tx, deps.config, { ...booked, view, product, now, timeFormat, locale });
      }),
    ),
  );
}
