/**
 * A3 on a pool (DESIGN 7.11, docs/pools.md). With the placeholder_id of a live hold taken through
 * the pool, that hold's member is booked (A3 on the member, booking/book.ts). Without one, the
 * member is picked anew by the pool's rule and its place taken in the booking's transaction
 * (claim_pool_place.sql), then the mails and the answer name the member assigned.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { bookingProcessOf } from '../offerings/channels.js';
import { storedQuestions } from '../offerings/questions.js';
import { possiblePhone } from '../partners/phoneNumbers.js';
import { holdsPlace, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import { readRequestSpan } from '../scheduling/time.js';
import { reviveRow } from '../storage/jsonRows.js';
import { checkAnswers } from './answers.js';
import { viewOf } from './bookableView.js';
import {
  createAppointmentWithConsumer,
  enqueueBookingMails,
  phoneCountry,
  PROCESS,
  type BookAnswer,
  type BookInput,
  type Booked,
} from './book.js';
import { consumerCustomer, type ConsumerInput } from './consumer.js';
import { assertConsumerLimit } from './consumerLimit.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import { claimPoolSlot } from './poolBooking.js';
import { readPoolRequest } from './poolRequest.js';
import { DEFAULT_TIME_FORMAT, localeOf, timePattern } from './timeFormats.js';

const FIELDS = { start: 'body.start', end: 'body.end' };

/** The live hold placeholder_id names, when it was taken through this pool. */
async function poolHold(deps: Deps, placeholderId: string | undefined, poolUuid: string) {
  if (!placeholderId) return null;
  const [row] = await deps.db.query<{ participation: Record<string, unknown>; appointment: Record<string, unknown> }>(
    `SELECT row_to_json(p) AS participation, row_to_json(a) AS appointment
       FROM participations p JOIN appointments a ON a.id = p.appointment_id
      WHERE p.placeholder_id = $1 AND p.pool_id = $2`,
    [placeholderId, poolUuid],
  );
  if (!row) return null;
  const participation = reviveRow<ParticipationRow>(row.participation);
  if (participation.state !== 'RESERVED' || !holdsPlace(participation, deps.clock.now())) return null;
  return { participation, appointment: reviveRow<AppointmentRow>(row.appointment) };
}

export async function bookPool(deps: Deps, input: BookInput & { poolUuid: string }) {
  const span = readRequestSpan(input.start, input.end, FIELDS);
  const hold = await poolHold(deps, input.placeholderId, input.poolUuid);
  if (hold) {
    // the hold's member is booked, by A3 on that member with the hold's appointment
    return createAppointmentWithConsumer(
      deps,
      { ...input, ref: hold.appointment.resource_id!, timeslotUuid: hold.appointment.id },
      { poolId: input.poolUuid },
    );
  }
  const timeFormat = timePattern(input.timeFormat, 'query.timeFormat', DEFAULT_TIME_FORMAT);
  const language = input.locale?.slice(0, 2).toLowerCase();
  const locale = localeOf(language);
  const request = await readPoolRequest(deps.db, {
    ref: input.ref,
    poolUuid: input.poolUuid,
    channelKey: input.channelKey,
    productUuid: input.productUuid,
    span,
    fields: FIELDS,
    now: deps.clock.now(),
    withQuestions: true,
  });
  const { pool, product } = request;
  const first = request.members.get(request.candidates[0].resource_id)!;
  const questions = storedQuestions(product.questions);
  const mobile = input.mobile?.trim() || undefined;
  const country = await phoneCountry(deps.db, first.resource, mobile, questions);
  const answers = checkAnswers(questions, input.answers, country);
  const consumer: ConsumerInput = {
    ...input,
    mobile,
    language,
    mobileE164: mobile ? possiblePhone(mobile, country, 'body.mobile') : undefined,
  };
  const processOf = (resourceId: string) =>
    PROCESS[bookingProcessOf(request.members.get(resourceId)!.resource.channels, input.channelKey)];
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const customer = await consumerCustomer(tx, { id: pool.provider_id, crmId: pool.crm_id }, consumer);
    const max = first.resource.max_upcoming_bookings_per_consumer;
    await assertConsumerLimit(tx, { providerId: pool.provider_id, email: consumer.email, max, now });
    const claim = await claimPoolSlot(tx, {
      request,
      now,
      fields: FIELDS,
      participation: {
        crmId: pool.crm_id,
        providerId: pool.provider_id,
        reference: `${randomUUID()}@booking`,
        customerId: customer.id,
        state: 'BOOKED',
        message: input.message ?? null,
        locale: language ?? null,
        channelKey: input.channelKey,
        answers,
      },
      stateOf: (id) => processOf(id).state,
    });
    const member = request.members.get(claim.appointment.resource_id!)!;
    const booked: Booked = {
      appointment: claim.appointment,
      participation: claim.participation,
      liveAfter: claim.liveBefore + 1,
    };
    const templates = [...processOf(member.resource.id).templates];
    const mails = { resource: member.resource, product, contact: member.contact, templates };
    const cancelLink = await enqueueBookingMails(deps, tx, booked, customer, mails);
    const view = viewOf(member.resource, member.products, input.channelKey, member.contact);
    const answer = createdAppointmentView({ ...booked, view, product, timeFormat, locale, cancelLink });
    const booking: BookAnswer = { createdAppointment: { ...answer.createdAppointment, pool_uuid: pool.id } };
    await input.keepAnswer?.(tx, booking);
    return booking;
  });
}
