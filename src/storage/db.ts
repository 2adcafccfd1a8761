import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Config } from '../config.js';
import { poolTimer, type PoolName, type PoolTimer } from './dbMetrics.js';
import {
  CommitUnknownError,
  DatabaseTimeoutError,
  DatabaseUnavailableError,
  type HostClient,
  HostPool,
  HostSelector,
  isQueryCanceled,
  isUnavailable,
  sendCancelRequest,
} from './hosts.js';
import { acquireDirLock } from './lockfile.js';

/** Anything SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction; retried on serialization failures and deadlocks. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 5;
const UNAVAILABLE_ATTEMPTS = 2;

async function withRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = sqlState(err);
      // lost before COMMIT was sent: nothing was committed, and one more try finds the host anew
      // (not after a deadline: its time is spent)
      const lost =
        err instanceof DatabaseUnavailableError &&
        !(err instanceof CommitUnknownError) &&
        !(err instanceof DatabaseTimeoutError);
      if (lost && attempt < UNAVAILABLE_ATTEMPTS) continue;
      if (attempt >= MAX_ATTEMPTS || !((code && RETRYABLE.has(code)) || isStalePlan(err))) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
}

/** A FIFO mutex: PGlite has one session, so one transaction must run from BEGIN to COMMIT alone. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  private readonly lock = new Mutex();
  constructor(
    private readonly pglite: PGlite,
    private readonly releaseDir: () => void,
  ) {}

  /** the whole data directory as an uncompressed tarball (openDb's `snapshot`) */
  dump(): Promise<Blob> {
    return this.lock.run(() => this.pglite.dumpDataDir('none'));
  }

  query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.lock.run(async () => (await this.pglite.query<T>(sql, params)).rows);
  }

  exec(sql: string): Promise<void> {
    return this.lock.run(async () => void (await this.pglite.exec(sql)));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.lock.run(() =>
      withRetry(() =>
        this.pglite.transaction(async (tx) =>
          fn({
            query: async <R>(sql: string, params: unknown[] = []) => (await tx.query<R>(sql, params)).rows,
            exec: async (sql: string) => void (await tx.exec(sql)),
          }),
        ),
      ),
    );
  }

  async close(): Promise<void> {
    await this.lock.run(() => this.pglite.close());
    this.releaseDir();
  }
}

/**
 * Names for prepared statements: the server parses and plans a statement once per connection
 * instead of on every call. Only the first MAX_PREPARED distinct texts get a name, so SQL built at
 * run time cannot grow the server's statement cache without bound. Switched off (`named` false),
 * every statement is unnamed: a pooler in transaction mode (PgBouncer before 1.21, or without
 * max_prepared_statements) hands each transaction another server connection, where a name
 * prepared elsewhere does not exist.
 */
class StatementNames {
  private static readonly MAX_PREPARED = 1000;
  private readonly names = new Map<string, string>();
  /** Raised when the server refuses a cached plan (a migration changed a result type): new names, new plans. */
  private generation = 0;

  constructor(private readonly named: boolean) {}

  config(text: string, values: unknown[]): pg.QueryConfig {
    let name = this.names.get(text);
    if (name === undefined && this.named && this.names.size < StatementNames.MAX_PREPARED) {
      name = `q${this.names.size}`;
      this.names.set(text, name);
    }
    return name === undefined ? { text, values } : { name: `${name}g${this.generation}`, text, values };
  }

  /** Runs a query, once more under fresh names when the server reports a stale cached plan. */
  async run(
    client: pg.ClientBase,
    text: string,
    values: unknown[],
    inTransaction: boolean,
    timer: PoolTimer,
  ): Promise<unknown[]> {
    try {
      return await timed(timer, () => client.query(this.config(text, values)));
    } catch (err) {
      if (!isStalePlan(err)) throw err;
      this.generation++;
      if (inTransaction) throw err; // the transaction is aborted; transaction() retries it whole
      return await timed(timer, () => client.query(this.config(text, values)));
    }
  }
}

