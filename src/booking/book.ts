/**
 * A3 create_appointment_with_consumer: turns a live hold into the booking, or books anew when the
 * hold is gone and a place is free (docs/api.md, Booking rules); the mails go to the outbox in the same transaction.
 *
 * Everything the booking shows (resource, products, slot, hold, contact) is read first, in one
 * query. A live hold then becomes the booking in one statement (bookHold) that locks nothing but
 * the consumer's own rows; booking anew takes the place with claim_place late in a transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import { bookingProcessOf, type ChannelKey } from '../offerings/channels.js';
import {
  carriesCalendar,
  needsCancelLink,
  needsDecisionLink,
  nextCalendarSequence,
  participationMails,
  type ParticipationFacts,
} from '../notifications/compose.js';
import { enqueueMails } from '../notifications/outbox.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { holdsPlace, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import { viewOf } from './bookableView.js';
import { cancelLinkFor, decisionLinkFor } from '../notifications/cancelToken.js';
import { bookHold } from './bookHold.js';
import { storedQuestions, type Question } from '../offerings/questions.js';
import { DEFAULT_PHONE_COUNTRY, possiblePhone, providerCountry } from '../partners/phoneNumbers.js';
import { checkAnswers } from './answers.js';
import { assertInBookingWindow, claimSlot, slotTaken, slotText, type SlotTarget } from './claimSlot.js';
import { consumerArgument, consumerCustomer, type ConsumerCustomer, type ConsumerInput } from './consumer.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import type { ProductRow } from './publicProducts.js';
import type { PublicResource } from './publicResources.js';
import { assertSlotFields, bookableResource, requestedProduct, requestTimes, type HoldRow } from './slotRequest.js';
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
}

const FIELDS = { start: 'body.start', end: 'body.end' };

const PROCESS = {
  IMMEDIATE: { state: 'BOOKED', templates: ['booking-confirmed', 'booking-notification'] },
  REQUESTED: { state: 'REQUESTED', templates: ['booking-requested', 'booking-request-to-confirm'] },
} as const satisfies Record<string, { state: ParticipationRow['state']; templates: MailTemplate[] }>;

interface Booked {
  appointment: AppointmentRow;
  participation: ParticipationRow;
  /** live participations of the appointment with this booking */
  liveAfter: number;
}

/**
 * The reservation placeholder_id names, when it is still a live hold: it must be a hold of the
 * requested slot (else 400), whose appointment is still open (else 412). null: none to convert.
 */
function liveHold(hold: HoldRow | null, slot: { start: Date; end: Date; resourceId: string; zone: string }, now: Date): HoldRow | null {
  if (!hold || hold.participation.state !== 'RESERVED' || !holdsPlace(hold.participation, now)) return null;
  const a = hold.appointment;
  if (a.resource_id !== slot.resourceId || a.start_at.getTime() !== slot.start.getTime() || a.end_at.getTime() !== slot.end.getTime()) {
    throw invalid('body.placeholder_id belongs to a reservation of another slot');
  }
  // a hold does not outlive its appointment: cancelled or archived meanwhile, the slot is gone
  if (a.state !== 'ACTIVE' || a.archived) throw slotTaken(`body.start: ${slotText(a.start_at, a.end_at, slot.zone)} is no longer bookable: its appointment was cancelled or archived; choose another slot`);
  return hold;
}

