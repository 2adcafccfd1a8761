/**
 * Several PostgreSQL hosts behind one DATABASE_URL (DESIGN.md §7.13, docs/deploy.md "Failover"):
 * libpq's form `postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write`, which node-postgres
 * does not read. The selection is kept here, in one place:
 * - `parseDatabaseUrl` splits the URL into one connection string per host;
 * - a `HostSelector` (one per process, shared by every pool) knows which host accepts writes. It
 *   finds it by trying the hosts in order and asking each whether it is read-only; it forgets it
 *   after a connection error, a read-only refusal (25006) or an administrator's shutdown
 *   (57P01/57P02/57P03), and the next connection looks again;
 * - `HostPool` is a pg.Pool on the selected host: when the selection changes, the old pool is ended
 *   and a new one opened on the new host. Every connection it opens is checked on connect (a
 *   standby is refused) and has an error listener for its whole life: a server that dies never
 *   takes the process with it.
 * What cannot be had is reported as a `DatabaseUnavailableError`, which HTTP answers with 503 and
 * Retry-After. A commit whose outcome cannot be known is a `CommitUnknownError` (a kind of it), a
 * statement cancelled (SQLSTATE 57014, e.g. by the request pools' deadline) a `DatabaseTimeoutError`.
 */
import { connect as netConnect } from 'node:net';
import pg from 'pg';

export interface HostAddress {
  host: string;
  port: number;
}

export type SessionAttrs = 'any' | 'read-write';

export interface ParsedDatabaseUrl {
  hosts: HostAddress[];
  /** what a host must be to be used: `read-write` (a primary) by default when several hosts are named */
  target: SessionAttrs;
  /** the URL for one host: the same user, password, database and parameters */
  urlFor(host: HostAddress): string;
}

const HOST_LIST = /^(postgres(?:ql)?:\/\/)((?:[^@/?#]*@)?)([^/?#]*)(.*)$/;

/** One `host[:port]` of the list; IPv6 addresses in brackets. */
function hostAddress(part: string): HostAddress {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(part);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : 5432 };
  const [host, port] = part.split(':');
  return { host: host || 'localhost', port: port ? Number(port) : 5432 };
}

/** Splits a libpq URL with one or several hosts; `target_session_attrs` is read here, left out of each host's URL. */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const match = HOST_LIST.exec(url);
  if (!match) throw new Error('DATABASE_URL is not a postgres:// URL');
  const [, scheme, userInfo, hostList, rest] = match;
  const hosts = hostList.split(',').map((part) => hostAddress(part.trim()));
  const [path, query = ''] = rest.split(/\?(.*)/s);
  const params = new URLSearchParams(query);
  const asked = params.get('target_session_attrs');
  params.delete('target_session_attrs');
  if (asked !== null && !['any', 'read-write', 'primary'].includes(asked))
    throw new Error(`DATABASE_URL: target_session_attrs must be any, read-write or primary, got "${asked}"`);
  const target: SessionAttrs =
    asked === null ? (hosts.length > 1 ? 'read-write' : 'any') : asked === 'any' ? 'any' : 'read-write';
  const kept = params.toString();
  return {
    hosts,
    target,
    urlFor: ({ host, port }) =>
      `${scheme}${userInfo}${host.includes(':') ? `[${host}]` : host}:${port}${path}${kept ? `?${kept}` : ''}`,
  };
}

/** The database cannot be used now: no host accepts writes, or the connection was lost. Retry shortly. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * A commit whose outcome cannot be known: the connection was lost after COMMIT was sent, or the
 * server cancelled the wait for the synchronous standby (reported only as a WARNING: the
 * transaction committed locally and may be missing on the standby that is promoted next).
 */
export class CommitUnknownError extends DatabaseUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommitUnknownError';
  }
}

/**
 * The database did not finish in time: a statement was cancelled (SQLSTATE 57014 query_canceled: the
 * request pools' deadline, DATABASE_STATEMENT_TIMEOUT_MS; a pooler's query timeout; an operator), or
 * the deadline passed between two statements of a transaction. Nothing was committed; the host stays
 * the selected one. Not retried by the request: the time is spent.
 */
export class DatabaseTimeoutError extends DatabaseUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseTimeoutError';
  }
}

/** SQLSTATE 57014 (query_canceled): the statement was cancelled, by a statement_timeout or a cancel request. */
export function isQueryCanceled(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && String(err.code) === '57014';
}

/** SQLSTATEs after which the host is no longer taken as the writable one. */
const HOST_LOST = new Set(['25006', '57P01', '57P02', '57P03']);

/**
 * Whether an error of a pg call means the database (this host) is gone or no longer the primary,
 * rather than a refusal of this statement: an error without the server's severity (a socket error,
 * a connection ended or timed out), a connection exception (class 08), a read-only refusal or a
 * shutdown.
 */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  if (typeof err !== 'object' || err === null) return false;
  if (!('severity' in err)) return true;
  const code = 'code' in err ? String(err.code) : '';
  return HOST_LOST.has(code) || code.startsWith('08');
}