async function timed(timer: PoolTimer, send: () => Promise<pg.QueryResult>): Promise<unknown[]> {
  const sent = performance.now();
  try {
    return (await send()).rows;
  } finally {
    timer.queried(sent);
  }
}

/** A pool's connection on the host that accepts writes, the wait for it counted. */
async function connect(pool: HostPool, timer: PoolTimer): Promise<HostClient> {
  const asked = performance.now();
  const client = await pool.connect();
  timer.waited(asked);
  return client;
}

/** After the cancel request, how long a connection may stay busy before it is closed (a server out of reach). */
export const CANCEL_GRACE_MS = 1_000;

/**
 * The time one unit of work of a request pool may take (DATABASE_STATEMENT_TIMEOUT_MS, DESIGN.md
 * §7.13 "never a hang over 10 s"): one statement, or a transaction from BEGIN to COMMIT, each
 * counted from asking for a connection, retries included. PostgreSQL's statement_timeout cannot do
 * it: it is off while a COMMIT waits for the synchronous standby, which waits for ever when the
 * standby is gone and nobody clears `synchronous_standby_names`. So the deadline is kept here:
 * - the wait for a connection ends at the deadline;
 * - when it passes, the server is asked to cancel what the connection runs (sendCancelRequest): a
 *   statement fails with 57014, a COMMIT waiting for the standby commits locally with a WARNING
 *   (a CommitUnknownError); a connection still busy CANCEL_GRACE_MS later is closed;
 * - a statement not yet sent is refused (`check`), and the connection is not reused, so a cancel
 *   still on its way never hits the next statement.
 * All of these end as a DatabaseTimeoutError (503), unless the commit's outcome is unknown.
 */
class Deadline {
  private readonly until: number;
  constructor(readonly ms: number) {
    this.until = performance.now() + ms;
  }

  error(cause?: unknown): DatabaseTimeoutError {
    return new DatabaseTimeoutError(
      `the database did not answer within ${this.ms} ms (DATABASE_STATEMENT_TIMEOUT_MS)`,
      cause === undefined ? undefined : { cause },
    );
  }

  /** A connection of the pool, waited for until the deadline at most. */
  async connect(pool: HostPool, timer: PoolTimer): Promise<HostClient> {
    const left = this.until - performance.now();
    if (left <= 0) throw this.error();
    const pending = connect(pool, timer);
    let timeout: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => reject(this.error()), left);
    });
    try {
      return await Promise.race([pending, late]);
    } catch (err) {
      pending.then(
        (client) => client.release(),
        () => undefined,
      ); // came too late: back to the pool
      throw err;
    } finally {
      clearTimeout(timeout);
    }
  }

  /** Watches a connection until `end()`: at the deadline its statement is cancelled, then the connection closed. */
  watch(client: HostClient): DeadlineWatch {
    let passed = false;
    let timer: NodeJS.Timeout | undefined;
    const close = () => (client as unknown as pg.Client).connection.stream.destroy();
    timer = setTimeout(
      () => {
        passed = true;
        void sendCancelRequest(client);
        timer = setTimeout(close, CANCEL_GRACE_MS);
      },
      Math.max(0, this.until - performance.now()),
    );
    return {
      passed: () => passed,
      check: () => {
        if (passed) throw this.error();
      },
      outcome: (err) =>
        passed &&
        err instanceof DatabaseUnavailableError &&
        !(err instanceof CommitUnknownError || err instanceof DatabaseTimeoutError)
          ? this.error(err)
          : err,
      end: () => clearTimeout(timer),
    };
  }
}

