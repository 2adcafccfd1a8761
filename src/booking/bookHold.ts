/**
 * A3's hot path: a live hold becomes the booking of a customer in one statement (book_hold), with
 * its webhook event. Only the hold's own row is locked; a live hold already counts against capacity.
 * It runs in A3's transaction, after the customer is known and before the mails are written.
 */
import type { StoredAnswer } from '../notifications/answers.js';
import type { ParticipationRow } from '../scheduling/capacity.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';
import { reviveRow } from '../storage/jsonRows.js';
import { DomainError } from '../errors.js';
import { eventsWritten } from '../webhooks/events.js';

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

/**
 * The booking; null when the hold is no longer live or its appointment no longer open (nothing was
 * written). 409 AppointmentAlreadyBookedException when the customer is in the appointment already.
 */
export async function bookHold(tx: Queryable, b: HoldBooking): Promise<HoldBooked | null> {
  try {
    // The booking's webhook event is written by the same statement, after book_hold.
    const [r] = await tx.query<
      { participation: Record<string, unknown>; live_after: number; event: string | null } | undefined
    >(
      `SELECT b.*, webhook_participation_event('participation.' || lower(b.participation->>'state'),
         (b.participation->>'id')::uuid,
                                               'public', 'RESERVED', b.participation->>'message') AS event
         FROM book_hold($1, $2, $3, $4) b`,
      [b.holdId, b.now, b.customerId, JSON.stringify(b.changes)],
    );
    if (!r) return null;
    if (r.event) eventsWritten();
    return { participation: reviveRow(r.participation), liveAfter: r.live_after };
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') throw alreadyBooked();
    throw err;
  }
}