/**
 * A notice that says a commit's wait for the synchronous standby was cancelled. PostgreSQL sends it
 * as a WARNING (SQLSTATE 01000 after a cancel or statement timeout, 57P01 when the backend is
 * terminated) with the detail "The transaction has already committed locally, but might not have
 * been replicated to the standby."
 */
export function isSyncRepCancel(notice: { severity?: string; code?: string; message?: string; detail?: string }) {
  if (notice.severity !== 'WARNING' && notice.severity !== undefined) return false;
  const text = `${notice.message ?? ''} ${notice.detail ?? ''}`;
  return /synchronous replication|committed locally/i.test(text);
}

/** PostgreSQL's CancelRequest code (protocol 3: 1234 in the high 16 bits, 5678 in the low). */
const CANCEL_REQUEST_CODE = 80877102;

/**
 * Asks the server to cancel what the connection runs now, as psql's Ctrl-C does: PostgreSQL's
 * CancelRequest (the backend's process id and secret key) on a connection of its own, which
 * PgBouncer passes on too. A statement then fails with 57014; a COMMIT waiting for the synchronous
 * standby commits locally and says so in a WARNING (isSyncRepCancel). Resolves once the request was
 * sent or could not be (never rejects); the server acts on it a moment later, or never when it
 * cannot be reached.
 */