interface DeadlineWatch {
  /** whether the deadline passed (the cancel was sent): the connection is not reused */
  passed(): boolean;
  /** throws a DatabaseTimeoutError once the deadline passed: a statement not to send */
  check(): void;
  /** the unit's error as it is answered: after the deadline, a connection lost (closed by it) is a timeout */
  outcome(err: unknown): unknown;
  /** the unit is over: no cancel, no close from now on */
  end(): void;
}

/** A connection from the pool, and its watch when the pool has a deadline. */
async function watched(
  pool: HostPool,
  timer: PoolTimer,
  deadline: Deadline | undefined,
): Promise<{ client: HostClient; watch: DeadlineWatch | undefined }> {
  const client = await (deadline ? deadline.connect(pool, timer) : connect(pool, timer));
  return { client, watch: deadline?.watch(client) };
}

/**
 * A statement's or connection's failure that means the database is gone or no longer the primary:
 * the host is forgotten and the error becomes a DatabaseUnavailableError (HTTP 503). A cancelled
 * statement (57014: the request pools' deadline, a pooler's or an operator's cancel) is a
 * DatabaseTimeoutError (503 too), the host kept. Other errors (the server's refusal of this
 * statement) are returned as they are.
 */
function classified(pool: HostPool, client: HostClient, err: unknown): unknown {
  if (isQueryCanceled(err)) return new DatabaseTimeoutError('the database statement was cancelled', { cause: err });
  if (err instanceof DatabaseUnavailableError || !isUnavailable(err)) return err;
  pool.failed(client, err);
  return new DatabaseUnavailableError('the connection to the database was lost', { cause: err });
}

/**
 * Runs one statement on a connection of the pool. Unlike pg.Pool.query, a connection whose
 * statement failed with the server's answer (an SQLSTATE: a refused place, a unique violation) goes
 * back to the pool: only a broken connection is closed, so a refusal costs no new backend. A
 * statement that committed (autocommit) while its wait for the synchronous standby was cancelled
 * is a CommitUnknownError. With a deadline (a request pool), the statement is cancelled when it passes.
 */
async function onPooled(
  pool: HostPool,
  timer: PoolTimer,
  deadline: Deadline | undefined,
  run: (client: HostClient) => Promise<unknown[]>,
): Promise<unknown[]> {
  const { client, watch } = await watched(pool, timer, deadline);
  let broken: Error | undefined;
  try {
    client.syncRepCancelled = false;
    const rows = await run(client);
    if (client.syncRepCancelled) throw syncRepCancelled();
    return rows;
  } catch (err) {
    if (sqlState(err) === undefined || err instanceof DatabaseUnavailableError) broken = err as Error;
    throw watch ? watch.outcome(classified(pool, client, err)) : classified(pool, client, err);
  } finally {
    watch?.end();
    client.release(broken ?? (watch?.passed() ? new Error('cancelled at its deadline') : undefined));
  }
}

const syncRepCancelled = () =>
  new CommitUnknownError(
    'the database committed the change but cancelled its wait for the standby: whether it survives a failover ' +
      'is not known',
  );

const isStalePlan = (err: unknown) => sqlState(err) === '0A000' && /cached plan/.test(String((err as Error).message));

