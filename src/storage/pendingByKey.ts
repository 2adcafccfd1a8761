/**
 * "The queue row is still PENDING", for a statement that finds its rows by key (a mail's id, a
 * delivery's subscription and event). It reads `(status = 'PENDING') IS TRUE`: the same for the
 * NOT NULL status columns, but PostgreSQL cannot prove from it the predicate of the partial indexes
 * on pending rows (outbox_pending_idx, webhook_deliveries_due_seq_idx), so it looks the row up by its
 * key. With `status = 'PENDING'`, a planner whose statistics were taken while the queue was empty
 * chose the small-looking partial index and walked every pending row to find one: during a rush
 * with 3,000 mails waiting, a mail's SENT mark took 3.5 ms of PostgreSQL CPU instead of 0.1 ms, and
 * the more mails waited, the slower each one went out. `alias`: the table's alias in the statement.
 */
export const pendingByKey = (alias?: string): string => `(${alias ? `${alias}.` : ''}status = 'PENDING') IS TRUE`;
