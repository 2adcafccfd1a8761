/**
 * W2-long: 50 consumers reserving and booking distinct capacity-1 slots of ONE resource whose
 * calendar is long (06:00-22:00 at raster 5: 192 slots a day, 209 days: 40,128 slots), and the
 * same booking at three calendar sizes to show that no cost grows with the calendar. Prints where a
 * booking's wall time goes (the service's own request metrics and its pool's timers) and, when
 * PostgreSQL has pg_stat_statements loaded, its statements per booking.
 */
import pg from 'pg';
import type { App } from '../src/app.js';
import type { Db } from '../src/storage/db.js';
import { bookingRun, slotCounter, type BookingRun } from './booking.js';
import { cpuMeter, type CpuSpent } from './cpu.js';
import { grown, metricsOf } from './metrics.js';
import { seedBooking, type BookingData } from './seed.js';

export const LONG_CONSUMERS = 50;
export const LONG_SECONDS = 20;
/** calendar sizes compared, in slots (rounded up to whole days of 192) */
export const LONG_SIZES = [1_000, 10_000, 40_000];
/** bookings per size and round; rounds take turns in opposite orders, each on a fresh resource */
export const SIZE_BOOKINGS = 800;
export const SIZE_ROUNDS = 2;
const SLOTS_PER_DAY = 192;

const daysFor = (slots: number) => Math.ceil(slots / SLOTS_PER_DAY);
export const longSlots = (data: BookingData) => data.dayStartsMs.length * data.slotsPerDay;

export interface LongData {
  main: BookingData;
  /** per round, per size (LONG_SIZES' order) */
  rounds: BookingData[][];
}

export async function seedLong(app: App, db: Db): Promise<LongData> {
  const shape = (slots: number) => ({ resources: 1, days: daysFor(slots), raster: 5 });
  const main = await seedBooking(app, db, shape(40_000));
  const rounds: BookingData[][] = [];
  for (let r = 0; r < SIZE_ROUNDS; r++) {
    const round: BookingData[] = [];
    for (const size of LONG_SIZES) round.push(await seedBooking(app, db, shape(size)));
    rounds.push(round);
  }
  return { main, rounds };
}

/** A run's statements as pg_stat_statements saw them: top-level ones, and the heaviest at any level. */
export interface StatementStats {
  calls: number;
  execMs: number;
  buffers: number;
  top: { query: string; calls: number; execMs: number; buffers: number; toplevel: boolean }[];
}

/**
 * pg_stat_statements of the bench database, when PostgreSQL loads it (shared_preload_libraries):
 * reset before a run, read after it; nested statements (inside claim_place, book_hold, triggers)
 * are tracked too.
 */
export async function statementStats(
  databaseUrl: string,
): Promise<{ reset(): Promise<void>; read(): Promise<StatementStats>; close(): Promise<void> } | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ loaded: string }>(
    `SELECT current_setting('shared_preload_libraries') AS loaded`,
  );
  if (!/pg_stat_statements/.test(rows[0].loaded)) {
    await client.end();
    return null;
  }
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await client.query(`SET pg_stat_statements.track = 'all'`);
  const db = `(SELECT oid FROM pg_database WHERE datname = current_database())`;
  return {
    reset: async () => void (await client.query(`SELECT pg_stat_statements_reset(0, ${db}, 0)`)),
    read: async () => {
      const [sum] = (
        await client.query<{ calls: number; exec: number; buffers: number }>(
          `SELECT sum(calls)::float8 AS calls, sum(total_exec_time)::float8 AS exec,
             sum(shared_blks_hit + shared_blks_read)::float8 AS buffers
             FROM pg_stat_statements WHERE dbid = ${db} AND toplevel
               AND query !~* 'pg_stat_statements|pg_stat_activity'`,
        )
      ).rows;
      const top = (
        await client.query<{ query: string; calls: number; exec: number; buffers: number; toplevel: boolean }>(
          `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, toplevel, sum(calls)::float8 AS calls,
             sum(total_exec_time)::float8 AS exec,
                  sum(shared_blks_hit + shared_blks_read)::float8 AS buffers
             FROM pg_stat_statements WHERE dbid = ${db} AND query !~* 'pg_stat_statements|pg_stat_activity'
            GROUP BY 1, 2 ORDER BY 4 DESC LIMIT 30`,
        )
      ).rows;
      return {
        calls: sum.calls ?? 0,
        execMs: sum.exec ?? 0,
        buffers: sum.buffers ?? 0,
        top: top.map((t) => ({
          query: t.query,
          calls: t.calls,
          execMs: t.exec,
          buffers: t.buffers,
          toplevel: t.toplevel,
        })),
      };
    },
    close: () => client.end(),
  };
}

/**
 * A run's wall time inside the service, from its metrics: requests,
 * their time, and the requests pool's waits and statements.
 */
export interface ServiceTime {
  requests: number;
  requestMs: number;
  /** in-service mean per route: reserve (A2) and create (A3) */
  meanMs: { reserve: number; create: number };
  poolWaitMs: number;
  statementMs: number;
  statements: number;
}

const BOOKING_ROUTES = new RegExp(
  /^http_request_duration_seconds_(sum|count)\{method="POST",/.source +
    /route="[^"]*(reserve_appointment|create_appointment_with_consumer)"/.source,
);

