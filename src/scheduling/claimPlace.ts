/**
 * Taking a place: one call of the database function claim_place (claim_place.sql), which checks and
 * takes under the appointment's row lock. Committed on its own (the public flow) the lock is held
 * for no round trip to this process; inside a transaction, make it the last statement.
 */
import { conflict, DomainError } from '../errors.js';
import { ASYNC_COMMIT } from '../storage/asyncCommit.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';
import { reviveRow } from '../storage/jsonRows.js';
import type { LimitReached } from '../offerings/bookingLimits.js';
import { eventsWritten, type EventSource } from '../webhooks/events.js';
import { placeEventsSql } from './events.js';
import {
  blockedRange,
  type AppointmentRow,
  type Buffers,
  type NewAppointment,
  type ParticipationRow,
} from './capacity.js';

/** TIMESLOT_GONE: the timeslot to create the appointment from was removed meanwhile (D4, a rule's change) */
export type PlaceRefusal =
  | 'HOLD_LIMIT'
  | 'OVERLAP'
  | 'BUSY'
  | 'GONE'
  | 'TIMESLOT_GONE'
  | 'CLOSED'
  | 'NOT_OPEN'
  | 'DUPLICATE'
  | 'FULL'
  // a resource's booking limit (LIMIT: PlaceRefused.limit says which)
  | 'LIMIT';

const REFUSALS: Record<string, PlaceRefusal> = {
  BKHLD: 'HOLD_LIMIT',
  BKOVL: 'OVERLAP',
  BKBSY: 'BUSY',
  BKGON: 'GONE',
  BKCLO: 'CLOSED',
  BKNAC: 'NOT_OPEN',
  BKDUP: 'DUPLICATE',
  BKFUL: 'FULL',
  // a resource's booking limit (check_booking_limits.sql): the date or week is at its limit; a pool skips the member
  BKLIM: 'LIMIT',
};

/** Why the database refused a place; each caller words it for its own API. */
export class PlaceRefused extends Error {
  constructor(
    readonly reason: PlaceRefusal,
    message: string,
    /** with LIMIT: which limit, and the local date or week at it (the error's DETAIL) */
    readonly limit?: LimitReached,
  ) {
    super(message);
  }
}

/** The kernel's refusal a database error carries (SQLSTATE class BK), if it is one. */
export function refusalFrom(err: unknown): PlaceRefused | undefined {
  const reason = REFUSALS[sqlState(err) ?? ''];
  if (!reason) return undefined;
  const detail = reason === 'LIMIT' ? (err as { detail?: string }).detail : undefined;
  return new PlaceRefused(reason, (err as Error).message, detail ? (JSON.parse(detail) as LimitReached) : undefined);
}

/** The kernel's refusals as the partner API words them (409s; 404 for an appointment that is gone). */
export function partnerRefusal(err: PlaceRefused): DomainError {
  switch (err.reason) {
    case 'FULL':
      return new DomainError('CAPACITY_EXHAUSTED', err.message);
    case 'DUPLICATE':
      return new DomainError('AppointmentAlreadyBookedException', err.message);
    case 'GONE':
    case 'TIMESLOT_GONE':
      return new DomainError('NOT_FOUND', err.message);
    default:
      return conflict(err.message);
  }
}

export interface PlaceHolder {
  /** generated here when not given */
  id?: string;
  crmId: string;
  providerId: string;
  reference: string;
  customerId: string | null;
  state: ParticipationRow['state'];
  holdUntil?: Date | null;
  clientIp?: string | null;
  channelKey?: string | null;
  message?: string | null;
  locale?: string | null;
  note?: string | null;
  /** answers to the product's booking questions, with their labels (notifications/answers.ts) */
  answers?: unknown;
}

export interface PlaceClaim {
  participation: PlaceHolder;
  now: Date;
  /** the appointment to join */
  join?: string;
  /** the appointment to create when there is none to join, or the one to join is gone */
  create?: { appointment: NewAppointment & { id: string }; buffers: Buffers };
  /** public rules: a joined appointment must take bookings and be for this product (or for none) */
  publicProduct?: string;
  ignoreCapacity?: boolean;
  /** count the address's live holds first (public reservations) */
  holdLimit?: { ip: string; max: number };
  /**
   * who takes the place, for the webhook events written in the same
   * statement; null: no events (a stand-in the caller reports itself)
   */
  source: EventSource | null;
  /**
   * read the appointment's live participations after the claim, in the same statement (ClaimedPlace.live), unless it
   * created the appointment
   */
  listLive?: boolean;
  /** a reschedule: the participation it moves, not counted against the resource's booking limits */
  moving?: string;
  /**
   * A hold committed on its own (A2): its commit does not wait for the WAL to reach the disk
   * (ASYNC_COMMIT). A crash of PostgreSQL may lose the holds of its last moments.
   */
  asyncCommit?: boolean;
}

/** A live participation of the appointment, as A2's answer shows it. */
export interface LiveParticipation {
  id: string;
  placeholder_id: string;
  state: string;
}