class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  private readonly statements: StatementNames;
  private readonly timer: PoolTimer;
  /** the time a statement or transaction may take (Deadline); undefined: no limit (jobs, migrations) */
  deadlineMs: number | undefined;
  constructor(
    readonly pool: HostPool,
    namedStatements: boolean,
    name: PoolName,
  ) {
    this.statements = new StatementNames(namedStatements);
    this.timer = poolTimer(name);
  }

  private deadline(): Deadline | undefined {
    return this.deadlineMs === undefined ? undefined : new Deadline(this.deadlineMs);
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await onPooled(this.pool, this.timer, this.deadline(), (c) =>
      this.statements.run(c, sql, params, false, this.timer),
    )) as T[];
  }

  async exec(sql: string): Promise<void> {
    await onPooled(this.pool, this.timer, this.deadline(), async (c) => (await c.query(sql)).rows);
  }

  /**
   * BEGIN, fn, COMMIT on one connection. The database lost before COMMIT was sent: nothing was
   * committed, and the whole transaction is tried once more (on the host found anew), else it is a
   * DatabaseUnavailableError. Lost after COMMIT was sent, or the wait for the synchronous standby
   * cancelled: a CommitUnknownError, never a success. With a deadline (a request pool), the whole of
   * it, retries included, ends there (Deadline): a DatabaseTimeoutError, or a CommitUnknownError when
   * COMMIT was under way.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const deadline = this.deadline();
    return withRetry(async () => {
      const { client, watch } = await watched(this.pool, this.timer, deadline);
      /** BEGIN and COMMIT; their failures are classified here, those of fn's statements in tx below */
      const send = async (sql: string) => {
        watch?.check();
        try {
          await timed(this.timer, () => client.query(sql));
        } catch (err) {
          throw classified(this.pool, client, err);
        }
      };
      let broken: Error | undefined;
      let committing = false;
      try {
        await send('BEGIN');
        const result = await fn({
          query: async <R>(sql: string, params: unknown[] = []) => {
            watch?.check();
            try {
              return (await this.statements.run(client, sql, params, true, this.timer)) as R[];
            } catch (err) {
              throw classified(this.pool, client, err);
            }
          },
          exec: async (sql: string) => {
            watch?.check();
            try {
              await client.query(sql);
            } catch (err) {
              throw classified(this.pool, client, err);
            }
          },
        });
        if (client.lost) throw new DatabaseUnavailableError('the connection to the database was lost');
        watch?.check(); // past the deadline nothing is committed
        committing = true;
        client.syncRepCancelled = false;
        await send('COMMIT');
        if (client.syncRepCancelled) throw syncRepCancelled();
        return result;
      } catch (err) {
        if (err instanceof DatabaseUnavailableError || client.lost) {
          broken = err as Error;
          if (committing && !(err instanceof CommitUnknownError))
            throw new CommitUnknownError('the connection to the database was lost at commit', { cause: err });
          const unavailable =
            err instanceof DatabaseUnavailableError
              ? err
              : new DatabaseUnavailableError('the connection to the database was lost', { cause: err });
          throw watch ? watch.outcome(unavailable) : unavailable;
        }
        if (!watch?.passed()) await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        watch?.end();
        client.release(broken ?? (watch?.passed() ? new Error('cancelled at its deadline') : undefined));
      }
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

// timestamptz and bigint come back as Date and number on both backends.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface OpenDbOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** named (server-side cached) prepared statements; default true */
  preparedStatements?: boolean;
  /**
   * A service instance's pools: every connection opened at once and kept while idle, so a rush
   * after a quiet spell does not begin by starting PostgreSQL backends (default: opened on demand,
   * closed after 10 s idle).
   */
  keepConnections?: boolean;
  /** the pool's name in the metrics (db_pool_wait_seconds_total ...); default requests */
  name?: PoolName;
  /** memory:// only: start from this data directory (a `dumpDataDir` tarball) instead of an empty one */
  snapshot?: Blob;
  /** the host selection shared with the process's other pools (default: one of its own) */
  hosts?: HostSelector;
}

/**
 * A database handle: PostgreSQL through a pool (`postgres://`), else PGlite in memory (`memory://`) or in `dataDir`.
 */
