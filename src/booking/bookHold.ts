/**
 * A3's hot path: a live hold becomes the booking in one statement (book_hold, migration 006): the
 * consumer's customer, the hold converted, the mails and the webhook event written, committed on its own. Only the
 * consumer's own rows are locked; a live hold already counts against capacity.
 */
import { PROVIDER_SIDE } from '../notifications/compose.js';
import { mailsWritten, type OutboxMail } from '../notifications/outbox.js';
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
  /** consumer_customer's argument (consumerArgument) */
  consumer: string;
  /** calendar: the mails carry the first calendar part about the participation (its SEQUENCE 0 is recorded) */
  changes: {
    state: ParticipationRow['state'];
    message: string | null;
    locale: string | null;
    channel_key: string;
    answers: StoredAnswer[] | null;
    calendar: boolean;
  };
  /** the booking's mails; the participant's address, language and data are the customer's, filled in by the database */
  mails: OutboxMail[];
}

export interface HoldBooked {
  participation: ParticipationRow;
  liveAfter: number;
  customer: ConsumerCustomer;
}

export const alreadyBooked = () => new DomainError('AppointmentAlreadyBookedException', 'the consumer already participates in this appointment');

/** The booking; null when the hold is no longer live or its appointment no longer open (nothing was written). */
export async function bookHold(db: Queryable, b: HoldBooking): Promise<HoldBooked | null> {
  const mails = b.mails.map((m) => ({ template: m.template, recipient: m.recipient, locale: m.locale, participant: !PROVIDER_SIDE.has(m.template), payload: m.payload }));
  try {
    // The booking's webhook event is written by the same statement, after book_hold.
    const [r] = await db.query<{ participation: Record<string, unknown>; live_after: number; customer: ConsumerCustomer; event: string | null }>(
      `SELECT b.*, webhook_participation_event('participation.' || lower(b.participation->>'state'), (b.participation->>'id')::uuid,
                                               'public', 'RESERVED', b.participation->>'message') AS event
         FROM book_hold($1, $2, $3, $4, $5) b`,
      [b.holdId, b.now, b.consumer, JSON.stringify(b.changes), JSON.stringify(mails)],
    );
    mailsWritten();
    if (r.event) eventsWritten();
    return { participation: reviveRow(r.participation), liveAfter: r.live_after, customer: r.customer };
  } catch (err) {
    if (sqlState(err) === 'BKEXP') return null;
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') throw alreadyBooked();
    throw err;
  }
}