/** What the booking's mails say, from what the booking read and wrote. */
function mailFacts(b: Booked, resource: PublicResource, product: ProductRow, customer: Omit<ConsumerCustomer, 'id'>): ParticipationFacts {
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
async function phoneCountry(db: Queryable, resource: PublicResource, mobile: string | undefined, questions: Question[]): Promise<string> {
  const needed = Boolean(mobile) || questions.some((q) => q.type === 'phone');
  return needed ? providerCountry(db, resource.provider_id, resource.id) : DEFAULT_PHONE_COUNTRY;
}

export async function createAppointmentWithConsumer(deps: Deps, input: BookInput) {
  assertSlotFields(input.start, input.end, FIELDS);
  const timeFormat = timePattern(input.timeFormat, 'query.timeFormat', DEFAULT_TIME_FORMAT);
  const language = input.locale?.slice(0, 2).toLowerCase();
  const locale = localeOf(language);

  const booking = await bookableResource(deps.db, input.ref, input.timeslotUuid, { placeholderId: input.placeholderId, withContact: true, withQuestions: true });
  const { resource, slotAppointment } = booking;
  const view = viewOf(resource, booking.products, input.channelKey, booking.contact);
  const { start, end } = requestTimes(resource, input.start, input.end, FIELDS);
  const target: SlotTarget = slotAppointment ? { appointmentId: slotAppointment.id } : { timeslotId: input.timeslotUuid };
  const product = await requestedProduct(deps.db, booking, input.channelKey, input.productUuid);
  // before anything is written: a 400 books nothing and leaves the hold as it is
  const questions = storedQuestions(product.questions);
  const country = await phoneCountry(deps.db, resource, input.mobile?.trim(), questions);
  const answers = checkAnswers(questions, input.answers, country);
  const mobile = input.mobile?.trim() || undefined;
  const consumer: ConsumerInput = { ...input, mobile, language, mobileE164: mobile ? possiblePhone(mobile, country, 'body.mobile') : undefined };
  const process = PROCESS[bookingProcessOf(resource.channels, input.channelKey)];
  const provider = { id: resource.provider_id, crmId: resource.crm_id };
  const templates: MailTemplate[] = [...process.templates];

  const mailsOf = async (db: Queryable, booked: Booked, customer: Omit<ConsumerCustomer, 'id'>, cancelLink: string) => {
    const decisionLink = needsDecisionLink(templates) ? await decisionLinkFor(db, deps.config, booked.participation.id) : null;
    const facts = mailFacts(booked, resource, product, customer);
    return participationMails({ facts, contact: booking.contact, cancelLink: needsCancelLink(templates) ? cancelLink : null, decisionLink }, templates);
  };
  const respond = (booked: Booked, cancelLink: string) => createdAppointmentView({ ...booked, view, product, timeFormat, locale, cancelLink });
  const changes = { state: process.state, message: input.message ?? null, locale: language ?? null, channelKey: input.channelKey, answers };
  // the first calendar part about a new participation: SEQUENCE 0, recorded (compose.ts nextCalendarSequence)
  const withCalendar = carriesCalendar(templates, process.state);

  const hold = liveHold(booking.hold, { start, end, resourceId: resource.id, zone: resource.time_zone }, deps.clock.now());
  if (hold) {
    assertInBookingWindow(resource, start, deps.clock.now(), FIELDS.start);
    const cancelLink = await cancelLinkFor(deps.db, deps.config, hold.participation.id);
    // the participant's data in these mails is a stand-in: book_hold writes the customer's
    const converted: Booked = { appointment: hold.appointment, participation: { ...hold.participation, ...changes, channel_key: changes.channelKey, hold_until: null }, liveAfter: 0 };
    const done = await bookHold(deps.db, {
      holdId: hold.participation.id,
      now: deps.clock.now(),
      consumer: consumerArgument(provider, consumer),
      changes: { state: changes.state, message: changes.message, locale: changes.locale, channel_key: changes.channelKey, answers, calendar: withCalendar },
      mails: await mailsOf(deps.db, converted, { user_name: '', email: consumer.email, mobile: null, language: null }, cancelLink),
    });
    if (done) return respond({ appointment: hold.appointment, participation: done.participation, liveAfter: done.liveAfter }, cancelLink);
  }

  // No live hold (any more): book anew where a place is free, taking it last in the transaction.
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const customer = await consumerCustomer(tx, provider, consumer);
    const claim = await claimSlot(tx, {
      booking,
      product,
      target,
      start,
      end,
      now,
      fields: FIELDS,
      participation: { crmId: resource.crm_id, providerId: resource.provider_id, reference: `${randomUUID()}@booking`, customerId: customer.id, ...changes },
    });
    const booked: Booked = { appointment: claim.appointment, participation: claim.participation, liveAfter: claim.liveBefore + 1 };
    const cancelLink = await cancelLinkFor(tx, deps.config, booked.participation.id);
    if (withCalendar) await nextCalendarSequence(tx, booked.participation.id);
    await enqueueMails(tx, await mailsOf(tx, booked, customer, cancelLink));
    return respond(booked, cancelLink);
  });
}
