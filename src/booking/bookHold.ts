/**
 * A3's hot path: a live hold becomes the booking of a customer in one statement (book_hold), with
 * its webhook event. Only the hold's own row is locked; a live hold already counts against capacity.
 * It runs in A3's transaction, after the customer is known (or with it: bookHoldFor) and before the mails.
 */
import type { StoredAnswer } from '../notifications/answers.js';
import type { ParticipationRow } from '../scheduling/capacity.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';
import { reviveRow } from '../storage/jsonRows.js';
import { DomainError } from '../errors.js';
import { eventsWritten } from '../webhooks/events.js';
import type { ConsumerCustomer } from './consumer.js';

export interface HoldBooking {
  holdId: string;
  now: Date;
  /** the customer the booking is made for (consumerCustomer) */
  customerId: string;
  changes: {
    state: ParticipationRow['state'];
    message: string | null;
    locale: string | null;
    channel_key: string;
    answers: StoredAnswer[] | null;
  };
}

export interface HoldBooked {
  participation: ParticipationRow;
  /** live participations of the appointment with this booking */
  liveAfter: number;
}

export const alreadyBooked = () =>
  new DomainError('AppointmentAlreadyBookedException', 'the consumer already participates in this appointment');

/** The booking's webhook event, written by the statement that books the hold (`b`: book_hold's row). */
const BOOKED_EVENT_SQL = `webhook_participation_event('participation.' || lower(b.participation->>'state'),
  (b.participation->>'id')::uuid, 'public', 'RESERVED', b.participation->>'message')`;

/** 409 AppointmentAlreadyBookedException for a customer's second place in one appointment; others as they are. */
async function refusingSecondPlace<T>(book: () => Promise<T>): Promise<T> {
  try {
    return await book();
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') throw alreadyBooked();
    throw err;
  }
}

/**
 * The booking; null when the hold is no longer live or its appointment no longer open (nothing was
 * written). 409 AppointmentAlreadyBookedException when the customer is in the appointment already.
 */
export async function bookHold(tx: Queryable, b: HoldBooking): Promise<HoldBooked | null> {
  return refusingSecondPlace(async () => {
    const [r] = await tx.query<
      { participation: Record<string, unknown>; live_after: number; event: string | null } | undefined
    >(`SELECT b.*, ${BOOKED_EVENT_SQL} AS event FROM book_hold($1, $2, $3, $4) b`, [
      b.holdId,
      b.now,
      b.customerId,
      JSON.stringify(b.changes),
    ]);
    if (!r) return null;
    if (r.event) eventsWritten();
    return { participation: reviveRow(r.participation), liveAfter: r.live_after };
  });
}

/**
 * consumerCustomer and bookHold in one statement, one round trip less on A3's hot path: the
 * consumer's customer, then the hold turned into its booking (`converted` null when the hold is no
 * longer live; the customer is made all the same). For an A3 with no per-consumer limit to count
 * between the two. `consumer`: consumerArgument's JSON.
 */
export async function bookHoldFor(
  tx: Queryable,
  consumer: string,
  b: Omit<HoldBooking, 'customerId'>,
): Promise<{ customer: ConsumerCustomer; converted: HoldBooked | null }> {
  return refusingSecondPlace(async () => {
    const [r] = await tx.query<{
      customer: ConsumerCustomer;
      participation: Record<string, unknown> | null;
      live_after: number | null;
      event: string | null;
    }>(
      `WITH c AS (SELECT consumer_customer($4) AS customer)
       SELECT c.customer, b.participation, b.live_after,
              CASE WHEN b.participation IS NOT NULL THEN ${BOOKED_EVENT_SQL} END AS event
         FROM c LEFT JOIN LATERAL book_hold($1, $2, (c.customer->>'id')::uuid, $3) b ON true`,
      [b.holdId, b.now, JSON.stringify(b.changes), consumer],
    );
    if (r.event) eventsWritten();
    const converted = r.participation
      ? { participation: reviveRow<ParticipationRow>(r.participation), liveAfter: r.live_after! }
      : null;
    return { customer: r.customer, converted };
  });
}
