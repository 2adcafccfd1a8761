/**
 * A3 create_appointment_with_consumer: turns a live hold into the booking, or books anew when the
 * hold is gone and a place is free (docs/api.md, Booking rules).
 *
 * Everything the booking shows (resource, products, slot, hold, contact) is read first, in one
 * query. Then one transaction: the consumer's customer (consumer_customer), the live hold turned
 * into the booking (bookHold, which locks nothing but the hold's row; both in one statement when
 * no per-consumer limit is counted in between) or else a place taken with claim_place, and the
 * mails, composed for that customer, written to the outbox.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import { bookingProcessOf, type ChannelKey } from '../offerings/channels.js';
import {
  carriesCalendar,
  needsCancelLink,
  needsDecisionLink,
  participationMails,
  type ParticipationFacts,
} from '../notifications/compose.js';
import { enqueueMails } from '../notifications/outbox.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { isCurrentAppointment } from '../scheduling/appointmentState.js';
import { holdsPlace, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import type { KeepAnswer } from '../storage/idempotencyKeys.js';
import { viewOf } from './bookableView.js';
import { cancelLinkFor, decisionLinkFor } from '../notifications/cancelToken.js';
import { bookHold, bookHoldFor } from './bookHold.js';
import { storedQuestions, type Question } from '../offerings/questions.js';
import type { ResolvedContact } from '../offerings/contact.js';
import { DEFAULT_PHONE_COUNTRY, possiblePhone, providerCountry } from '../partners/phoneNumbers.js';
import { checkAnswers } from './answers.js';
import { assertInBookingWindow, claimSlot, slotTaken, slotText } from './claimSlot.js';
import { consumerArgument, consumerCustomer, type ConsumerCustomer, type ConsumerInput } from './consumer.js';
import { assertConsumerLimit } from './consumerLimit.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import type { ProductRow } from './publicProducts.js';
import type { PublicResource } from './publicResources.js';
import { readSlotRequest, type HoldRow } from './slotRequest.js';
import { readRequestSpan } from '../scheduling/time.js';
import { DEFAULT_TIME_FORMAT, localeOf, timePattern } from './timeFormats.js';

export interface BookInput extends Omit<ConsumerInput, 'language'> {
  ref: string;
  /** language of the mails, e.g. de, en or de_DE */
  locale?: string;
  channelKey: ChannelKey;
  timeFormat?: string;
  start: string;
  end: string;
  /** a timeslot's UUID, or the UUID of the slot's appointment (docs/api.md, Booking rules) */
  timeslotUuid: string;
  productUuid?: string;
  placeholderId?: string;
  message?: string;
  /** answers to the product's booking questions, by key (DESIGN 7.7) */
  answers?: Record<string, unknown>;
  /** writes the answer under the request's Idempotency-Key in the booking's transaction (http/idempotency.ts) */
  keepAnswer?: KeepAnswer<BookAnswer>;
}

/** A3's answer: the booked slot, naming the pool when booked through one. */
export interface BookAnswer {
  createdAppointment: ReturnType<typeof createdAppointmentView>['createdAppointment'] & { pool_uuid?: string };
}

const FIELDS = { start: 'body.start', end: 'body.end' };

export const PROCESS = {
  IMMEDIATE: { state: 'BOOKED', templates: ['booking-confirmed', 'booking-notification'] },
  REQUESTED: { state: 'REQUESTED', templates: ['booking-requested', 'booking-request-to-confirm'] },
} as const satisfies Record<string, { state: ParticipationRow['state']; templates: MailTemplate[] }>;

export interface Booked {
  appointment: AppointmentRow;
  participation: ParticipationRow;
  /** live participations of the appointment with this booking */
  liveAfter: number;
}

/**
 * The reservation placeholder_id names, when it is still a live hold: it must be a hold of the
 * requested slot (else 400), whose appointment is still open (else 412). null: none to convert.
 */
