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
import { DomainError, invalid, notFound } from '../errors.js';
import { DEFAULT_CHANNEL_KEY, isChannelKey, type ChannelKey } from '../offerings/channels.js';
import { enqueueParticipationMails } from '../notifications/compose.js';
import { mailSources } from '../offerings/contact.js';
import { LIVE_PARTICIPATION_SQL, type AppointmentRow, type ParticipationRow } from '../scheduling/capacity.js';
import type { ClaimedPlace, PlaceHolder } from '../scheduling/claimPlace.js';
import type { Queryable } from '../storage/db.js';
import type { KeepAnswer } from '../storage/idempotencyKeys.js';
import { recordAppointmentEvent, recordParticipationEvent } from '../scheduling/events.js';
import { viewOf } from './bookableView.js';
import { cancelLinkFor } from '../notifications/cancelToken.js';
import { claimSlot } from './claimSlot.js';
import { createdAppointmentView } from './createdAppointmentView.js';
import { assertStillChangeable, loadView, participationOf, type CancelView } from './selfCancel.js';
import { readSlotRequest } from './slotRequest.js';
import { readRequestSpan, type RequestSpan } from '../scheduling/time.js';
import type { BookAnswer } from './book.js';
import type { CompiledPattern } from './datePattern.js';
import { claimPoolSlot } from './poolBooking.js';
import { readPoolRequest } from './poolRequest.js';
import { DEFAULT_TIME_FORMAT, localeOf, timePattern } from './timeFormats.js';

export interface RescheduleInput {
  token: string;
  start: string;
  end: string;
  /** a timeslot's UUID, or the UUID of the slot's appointment (as in A3); or poolUuid */
  timeslotUuid?: string;
  /** a booking made through a pool: that pool's UUID, and the pool's rule picks the member (as A3 on a pool) */
  poolUuid?: string;
  /** default: the product the booking has now */
  productUuid?: string;
  timeFormat?: string;
  /** writes the answer under the request's Idempotency-Key in the move's transaction (http/idempotency.ts) */
  keepAnswer?: KeepAnswer<RescheduleAnswer>;
}

/** The answer: A3's createdAppointment of the new slot, naming the pool when moved through one. */
export type RescheduleAnswer = BookAnswer;

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

/** Where a move goes: a named slot (claimSlot) or whichever member of the booking's pool is free (claimPoolSlot). */
interface MoveTarget {
  /** the booking's own appointment when the request names it: nothing moves */
  alreadyIn(tx: Queryable, appointmentId: string): Promise<AppointmentRow | null>;
  /** takes the new place with the stand-in, under the kernel's locks */
  claim(tx: Queryable, standIn: PlaceHolder, now: Date, moving: string): Promise<ClaimedPlace>;
  respond(appointment: AppointmentRow, liveAfter: number, cancelLink: string): RescheduleAnswer;
}

interface MoveContext {
  participationId: string;
  channelKey: ChannelKey;
  timeFormat: CompiledPattern;
  locale: string;
}

export async function rescheduleByToken(deps: Deps, input: RescheduleInput): Promise<RescheduleAnswer> {
  const span = readRequestSpan(input.start, input.end, FIELDS);
  const timeFormat = timePattern(input.timeFormat, 'query.timeFormat', DEFAULT_TIME_FORMAT);
  const id = await participationOf(deps.db, deps, input.token);
  const current = await loadView(deps.db, id);
  assertMovable(deps, current);
  if (!current.resourceId) throw notFound('the resource of this booking no longer exists');

  const channelKey: ChannelKey =
    current.channelKey && isChannelKey(current.channelKey) ? current.channelKey : DEFAULT_CHANNEL_KEY;
  const context: MoveContext = {
    participationId: id,
    channelKey,
    timeFormat,
    locale: localeOf(current.language?.slice(0, 2).toLowerCase()),
  };
  const productUuid = input.productUuid ?? current.productId ?? undefined;
  const target = input.poolUuid
    ? await poolTarget(deps, context, { poolUuid: input.poolUuid, bookedThrough: current.poolId, productUuid, span })
    : await slotTarget(deps, context, {
        ref: await poolMemberOf(deps.db, id, input.timeslotUuid!, current.resourceId),
        slotUuid: input.timeslotUuid!,
        productUuid,
        span,
      });

  return deps.db.transaction(async (tx) => {
    const answer = await move(deps, tx, context, target);
    await input.keepAnswer?.(tx, answer);
    return answer;
  });
}

