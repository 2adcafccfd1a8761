/**
 * A provider's limit per consumer (DESIGN 7.11, docs/api.md "Booking limits"): a consumer, by
 * e-mail (case-insensitive), with `maxUpcomingBookingsPerConsumer` upcoming REQUESTED or BOOKED
 * participations at the provider gets 409 CONSUMER_LIMIT on A3; a reservation stays as it is.
 *
 * Counted in A3's transaction after consumer_customer, which locks the consumer's user row (the
 * crm's user with that e-mail, case-insensitive) until the commit: two A3 of one e-mail run one
 * after the other, so the second counts the first's booking. A new user is no exception: the second
 * insert of the same e-mail waits on the unique index users_email_key for the first transaction,
 * then finds and locks its row.
 */
import { DomainError } from '../errors.js';
import { appointmentIsCurrentSql } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';

export interface ConsumerLimitCheck {
  providerId: string;
  /** the e-mail the consumer booked with */
  email: string;
  /** the provider's maxUpcomingBookingsPerConsumer; null: nothing to check */
  max: number | null;
  now: Date;
}

/**
 * 409 CONSUMER_LIMIT when the consumer already has `max` upcoming bookings at the provider; run
 * after consumer_customer, in its transaction.
 */
export async function assertConsumerLimit(tx: Queryable, c: ConsumerLimitCheck): Promise<void> {
  if (c.max === null) return;
  const [{ n }] = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM customers c
       JOIN participations p ON p.customer_id = c.id
       JOIN appointments a ON a.id = p.appointment_id
      WHERE c.provider_id = $1 AND lower(c.email) = lower($2)
        AND p.state IN ('REQUESTED', 'BOOKED') AND a.start_at > $3 AND ${appointmentIsCurrentSql('a')}`,
    [c.providerId, c.email, c.now],
  );
  if (n >= c.max) {
    throw new DomainError(
      'CONSUMER_LIMIT',
      `body.email: this consumer already has as many upcoming bookings with this provider as it allows (${c.max}); ` +
        'cancel one or wait until one has taken place',
    );
  }
}