export function liveHold(
  hold: HoldRow | null,
  slot: { start: Date; end: Date; resourceId: string; zone: string },
  now: Date,
): HoldRow | null {
  if (hold?.participation.state !== 'RESERVED' || !holdsPlace(hold.participation, now)) return null;
  const a = hold.appointment;
  if (
    a.resource_id !== slot.resourceId ||
    a.start_at.getTime() !== slot.start.getTime() ||
    a.end_at.getTime() !== slot.end.getTime()
  ) {
    throw invalid('body.placeholder_id belongs to a reservation of another slot');
  }
  // a hold does not outlive its appointment: cancelled or archived meanwhile, the slot is gone
  if (!isCurrentAppointment(a))
    throw slotTaken(
      `body.start: ${slotText(a.start_at, a.end_at, slot.zone)} is no longer bookable: ` +
        `its appointment was cancelled or archived; choose another slot`,
    );
  return hold;
}

/** What the booking's mails say, from what the booking read and wrote. */
export function mailFacts(
  b: Booked,
  resource: PublicResource,
  product: ProductRow,
  customer: Omit<ConsumerCustomer, 'id'>,
): ParticipationFacts {
  const { appointment: a, participation: p } = b;
  return {
    crm_id: resource.crm_id,
    p_id: p.id,
    p_reference: p.reference,
    p_state: p.state,
    p_locale: p.locale,
    p_message: p.message,
    p_answers: p.answers,
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

/** The country phone numbers of this booking are read for; only looked up when the booking has one. */
export async function phoneCountry(
  db: Queryable,
  resource: PublicResource,
  mobile: string | undefined,
  questions: Question[],
): Promise<string> {
  const needed = Boolean(mobile) || questions.some((q) => q.type === 'phone');
  return needed ? providerCountry(db, resource.provider_id, resource.id) : DEFAULT_PHONE_COUNTRY;
}

/**
 * A3. `through`: the hold being converted was taken through this pool (booking/poolBook.ts): the
 * booking moves the member's last booking in the pool and the answer names the pool.
 */
export async function createAppointmentWithConsumer(
  deps: Deps,
  input: BookInput,
  through?: { poolId: string },
): Promise<BookAnswer> {
  const span = readRequestSpan(input.start, input.end, FIELDS);
  const timeFormat = timePattern(input.timeFormat, 'query.timeFormat', DEFAULT_TIME_FORMAT);
  const language = input.locale?.slice(0, 2).toLowerCase();
  const locale = localeOf(language);

  const request = await readSlotRequest(deps.db, {
    ref: input.ref,
    slotUuid: input.timeslotUuid,
    channelKey: input.channelKey,
    productUuid: input.productUuid,
    span,
    lookup: { placeholderId: input.placeholderId, withContact: true, withQuestions: true },
  });
  const { resource, product, start, end } = request;
  const view = viewOf(resource, request.products, input.channelKey, request.contact);
  // before anything is written: a 400 books nothing and leaves the hold as it is
  const questions = storedQuestions(product.questions);
  const country = await phoneCountry(deps.db, resource, input.mobile?.trim(), questions);
  const answers = checkAnswers(questions, input.answers, country);
  const mobile = input.mobile?.trim() || undefined;
  const consumer: ConsumerInput = {
    ...input,
    mobile,
    language,
    mobileE164: mobile ? possiblePhone(mobile, country, 'body.mobile') : undefined,
  };
  const process = PROCESS[bookingProcessOf(resource.channels, input.channelKey)];
  const provider = { id: resource.provider_id, crmId: resource.crm_id };
  const templates: MailTemplate[] = [...process.templates];

  const respond = (booked: Booked, cancelLink: string) =>
    createdAppointmentView({ ...booked, view, product, timeFormat, locale, cancelLink });
  const changes = {
    state: process.state,
    message: input.message ?? null,
    locale: language ?? null,
    channel_key: input.channelKey,
    answers,
  };

  const hold = liveHold(
    request.hold,
    { start, end, resourceId: resource.id, zone: resource.time_zone },
    deps.clock.now(),
  );
  if (hold) assertInBookingWindow(resource, start, deps.clock.now(), FIELDS.start);
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const max = resource.max_upcoming_bookings_per_consumer;
    // A live hold becomes the booking; without one (any more), a free place is taken, last in the transaction.
    // With no per-consumer limit to count in between, the customer and the hold's booking are one statement.
    const { customer, converted } =
      hold && max === null
        ? await bookHoldFor(tx, consumerArgument(provider, consumer), { holdId: hold.participation.id, now, changes })
        : await customerThenHold(tx, now, max);
    const booked: Booked =
      hold && converted ? { appointment: hold.appointment, ...converted } : await claimAnew(tx, customer.id, now);
    const mails = { resource, product, contact: request.contact, templates };
    const cancelLink = await enqueueBookingMails(deps, tx, booked, customer, mails);
    let answer: BookAnswer = respond(booked, cancelLink);
    if (through) {
      await markPoolBooking(tx, through.poolId, resource.id);
      answer = { createdAppointment: { ...answer.createdAppointment, pool_uuid: through.poolId } };
    }
    await input.keepAnswer?.(tx, answer);
    return answer;
  });

  async function customerThenHold(tx: Queryable, now: Date, max: number | null) {
    const customer = await consumerCustomer(tx, provider, consumer);
    // after consumer_customer, which locks the consumer's user row: one consumer's A3s count one after the other
    await assertConsumerLimit(tx, { providerId: resource.provider_id, email: consumer.email, max, now });
    const converted =
      hold && (await bookHold(tx, { holdId: hold.participation.id, now, customerId: customer.id, changes }));
    return { customer, converted: converted || null };
  }

  async function claimAnew(tx: Queryable, customerId: string, now: Date): Promise<Booked> {
    const claim = await claimSlot(tx, {
      request,
      now,
      fields: FIELDS,
      participation: {
        crmId: resource.crm_id,
        providerId: resource.provider_id,
        reference: `${randomUUID()}@booking`,
        customerId,
        ...changes,
        channelKey: changes.channel_key,
      },
    });
    return { appointment: claim.appointment, participation: claim.participation, liveAfter: claim.liveBefore + 1 };
  }
}