/** A slot of the booking's resource, or of a member of the pool it was booked through. */
async function slotTarget(
  deps: Deps,
  context: MoveContext,
  slot: { ref: string; slotUuid: string; productUuid: string | undefined; span: RequestSpan },
): Promise<MoveTarget> {
  // The new slot is read with its resource's products and contact in one query.
  const request = await readSlotRequest(deps.db, {
    ref: slot.ref,
    slotUuid: slot.slotUuid,
    channelKey: context.channelKey,
    productUuid: slot.productUuid,
    span: slot.span,
    lookup: { withContact: true },
  });
  const { resource, slotAppointment, product } = request;
  const view = viewOf(resource, request.products, context.channelKey, request.contact);
  return {
    alreadyIn: async (_tx, appointmentId) => (slotAppointment?.id === appointmentId ? slotAppointment : null),
    claim: (tx, standIn, now, moving) =>
      // a move within a date or week changes no count of the booking limits
      claimSlot(tx, { request, now, fields: FIELDS, participation: standIn, source: null, moving }),
    respond: (appointment, liveAfter, cancelLink) =>
      createdAppointmentView({ ...context, appointment, liveAfter, view, product, cancelLink }),
  };
}

/**
 * Any member of the pool the booking was made through (DESIGN 7.11): the pool's rule picks among
 * the members that can take the slot, in the move's transaction (claim_pool_place), as A3 on the
 * pool does. The move is no booking through the pool: no member's "last booked" changes.
 */
async function poolTarget(
  deps: Deps,
  context: MoveContext,
  slot: { poolUuid: string; bookedThrough: string | null; productUuid: string | undefined; span: RequestSpan },
): Promise<MoveTarget> {
  if (slot.bookedThrough !== slot.poolUuid)
    throw invalid(
      slot.bookedThrough
        ? `body.pool_uuid must be ${slot.bookedThrough}, the pool this booking was made through`
        : 'body.pool_uuid: this booking was not made through a pool; send the timeslot_uuid of a slot instead',
    );
  const request = await readPoolRequest(deps.db, {
    ref: slot.poolUuid,
    poolUuid: slot.poolUuid,
    channelKey: context.channelKey,
    productUuid: slot.productUuid,
    span: slot.span,
    fields: FIELDS,
    now: deps.clock.now(),
  });
  const { product } = request;
  return {
    // the booking's own appointment of that very span: it is there already
    alreadyIn: async (tx, appointmentId) =>
      request.candidates.some((c) => c.join === appointmentId)
        ? (await tx.query<AppointmentRow>('SELECT * FROM appointments WHERE id = $1', [appointmentId]))[0]
        : null,
    claim: (tx, standIn, now, moving) =>
      claimPoolSlot(tx, { request, now, fields: FIELDS, participation: standIn, source: null, moving }),
    respond: (appointment, liveAfter, cancelLink) => {
      const member = request.members.get(appointment.resource_id!)!;
      const view = viewOf(member.resource, member.products, context.channelKey, member.contact);
      const answer = createdAppointmentView({ ...context, appointment, liveAfter, view, product, cancelLink });
      return { createdAppointment: { ...answer.createdAppointment, pool_uuid: request.pool.id } };
    },
  };
}

/**
 * The move, in one transaction: the participation's row lock, the old place released (prepare_move),
 * the new one taken by a stand-in (the target's claim), the participation moved into it
 * (move_participation), one `participation.rescheduled` event and the mails.
 */
async function move(deps: Deps, tx: Queryable, context: MoveContext, target: MoveTarget): Promise<RescheduleAnswer> {
  const id = context.participationId;
  // The participation's row lock first, as a cancellation takes it: the state read after it is final.
  const [row] = await tx.query<LockedParticipation>('SELECT * FROM participations WHERE id = $1 FOR UPDATE', [id]);
  const before = await loadView(tx, id);
  assertMovable(deps, before);
  const now = deps.clock.now();
  const cancelLink = await cancelLinkFor(tx, deps.config, id);
  // Moving to where it already is changes nothing and mails nobody.
  const there = await target.alreadyIn(tx, row.appointment_id);
  if (there) return target.respond(there, await liveCount(tx, there.id, now), cancelLink);

  const [{ prepare_move: released }] = await tx.query<{ prepare_move: boolean }>('SELECT prepare_move($1)', [id]);
  // a stand-in takes the place under the new appointment's lock; the participation then moves into it.
  // It is no booking of its own (no events: the move is reported below, as one event), and the
  // moving participation is not counted against the booking limits.
  const claim = await target.claim(
    tx,
    {
      crmId: row.crm_id,
      providerId: row.provider_id,
      reference: `${randomUUID()}@reschedule`,
      customerId: row.customer_id,
      state: 'REQUESTED',
      channelKey: context.channelKey,
    },
    now,
    id,
  );
  // ics_sequence is no longer raised here (the mail's SEQUENCE is compose.ts nextCalendarSequence): left as it is
  await tx.query('SELECT move_participation($1, $2, $3, $4)', [id, claim.participation.id, row.ics_sequence, released]);
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
    { previous: { start: before.start, end: before.end } },
  );
  return target.respond(claim.appointment, claim.liveBefore + 1, cancelLink);
}
