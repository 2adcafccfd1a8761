/**
 * The consumer moves a booking through the signed link of their mails (docs/lifecycle.md):
 * `POST /rest/1/bookings/{token}/reschedule` with A3's slot fields. One transaction takes the new
 * place (claim_place, the same kernel as A2/A3) and frees the old one; the participation keeps its
 * id and reference, the cancel link stays valid, and the calendar entry its UID (SEQUENCE raised).
 * A refusal (412 "201" taken, 412 BOOKING_WINDOW, 412 BOOKING_LIMIT, 409 inside the cancel notice)
 * changes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { DEFAULT_CHANNEL_KEY, isChannelKey, type ChannelKey } from '../offerings/channels.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import { mailSources } from '../offerings/contact.js';
import { LIVE_PARTICIPATION_SQL, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import type { KeepAnswer } from '../storage/idempotencyKeys.js';
import { recordAppointmentEvent, recordParticipationEvent } from '../scheduling/events.js';
import { viewOf } from './bookableView.js';
import { cancelLinkFor } from '../notifications/cancelToken.js';
import { claimSlot } from './claimSlot.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import { assertStillChangeable, loadView, participationOf, type CancelView } from './selfCancel.js';
import { readSlotRequest } from './slotRequest.js';
import { readRequestSpan } from '../scheduling/time.js';
import { DEFAULT_TIME_FORMAT, localeOf, timePattern } from './timeFormats.js';

export interface RescheduleInput {
  token: string;
  start: string;
  end: string;
  /** a timeslot's UUID, or the UUID of the slot's appointment (as in A3) */
  timeslotUuid: string;
  /** default: the product the booking has now */
  productUuid?: string;
  timeFormat?: string;
  /** writes the answer under the request's Idempotency-Key in the move's transaction (http/idempotency.ts) */
  keepAnswer?: KeepAnswer<ReturnType<typeof createdAppointmentView>>;
}

const FIELDS = { start: 'body.start', end: 'body.end' };
const MOVABLE: ReadonlySet<ParticipationRow['state']> = new Set(['BOOKED', 'REQUESTED']);

type LockedParticipation = ParticipationRow & { ics_sequence: string | null };

/** Only a booking or a request that has not started and is outside the cancel notice can move. */
function assertMovable(deps: Deps, view: CancelView): void {
  if (!MOVABLE.has(view.state)) {
    throw new DomainError(
      'INVALID_TRANSITION',
      `only a booked or requested appointment can be moved; this one is ${view.state}`,
    );
  }
  assertStillChangeable(deps, view);
}

const liveCount = async (db: Queryable, appointmentId: string, now: Date) =>
  (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM participations WHERE appointment_id = $1 AND ${LIVE_PARTICIPATION_SQL}`,
      [appointmentId, now],
    )
  )[0].n;

/**
 * The resource the new slot is on: the booking's own, or, for a booking made through a pool (DESIGN
 * 7.11), the member of that pool whose timeslot or appointment `slotUuid` names: it may move to any.
 */
async function poolMemberOf(db: Queryable, participationId: string, slotUuid: string, own: string): Promise<string> {
  const [row] = await db.query<{ resource_id: string }>(
    `SELECT m.resource_id FROM participations p JOIN pool_members m ON m.pool_id = p.pool_id
      WHERE p.id = $1 AND m.resource_id IN (SELECT resource_id FROM timeslots WHERE id = $2::uuid
                                            UNION ALL SELECT resource_id FROM appointments WHERE id = $2::uuid)`,
    [participationId, slotUuid],
  );
  return row?.resource_id ?? own;
}

export async function rescheduleByToken(deps: Deps, input: RescheduleInput) {
  const span = readRequestSpan(input.start, input.end, FIELDS);
  const timeFormat = timePattern(input.timeFormat, 'query.timeFormat', DEFAULT_TIME_FORMAT);
  const id = await participationOf(deps.db, deps, input.token);
  const current = await loadView(deps.db, id);
  assertMovable(deps, current);
  if (!current.resourceId) throw notFound('the resource of this booking no longer exists');

  // The new slot is one of the same resource, read with its products and contact in one query.
  const channelKey: ChannelKey =
    current.channelKey && isChannelKey(current.channelKey) ? current.channelKey : DEFAULT_CHANNEL_KEY;
  const request = await readSlotRequest(deps.db, {
    ref: await poolMemberOf(deps.db, id, input.timeslotUuid, current.resourceId),
    slotUuid: input.timeslotUuid,
    channelKey,
    productUuid: input.productUuid ?? current.productId ?? undefined,
    span,
    lookup: { withContact: true },
  });
  const { resource, slotAppointment, product } = request;
  const view = viewOf(resource, request.products, channelKey, request.contact);
  const locale = localeOf(current.language?.slice(0, 2).toLowerCase());
  const respond = (appointment: AppointmentRow, liveAfter: number, cancelLink: string) =>
    createdAppointmentView({ appointment, liveAfter, view, product, timeFormat, locale, cancelLink });

  return deps.db.transaction(async (tx) => {
    const answer = await move(tx);
    await input.keepAnswer?.(tx, answer);
    return answer;
  });

  async function move(tx: Queryable) {
    // The participation's row lock first, as a cancellation takes it: the state read after it is final.
    const [row] = await tx.query<LockedParticipation>('SELECT * FROM participations WHERE id = $1 FOR UPDATE', [id]);
    const before = await loadView(tx, id);
    assertMovable(deps, before);
    const now = deps.clock.now();
    const cancelLink = await cancelLinkFor(tx, deps.config, id);
    // Moving to where it already is changes nothing and mails nobody.
    if (slotAppointment && slotAppointment.id === row.appointment_id)
      return respond(slotAppointment, await liveCount(tx, slotAppointment.id, now), cancelLink);

    const [{ prepare_move: released }] = await tx.query<{ prepare_move: boolean }>('SELECT prepare_move($1)', [id]);
    const claim = await claimSlot(tx, {
      request,
      now,
      fields: FIELDS,
      // a stand-in takes the place under the new appointment's lock; the participation then moves into it
      participation: {
        crmId: row.crm_id,
        providerId: row.provider_id,
        reference: `${randomUUID()}@reschedule`,
        customerId: row.customer_id,
        state: 'REQUESTED',
        channelKey,
      },
      // the stand-in is no booking of its own: the move is reported below, as one event
      source: null,
      // a move within a date or week changes no count of the booking limits
      moving: id,
    });
    // ics_sequence is no longer raised here (the mail's SEQUENCE is compose.ts nextCalendarSequence): left as it is
    await tx.query('SELECT move_participation($1, $2, $3, $4)', [
      id,
      claim.participation.id,
      row.ics_sequence,
      released,
    ]);
    // The one place where a booking is moved: its webhook events, in this transaction like the mails.
    if (claim.created)
      await recordAppointmentEvent(tx, {
        appointmentId: claim.appointment.id,
        type: 'appointment.created',
        source: 'cancel-link',
      });
    await recordParticipationEvent(tx, {
      participationId: id,
      type: 'participation.rescheduled',
      source: 'cancel-link',
      previousState: row.state,
    });
    await enqueueParticipationMails(
      tx,
      mailSources(deps.config),
      id,
      ['booking-rescheduled', 'booking-rescheduled-notification'],
      {
        previous: { start: before.start, end: before.end },
      },
    );
    return respond(claim.appointment, claim.liveBefore + 1, cancelLink);
  }
}
