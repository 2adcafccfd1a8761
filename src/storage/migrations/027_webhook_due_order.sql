-- Migration 027: a subscription's due webhook deliveries in write order straight from an index, and
-- no second index on pending deliveries to lead the planner astray.
-- The worker's claim (src/webhooks/queue.ts claimDue) takes the first few due deliveries of a
-- subscription ORDER BY next_attempt_at, seq. The index of migration 009 had no seq, so PostgreSQL
-- read and sorted every due delivery of the subscription to take a few: with 3,000 waiting, a claim
-- of 16 took 7 ms, and the more waited, the slower each went out. With seq in the index the claim
-- reads only the rows it takes.
CREATE INDEX webhook_deliveries_due_seq_idx ON webhook_deliveries (subscription_id, next_attempt_at, seq)
  WHERE status = 'PENDING';
DROP INDEX webhook_deliveries_due_idx;
-- The pending deliveries by age served one gauge (booking_webhook_oldest_pending_seconds, read once a
-- second). With statistics taken while nothing was pending both partial indexes look empty, and the
-- planner took this smaller one for the claim too, reading every pending delivery. The gauge now
-- reads the pending rows through the index above.
DROP INDEX webhook_deliveries_pending_age_idx;