export function sendCancelRequest(client: pg.ClientBase): Promise<void> {
  const { host, port, processID, secretKey } = client as unknown as {
    host: string;
    port: number;
    processID: number | null;
    secretKey: number | null;
  };
  if (processID === null || secretKey === null) return Promise.resolve();
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  return new Promise((resolve) => {
    const socket = host.startsWith('/') ? netConnect({ path: `${host}/.s.PGSQL.${port}` }) : netConnect({ host, port });
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy());
    socket.on('connect', () => socket.end(packet));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

/** How long one host may take to accept a connection (a dead machine would otherwise hang the request). */
export const CONNECT_TIMEOUT_MS = 3_000;
/** After no host could be found, requests within this time fail at once instead of trying every host again. */
const FAILED_SELECTION_MEMORY_MS = 250;

const READ_ONLY_CHECK = `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only`;

/**
 * Set on every connection the service opens: no JIT compilation. PostgreSQL compiles a statement
 * whose estimated cost passes jit_above_cost (100,000) anew at every execution; on a database in
 * service the pool listing's read passes it and spent 240 ms compiling for 1 ms of work (docs/decisions.md,
 * "No JIT"). A SET, not a startup option, so that it passes PgBouncer, which refuses unknown startup parameters.
 */
const SESSION_SETTINGS = 'SET jit = off';

/** Whether the connected server refuses writes (a standby, or default_transaction_read_only). */
export async function isReadOnly(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ read_only: boolean }>(READ_ONLY_CHECK);
  return rows[0]?.read_only === true;
}

/**
 * The host that accepts writes, shared by every pool of the process. `current()` resolves it
 * (trying the hosts in order when none is known); `lost(host)` forgets it.
 */
export class HostSelector {
  readonly hosts: HostAddress[];
  readonly target: SessionAttrs;
  private readonly urlFor: (host: HostAddress) => string;
  private selected: HostAddress | undefined;
  private selecting: Promise<HostAddress> | undefined;
  private failedAt = 0;
  private failure: DatabaseUnavailableError | undefined;
  private readonly listeners = new Set<(host: HostAddress | undefined) => void>();

  constructor(databaseUrl: string) {
    const parsed = parseDatabaseUrl(databaseUrl);
    this.hosts = parsed.hosts;
    this.target = parsed.target;
    this.urlFor = parsed.urlFor;
  }

  /** The host in use, if one is known to accept writes (for /readyz and the logs). */
  get known(): HostAddress | undefined {
    return this.selected;
  }

  url(host: HostAddress): string {
    return this.urlFor(host);
  }

  /** Called with the new host (or undefined when the old one is lost). */
  onChange(listener: (host: HostAddress | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The host to connect to; when none is known, the first of the list that answers and accepts writes. */
  current(): Promise<HostAddress> {
    if (this.selected) return Promise.resolve(this.selected);
    if (this.failure && Date.now() - this.failedAt < FAILED_SELECTION_MEMORY_MS) return Promise.reject(this.failure);
    this.selecting ??= this.select().finally(() => (this.selecting = undefined));
    return this.selecting;
  }

  /** The host failed (or refused a write): it is not used again before it is found writable anew. */
  lost(host: HostAddress): void {
    if (this.selected !== host) return;
    this.selected = undefined;
    for (const l of this.listeners) l(undefined);
  }

  private async select(): Promise<HostAddress> {
    const reasons: string[] = [];
    for (const host of this.hosts) {
      const reason = await this.probe(host);
      if (reason === null) {
        this.selected = host;
        this.failure = undefined;
        for (const l of this.listeners) l(host);
        return host;
      }
      reasons.push(`${host.host}:${host.port} ${reason}`);
    }
    this.failure = new DatabaseUnavailableError(`no database host accepts writes (${reasons.join('; ')})`);
    this.failedAt = Date.now();
    throw this.failure;
  }

  /** null when the host answers and (if asked) accepts writes; else why not. */
  private async probe(host: HostAddress): Promise<string | null> {
    if (this.hosts.length === 1 && this.target === 'any') return null; // one host: the pool's connect says it
    const client = new pg.Client({ connectionString: this.urlFor(host), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    client.on('error', () => undefined);
    try {
      await client.connect();
      if (this.target === 'read-write' && (await isReadOnly(client))) return 'is read-only (a standby)';
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    } finally {
      client.end().catch(() => undefined);
    }
  }
}

/** What a connection of a HostPool carries: the host it is on, and whether a sync-rep wait was cancelled. */
export interface HostClient extends pg.PoolClient {
  dbHost: HostAddress;
  /** set by a WARNING that the wait for the synchronous standby was cancelled; read and cleared after each statement */
  syncRepCancelled?: boolean;
  /** set when the connection reported an error of its own (the server went away) */
  lost?: boolean;
}

export interface HostPoolOptions {
  max: number;
  /** every connection kept while idle (default: closed after 10 s idle) */
  keepConnections: boolean;
  /** the connections' application_name in pg_stat_activity */
  applicationName: string;
}

/**
 * A pg.Pool on the selected host. `connect()` gives a connection of the host that accepts writes;
 * a failure to connect forgets the host and is a DatabaseUnavailableError.
 */
export class HostPool {
  private pool: { host: HostAddress; pool: pg.Pool } | undefined;
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(
    private readonly selector: HostSelector,
    private readonly options: HostPoolOptions,
  ) {
    this.unsubscribe = selector.onChange((host) => {
      if (this.pool && this.pool.host !== host) this.retire();
    });
  }

  /** Opens every connection at once (a service instance's pools). */
  async warm(): Promise<void> {
    const clients = await Promise.all(Array.from({ length: this.options.max }, () => this.connect()));
    for (const c of clients) c.release();
  }

  async connect(): Promise<HostClient> {
    if (this.closed) throw new DatabaseUnavailableError('the database connections are closed');
    const host = await this.selector.current();
    if (this.pool?.host !== host) {
      this.retire();
      this.pool = { host, pool: this.open(host) };
    }
    try {
      const client = (await this.pool.pool.connect()) as unknown as HostClient;
      client.dbHost = host;
      return client;
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      this.selector.lost(host);
      throw new DatabaseUnavailableError(`cannot connect to the database at ${host.host}:${host.port}`, { cause: err });
    }
  }

  /** A statement or connection of this host failed so that the host may be gone or no longer the primary. */
  failed(client: HostClient, err: unknown): void {
    if (isUnavailable(err)) this.selector.lost(client.dbHost);
  }

  async end(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    const pool = this.pool;
    this.pool = undefined;
    await pool?.pool.end();
  }

  /** Ends the pool of a host no longer in use; connections in use end when they are released. */
  private retire(): void {
    const old = this.pool;
    this.pool = undefined;
    old?.pool.end().catch(() => undefined);
  }

  private open(host: HostAddress): pg.Pool {
    const checkWritable = this.selector.target === 'read-write';
    const pool = new pg.Pool({
      connectionString: this.selector.url(host),
      max: this.options.max,
      application_name: this.options.applicationName,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // a machine that vanishes without closing its connections (no RST) is noticed by TCP
      // keepalive: the first probe after 10 s idle, then as the OS sets (docs/deploy.md)
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(this.options.keepConnections ? { idleTimeoutMillis: 0 } : {}),
      // every new connection: the session settings, then (libpq's target_session_attrs=read-write)
      // whether it may write
      onConnect: async (client: pg.ClientBase) => {
        await client.query(SESSION_SETTINGS);
        if (checkWritable && (await isReadOnly(client))) {
          this.selector.lost(host);
          throw new DatabaseUnavailableError(`the database at ${host.host}:${host.port} is read-only (a standby)`);
        }
      },
    });
    pool.on('error', () => undefined); // an idle connection died: the pool drops it, the next query reconnects
    pool.on('connect', (client) => {
      // for the connection's whole life, also while it is checked out: a dead server is an error of
      // the statement that was running, never an unhandled 'error' event that ends the process
      client.on('error', () => {
        (client as unknown as HostClient).lost = true;
      });
      client.on('notice', (notice) => {
        if (isSyncRepCancel(notice)) (client as unknown as HostClient).syncRepCancelled = true;
      });
    });
    return pool;
  }
}
