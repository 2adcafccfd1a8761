/**
 * An SQL expression that, evaluated in a statement, lets that statement's transaction commit
 * without waiting for its WAL to reach the disk (synchronous_commit off for this transaction only:
 * no extra round trip). For writes whose loss in a crash of PostgreSQL costs a retry, never data:
 * a hold (the consumer holds again) and a mail's SENT mark (the mail goes out once more, with its
 * stable Message-ID). PostgreSQL flushes WAL in order, so any later synchronous commit (a booking
 * made from the hold, a worker's claim before it sends) flushes such a transaction first; what a
 * crash can lose is what committed in the last moments (wal_writer_delay, 200 ms by default, up to
 * three times that in the worst case). docs/decisions.md, "Holds at asynchronous commit".
 */
export const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true)`;