export interface ClaimedPlace {
  appointment: AppointmentRow;
  participation: ParticipationRow;
  /** live participations of the appointment before this one */
  liveBefore: number;
  created: boolean;
  /**
   * with listLive, when it joined an appointment: the appointment's live participations after the claim, this one
   * included, oldest first
   */
  live?: LiveParticipation[];
}

export function participationJson(p: PlaceHolder) {
  return {
    id: p.id,
    crm_id: p.crmId,
    provider_id: p.providerId,
    reference: p.reference,
    customer_id: p.customerId,
    state: p.state,
    hold_until: p.holdUntil ?? null,
    client_ip: p.clientIp ?? null,
    channel_key: p.channelKey ?? null,
    message: p.message ?? null,
    locale: p.locale ?? null,
    note: p.note ?? null,
    answers: p.answers ?? null,
  };
}

export function appointmentJson(a: NewAppointment & { id: string }, buffers: Buffers) {
  const blocked = blockedRange(a.start, a.end, buffers);
  return {
    id: a.id,
    crm_id: a.crmId,
    provider_id: a.providerId,
    resource_id: a.resourceId,
    product_id: a.productId,
    timeslot_id: a.timeslotId ?? null,
    reference: a.reference,
    series_id: a.seriesId ?? null,
    start_at: a.start,
    end_at: a.end,
    blocked_from: blocked.from,
    blocked_until: blocked.until,
    capacity: a.capacity,
    accept_bookings: a.acceptBookings,
    product_name: a.productName ?? null,
    contact_user_id: a.contactUserId ?? null,
    address: a.address ?? null,
    price_value: a.priceValue ?? null,
    price_currency: a.priceCurrency ?? null,
    description: a.description ?? null,
    created_by_public_flow: a.createdByPublicFlow ?? false,
  };
}

export async function claimPlace(q: Queryable, c: PlaceClaim): Promise<ClaimedPlace> {
  const created = c.create ? JSON.stringify(appointmentJson(c.create.appointment, c.create.buffers)) : null;
  return runClaim(
    q,
    (p) =>
      `claim_place(p_participation => ${p(JSON.stringify(participationJson(c.participation)))},
                   p_now => ${p(c.now)}, p_join => ${p(c.join ?? null)}, p_new => ${p(created)},
                   p_public_product => ${p(c.publicProduct ?? null)},
                   p_ignore_capacity => ${p(c.ignoreCapacity ?? false)},
                   p_hold_ip => ${p(c.holdLimit?.ip ?? null)}, p_max_holds => ${p(c.holdLimit?.max ?? null)},
                   p_moving => ${p(c.moving ?? null)})`,
    c,
  );
}

/** What runClaim needs of a claim besides the call: who takes it, and what to read and how to commit. */
export type ClaimOptions = Pick<PlaceClaim, 'source' | 'listLive' | 'asyncCommit' | 'now'> & {
  participation: Pick<PlaceHolder, 'reference'>;
};

/**
 * One statement around a call that returns claim_place's row (claim_place itself, or a function
 * that calls it, such as booking's claim_pool_place): the place's webhook events, the live
 * participations and the commit mode in the same statement, and the refusals as PlaceRefused.
 * `call` builds the call's SQL, adding its parameters with `p`.
 */
export async function runClaim(
  q: Queryable,
  call: (p: (value: unknown) => string) => string,
  c: ClaimOptions,
): Promise<ClaimedPlace> {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const from = call(p);
  try {
    // The place's webhook events are written by the same statement, after the claim.
    const [r] = await q.query<{
      appointment: Record<string, unknown>;
      participation: Record<string, unknown>;
      live_before: number;
      created: boolean;
      events: number;
      live: LiveParticipation[] | null;
    }>(
      `SELECT c.*,
              CASE WHEN ${p(c.source)}::text IS NULL THEN 0 ELSE ${placeEventsSql(`$${params.length}`)} END AS events,
              CASE WHEN ${p(c.listLive ?? false)} AND NOT c.created
                   THEN live_participants((c.appointment->>'id')::uuid, ${p(c.now)}) END AS live,
              CASE WHEN ${p(c.asyncCommit ?? false)} THEN ${ASYNC_COMMIT} END AS commit_mode
         FROM ${from} c`,
      params,
    );
    if (r.events > 0) eventsWritten();
    return {
      appointment: reviveRow(r.appointment),
      participation: reviveRow(r.participation),
      liveBefore: r.live_before,
      created: r.created,
      ...(r.live ? { live: r.live } : {}),
    };
  } catch (err) {
    const refused = refusalFrom(err);
    if (refused) throw refused;
    // the insert's foreign-key check waited for the transaction that removed the timeslot
    if (sqlState(err) === '23503' && constraintName(err) === 'appointments_timeslot_id_fkey') {
      throw new PlaceRefused('TIMESLOT_GONE', 'the timeslot was removed');
    }
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') {
      throw new DomainError(
        'AppointmentAlreadyBookedException',
        'the customer already participates in this appointment',
      );
    }
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_provider_id_reference_key') {
      throw conflict(`a participation with reference ${c.participation.reference} already exists`);
    }
    throw err;
  }
}