export function serviceTime(before: Map<string, number>, after: Map<string, number>): ServiceTime {
  const d = grown(before, after);
  let requests = 0;
  let requestS = 0;
  const route = { reserve: { n: 0, s: 0 }, create: { n: 0, s: 0 } };
  for (const [k, v] of d) {
    const m = BOOKING_ROUTES.exec(k);
    if (!m) continue;
    const r = route[m[2] === 'reserve_appointment' ? 'reserve' : 'create'];
    if (m[1] === 'count') {
      requests += v;
      r.n += v;
    } else {
      requestS += v;
      r.s += v;
    }
  }
  const meanMs = {
    reserve: (1000 * route.reserve.s) / Math.max(1, route.reserve.n),
    create: (1000 * route.create.s) / Math.max(1, route.create.n),
  };
  const pool = (name: string) => d.get(`${name}{pool="requests"}`) ?? 0;
  return {
    requests,
    requestMs: requestS * 1000,
    meanMs,
    poolWaitMs: pool('db_pool_wait_seconds_total') * 1000,
    statementMs: pool('db_query_seconds_total') * 1000,
    statements: pool('db_statements_total'),
  };
}

export interface LongRun {
  run: BookingRun;
  cpu: CpuSpent;
  time: ServiceTime;
  stats: StatementStats | null;
}

/** One measured run: bookings for `length`, with the service's CPU, its timers and PostgreSQL's statements. */
export async function longRun(
  url: string,
  servicePid: number,
  stats: Awaited<ReturnType<typeof statementStats>>,
  data: BookingData,
  length: number | { bookings: number },
  take = slotCounter(data),
): Promise<LongRun> {
  await stats?.reset();
  const before = await metricsOf(url);
  const spent = cpuMeter(servicePid);
  const run = await bookingRun(url, data, { consumers: LONG_CONSUMERS, length, take });
  const cpu = spent();
  const time = serviceTime(before, await metricsOf(url));
  return { run, cpu, time, stats: stats ? await stats.read() : null };
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

/** Where the wall time of the run's booking requests went. */
export function printWallTime({ run, time }: LongRun): void {
  const per = (x: number) => x / Math.max(1, time.requests);
  const rest = per(time.requestMs) - per(time.poolWaitMs) - per(time.statementMs);
  console.log(`    a request's wall time (reserve and create alike; ${time.requests} in the service's metrics):`);
  console.log(
    `      at the client ${ms(run.mean)} mean; in the service ${ms(per(time.requestMs))} ` +
      `= pool wait ${ms(per(time.poolWaitMs))} + PostgreSQL ${ms(per(time.statementMs))} ` +
      `(${per(time.statements).toFixed(1)} statements, round trips included) + the rest ${ms(rest)} ` +
      `(this process: JavaScript, and waiting for its event loop)`,
  );
  console.log(`      in the service by step: reserve ${ms(time.meanMs.reserve)}, create ${ms(time.meanMs.create)}`);
  console.log(
    `      outside the service: ${ms(run.mean - per(time.requestMs))} (sockets, the kernel, ` +
      `the bench client on the same cores)`,
  );
}

export function printStatements(label: string, stats: StatementStats, bookings: number, nested = 4): void {
  const per = (x: number) => (bookings ? x / bookings : NaN);
  console.log(
    `    statements ${label}: ${per(stats.calls).toFixed(1)} top-level per booking, ` +
      `${ms(per(stats.execMs))} executing, ${per(stats.buffers).toFixed(0)} buffers; heaviest top-level, ` +
      `then nested (per booking calls / ms / buffers):`,
  );
  const line = (t: StatementStats['top'][number]) =>
    console.log(
      `      ${per(t.calls).toFixed(2).padStart(6)} ${per(t.execMs).toFixed(3).padStart(7)} ` +
        `${per(t.buffers).toFixed(0).padStart(5)}  ${t.query.slice(0, 110)}`,
    );
  stats.top
    .filter((t) => t.toplevel)
    .slice(0, 4)
    .forEach(line);
  console.log('      nested:');
  stats.top
    .filter((t) => !t.toplevel)
    .slice(0, nested)
    .forEach(line);
}

/**
 * WAL written and flushed (fsync) while a run lasts, from pg_stat_wal and the WAL position. The
 * flushes are what a synchronous commit waits for; PostgreSQL publishes a backend's counts at most
 * every second, and an idle backend's within 10 s, so the reading waits 11 s.
 */
export async function walMeter(databaseUrl: string): Promise<() => Promise<{ bytes: number; flushes: number }>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const read = async () =>
    (
      await client.query<{ lsn: string; flushes: number }>(
        `SELECT pg_current_wal_lsn()::text AS lsn, wal_sync::float8 AS flushes FROM pg_stat_wal`,
      )
    ).rows[0];
  const before = await read();
  return async () => {
    await new Promise((r) => setTimeout(r, 11_000));
    const after = await read();
    const [{ bytes }] = (
      await client.query<{ bytes: number }>(`SELECT pg_wal_lsn_diff($1, $2)::float8 AS bytes`, [after.lsn, before.lsn])
    ).rows;
    await client.end();
    return { bytes, flushes: after.flushes - before.flushes };
  };
}