export async function openDb({
  databaseUrl,
  dataDir,
  poolSize = 10,
  preparedStatements = true,
  keepConnections = false,
  name = 'requests',
  snapshot,
  hosts,
}: OpenDbOptions): Promise<Db> {
  if (databaseUrl?.startsWith('postgres')) {
    const pool = new HostPool(hosts ?? new HostSelector(databaseUrl), {
      max: poolSize,
      keepConnections,
      // the pool's name for pg_stat_activity: booking (requests), booking-listing, booking-jobs, ...
      applicationName: name === 'requests' ? 'booking' : `booking-${name}`,
    });
    if (keepConnections) await pool.warm();
    return new PostgresDb(pool, preparedStatements, name);
  }
  // Loaded only when used: a service on a PostgreSQL server never loads the embedded engine.
  const [{ PGlite }, { btree_gist }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/btree_gist'),
  ]);
  if (databaseUrl === 'memory://') {
    const pglite = await PGlite.create({ extensions: { btree_gist }, ...(snapshot ? { loadDataDir: snapshot } : {}) });
    return new PgliteDb(pglite, () => undefined);
  }
  const dir = resolve(dataDir, 'pgdata');
  mkdirSync(dir, { recursive: true });
  const release = acquireDirLock(resolve(dataDir, 'pgdata.lock'));
  try {
    const pglite = await PGlite.create(dir, { extensions: { btree_gist } });
    return new PgliteDb(pglite, release);
  } catch (err) {
    release();
    throw err;
  }
}

/** A PGlite database's data directory as a tarball, to open copies of it with openDb's `snapshot`. */
export function dumpDataDir(db: Db): Promise<Blob> {
  if (!(db instanceof PgliteDb)) throw new Error('only a PGlite database has a data directory to dump');
  return db.dump();
}

export interface InstanceDbs {
  /** for requests: DATABASE_POOL_SIZE connections */
  db: Db;
  /**
   * for A1's listing reads: LISTING_POOL_SIZE connections of their own, so that a rush of bookings
   * never makes the listing queue for a connection (PGlite: the same single session)
   */
  listingDb: Db;
  /** for the background jobs: JOB_POOL_SIZE connections of their own (PGlite: the same single session) */
  jobsDb: Db;
  /**
   * From now on a statement or transaction of `db` and `listingDb` ends after
   * DATABASE_STATEMENT_TIMEOUT_MS (Deadline; PostgreSQL only): called once the start-up work
   * (migrations, settings) is done, before the instance takes requests. The jobs have no limit.
   */
  limitRequests(): void;
  close(): Promise<void>;
}

/** The database connections of one service instance, as its configuration says. */
export async function openInstanceDbs(
  config: Pick<
    Config,
    | 'databaseUrl'
    | 'dataDir'
    | 'databasePoolSize'
    | 'listingPoolSize'
    | 'jobPoolSize'
    | 'preparedStatements'
    | 'databaseStatementTimeoutMs'
  >,
): Promise<InstanceDbs> {
  const options = {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    preparedStatements: config.preparedStatements,
    keepConnections: true,
    // one selection of the writable host for all three pools: a failover seen by one is seen by all
    hosts: config.databaseUrl?.startsWith('postgres') ? new HostSelector(config.databaseUrl) : undefined,
  };
  const db = await openDb({ ...options, poolSize: config.databasePoolSize });
  if (db.kind === 'pglite')
    return { db, listingDb: db, jobsDb: db, limitRequests: () => undefined, close: () => db.close() };
  const listingDb = await openDb({ ...options, poolSize: config.listingPoolSize, name: 'listing' });
  const jobsDb = await openDb({ ...options, poolSize: config.jobPoolSize, name: 'jobs' });
  return {
    db,
    listingDb,
    jobsDb,
    limitRequests: () => {
      for (const limited of [db, listingDb])
        if (limited instanceof PostgresDb) limited.deadlineMs = config.databaseStatementTimeoutMs;
    },
    close: async () => void (await Promise.all([db.close(), listingDb.close(), jobsDb.close()])),
  };
}

/** SQLSTATE of a database error, if it is one. */
export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export function constraintName(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'constraint' in err
    ? String((err as { constraint: unknown }).constraint)
    : undefined;
}

/** Re-runs fn when it lost a race on a unique index (23505); the rerun sees the winner's row. */
export async function retryOnUniqueViolation<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || sqlState(err) !== '23505') throw err;
    }
  }
}