/** What a booking's mails say besides the booking itself. */
export interface BookingMailContext {
  resource: PublicResource;
  product: ProductRow;
  contact: ResolvedContact | null;
  templates: MailTemplate[];
}

/** The booking's mails, to the customer the booking was made for, and its cancel link. */
export async function enqueueBookingMails(
  deps: Deps,
  tx: Queryable,
  booked: Booked,
  customer: Omit<ConsumerCustomer, 'id'>,
  m: BookingMailContext,
): Promise<string> {
  const cancelLink = await cancelLinkFor(tx, deps.config, booked.participation.id);
  const decisionLink = needsDecisionLink(m.templates)
    ? await decisionLinkFor(tx, deps.config, booked.participation.id)
    : null;
  const facts = mailFacts(booked, m.resource, m.product, customer);
  await enqueueMails(
    tx,
    participationMails(
      { facts, contact: m.contact, cancelLink: needsCancelLink(m.templates) ? cancelLink : null, decisionLink },
      m.templates,
    ),
    // the first calendar part about a new participation: SEQUENCE 0, recorded with the mails
    carriesCalendar(m.templates, booked.participation.state) ? booked.participation.id : null,
  );
  return cancelLink;
}

/** A booking through a pool (an A3 that made a REQUESTED or BOOKED participation): the member was booked last. */
export async function markPoolBooking(tx: Queryable, poolId: string, resourceId: string): Promise<void> {
  await tx.query(
    `UPDATE pool_members SET last_booked = nextval('pool_booking_seq') WHERE pool_id = $1 AND resource_id = $2`,
    [poolId, resourceId],
  );
}
