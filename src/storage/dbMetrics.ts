/**
 * Where a request's database time goes, per pool: waiting for a connection, and statements from
 * sending to result (PostgreSQL's execution plus the round trip). Totals only: a bench divides them
 * by the requests it sent to split a request's wall time into pool wait, database and the rest
 * (this process: parsing, rules, answers, and waiting for the event loop).
 */
import { sharedCounter } from '../metrics.js';

const waited = sharedCounter('db_pool_wait_seconds_total', 'Time spent waiting for a connection of the pool, by pool', [
  'pool',
]);
const queried = sharedCounter(
  'db_query_seconds_total',
  'Time from sending a statement to its result (PostgreSQL execution and the round trip), by pool',
  ['pool'],
);
const statements = sharedCounter('db_statements_total', 'Statements sent, by pool (BEGIN and COMMIT included)', [
  'pool',
]);

export type PoolName = 'requests' | 'listing' | 'jobs' | 'mail';

export interface PoolTimer {
  waited(sinceMs: number): void;
  queried(sinceMs: number): void;
}

export function poolTimer(pool: PoolName): PoolTimer {
  const wait = waited.labels(pool);
  const query = queried.labels(pool);
  const count = statements.labels(pool);
  return {
    waited: (sinceMs) => wait.inc((performance.now() - sinceMs) / 1000),
    queried: (sinceMs) => {
      query.inc((performance.now() - sinceMs) / 1000);
      count.inc();
    },
  };
}
