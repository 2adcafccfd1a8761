/**
 * W2-PROD: bookings as production runs them (issue 55). The service as `npm start` runs it, every
 * job on (bench/server.mjs): its mail worker delivers to a real SMTP server and its webhook worker
 * to a local receiver with one subscription (bench/sink.mjs, a process of its own). 50 consumers
 * from ONE address book distinct capacity-1 slots of ONE resource with 40,128 slots (raster 5, 209
 * days) for 20 s. Measured: bookings/s, A2/A3 latency at the client, the mail's latency from the
 * booking's 201 to the sink accepting it (during the load and until the last mail), where a
 * request's wall time goes (pool wait, PostgreSQL and what its backends wait on, this process), the
 * workers' share of the connections and of PostgreSQL's busy backends, and, replaying the phase's
 * mails and webhook deliveries on the otherwise idle service, the workers' CPU per mail and webhook.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import type { App } from '../src/app.js';
import type { Db } from '../src/storage/db.js';
import { bookingRun, slotCounter, type BookingRun } from './booking.js';
import { cpuMeter, processTicks, TICK_MS } from './cpu.js';
import { grown, metricsOf } from './metrics.js';
import { serviceTime, walMeter } from './long.js';
import { seedBooking, seedHistory, type BookingData } from './seed.js';
import { sampleRss, startChild, stop, type Child } from './service.js';

export const PROD_CONSUMERS = 50;
export const PROD_SECONDS = 20;
/** W2-PROD's one client address */
const PROD_ADDRESS = '10.55.0.1';
/** how long after the last booking the bench waits at most for the last mail */
const DRAIN_CAP_MS = 120_000;
/** targets (issue 55) */
export const PROD_TARGETS = { ofHot: 0.8, quietPerSecond: 350, mailP99Ms: 5000, lastMailMs: 5000, rssMiB: 200 };

const now = () => performance.timeOrigin + performance.now();

/** The delivery sink (bench/sink.mjs): its SMTP server's URL, its webhook URL, and what it received. */
export interface Sink {
  child: Child;
  smtpUrl: string;
  hookUrl: string;
  /** the records from these indexes on: mails as [recipient, accepted at (ms), Message-ID], webhooks' arrivals */
  log(mailsFrom?: number, hooksFrom?: number): Promise<{ mails: [string, number, string][]; hooks: number[] }>;
}

export async function startSink(): Promise<Sink> {
  const child = await startChild(['bench/sink.mjs'], {});
  const { port } = (await (await fetch(`${child.url}/smtp`)).json()) as { port: number };
  return {
    child,
    smtpUrl: `smtp://127.0.0.1:${port}`,
    hookUrl: `${child.url}/hook`,
    log: async (m = 0, h = 0) => (await fetch(`${child.url}/log?mails=${m}&hooks=${h}`)).json(),
  };
}

export const stopSink = (sink: Sink) => stop(sink.child.child);

/** W2-PROD's resource (W2-long's shape), its provider's history, and one webhook subscription to the sink. */
export async function seedProd(app: App, db: Db, hookUrl: string, history: number): Promise<BookingData> {
  const data = await seedBooking(app, db, { resources: 1, days: 209, raster: 5 });
  await seedHistory(app, db, data, history);
  const { crmId, key } = data.partner;
  const res = await app.inject({
    method: 'POST',
    url: `/crms/${crmId}/webhooks`,
    headers: { 'x-service-client-id': key },
    payload: { url: hookUrl, description: 'bench receiver' },
  });
  if (res.statusCode !== 201) throw new Error(`webhook subscription: ${res.statusCode} ${res.body}`);
  return data;
}

/** pg_stat_activity of the bench database, per pool (application_name), state and wait event, summed over samples. */
interface Activity {
  samples: number;
  /** `pool|state|event` -> backend samples */
  counts: Map<string, number>;
}

const ACTIVITY = `
  SELECT COALESCE(NULLIF(application_name, ''), '?') AS pool, COALESCE(state, '?') AS state,
         COALESCE(wait_event_type || ':' || wait_event, 'running') AS event, count(*)::int AS n
    FROM pg_stat_activity
   WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
   GROUP BY 1, 2, 3`;

async function sampleActivity(url: string, everyMs = 50): Promise<() => Promise<Activity>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sum: Activity = { samples: 0, counts: new Map() };
  let running = true;
  const loop = (async () => {
    while (running) {
      const next = Date.now() + everyMs;
      const { rows } = await client.query<{ pool: string; state: string; event: string; n: number }>(ACTIVITY);
      sum.samples++;
      for (const r of rows) {
        const k = `${r.pool}|${r.state}|${r.event}`;
        sum.counts.set(k, (sum.counts.get(k) ?? 0) + r.n);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();
  return async () => {
    running = false;
    await loop;
    await client.end();
    return sum;
  };
}

/** Backend samples matching a filter. */
function count(a: Activity, pool: (p: string) => boolean, state?: string, event?: (e: string) => boolean): number {
  let n = 0;
  for (const [k, v] of a.counts) {
    const [p, s, e] = k.split('|');
    if (pool(p) && (state === undefined || s === state) && (event === undefined || event(e))) n += v;
  }
  return n;
}

/** The PostgreSQL backends of the service's pools (application_name booking*). */
async function poolPids(db: Db): Promise<number[]> {
  const rows = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'booking%'`,
  );
  return rows.map((r) => r.pid);
}

const ticksOf = (pids: number[]) => pids.reduce((n, pid) => n + processTicks(pid), 0);

/** PostgreSQL's own processes that flush and write (WAL writer, checkpointer, background writer). */
function flusherTicks(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (/^postgres: .*(walwriter|checkpointer|background writer)/.test(cmd)) total += processTicks(pid);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/**
 * Waits until the crm's outbox has no PENDING mail and its subscription no PENDING delivery (crm
 * null: no crm's, the earlier phases' mails too); false at the cap.
 */
async function waitForOutbox(db: Db, crmId: string | null, capMs: number): Promise<boolean> {
  const until = Date.now() + capMs;
  while (Date.now() < until) {
    const [{ n }] = await db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM outbox WHERE ($1::text IS NULL OR crm_id = $1) AND status = 'PENDING'
                 AND next_attempt_at < now() + interval '1 hour')
            + (SELECT count(*) FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
                WHERE ($1::text IS NULL OR s.crm_id = $1) AND d.status = 'PENDING') AS n`,
      [crmId],
    );
    if (Number(n) === 0) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Waits until the sink holds `mails` mails and `hooks` webhooks from the given indexes on. */
async function waitForSink(sink: Sink, from: [number, number], want: [number, number], capMs: number) {
  const until = Date.now() + capMs;
  for (;;) {
    const got = await sink.log(...from);
    if ((got.mails.length >= want[0] && got.hooks.length >= want[1]) || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const quantile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
const sortedOf = (v: number[]) => [...v].sort((a, b) => a - b);
const ms = (n: number) => `${n.toFixed(1)} ms`;
const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
const met = (ok: boolean) => (ok ? 'met' : 'MISSED');

export interface ProdRun {
  run: BookingRun;
  mailP99: number;
  lastMailAfterMs: number;
  rssMiB: number;
}

/** The phase (see the top); returns its figures for the comparison with W2-hot. */
export async function runProd(
  db: Db,
  databaseUrl: string,
  service: Child,
  sink: Sink,
  data: BookingData,
  warmUpSeconds: number,
): Promise<ProdRun> {
  const { crmId } = data.partner;
  const take = slotCounter(data);
  const load = { consumers: PROD_CONSUMERS, take, oneAddress: PROD_ADDRESS };
  await bookingRun(service.url, data, { ...load, length: warmUpSeconds });
  // the warm-up's mails and webhooks, and those of the phases before, gone before measuring
  await waitForOutbox(db, null, DRAIN_CAP_MS);
  const seen = await sink.log();
  const from: [number, number] = [seen.mails.length, seen.hooks.length];
  const [{ since }] = await db.query<{ since: Date }>('SELECT now() AS since');

  const bookedAt = new Map<number, number>();
  const steps = { reserve: [] as number[], create: [] as number[] };
  const pids = await poolPids(db);
  const before = await metricsOf(service.url); // also restarts prom-client's event-loop lag histogram
  const stopActivity = await sampleActivity(databaseUrl);
  const stopWal = await walMeter(databaseUrl);
  const peakRss = sampleRss(service.child.pid!);
  const spent = cpuMeter(service.child.pid!);
  const ticks = { backends: ticksOf(pids), flushers: flusherTicks(), sink: processTicks(sink.child.child.pid!) };
  const run = await bookingRun(service.url, data, {
    ...load,
    length: PROD_SECONDS,
    steps,
    onBooked: (n) => bookedAt.set(n, now()),
  });
  const cpu = spent();
  const lag = await metricsOf(service.url); // event-loop lag since the read before the run
  const used = {
    backends: (ticksOf(pids) - ticks.backends) * TICK_MS,
    flushers: (flusherTicks() - ticks.flushers) * TICK_MS,
    sink: (processTicks(sink.child.child.pid!) - ticks.sink) * TICK_MS,
  };
  const after = await metricsOf(service.url);
  const activity = await stopActivity();
  const atLoadEnd = await sink.log(...from);
  const [{ mails: written, hooks: queued }] = await db.query<{ mails: number; hooks: number }>(
    `SELECT (SELECT count(*) FROM outbox WHERE crm_id = $1 AND created_at >= $2)::int AS mails,
            (SELECT count(*) FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
              WHERE s.crm_id = $1 AND d.created_at >= $2)::int AS hooks`,
    [crmId, since],
  );
  const drained = await waitForOutbox(db, crmId, DRAIN_CAP_MS);
  const received = await waitForSink(sink, from, [written, queued], 2000);
  const rss = peakRss();
  const wal = await stopWal();

  // mail latency: the first mail to each consumer booked in the phase, from its 201 to the sink's 250
  const firstTo = new Map<string, number>();
  const perMessage = new Map<string, number>();
  for (const [to, at, id] of received.mails) {
    if (!firstTo.has(to)) firstTo.set(to, at);
    perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
  }
  const latencies: number[] = [];
  let unmailed = 0;
  for (const [n, at] of bookedAt) {
    const accepted = firstTo.get(`consumer-${n}@bench.example`);
    if (accepted === undefined) unmailed++;
    else latencies.push(accepted - at);
  }
  const lat = sortedOf(latencies);
  const lastBooking = Math.max(...bookedAt.values());
  const lastMail = Math.max(...received.mails.map((m) => m[1]));
  const twice = [...perMessage.values()].filter((n) => n > 1).length;

  const a2 = sortedOf(steps.reserve);
  const a3 = sortedOf(steps.create);
  console.log(
    `    completed bookings: ${run.booked} in ${run.seconds.toFixed(1)} s = ${run.perSecond.toFixed(0)} ` +
      `bookings/s; errors ${run.errors}, failed steps ${JSON.stringify(run.failures)}`,
  );
  console.log(
    `    A2 reserve: p50 ${ms(quantile(a2, 0.5))}  p99 ${ms(quantile(a2, 0.99))};  ` +
      `A3 create: p50 ${ms(quantile(a3, 0.5))}  p99 ${ms(quantile(a3, 0.99))}  (at the client)`,
  );
  console.log(
    `    mail    : ${written} mails and ${queued} webhook deliveries written in the phase ` +
      `(${(written / Math.max(1, run.booked)).toFixed(2)} and ${(queued / Math.max(1, run.booked)).toFixed(2)} ` +
      `per booking); at the load's end the sink had ${atLoadEnd.mails.length} mails and ` +
      `${atLoadEnd.hooks.length} webhooks; in the end ${received.mails.length} and ${received.hooks.length}` +
      `${drained ? '' : ` (NOT drained after ${DRAIN_CAP_MS / 1000} s)`}`,
  );
  console.log(
    `    mail latency, 201 to the sink's 250 (the consumer's mail, ${lat.length} of ${bookedAt.size} bookings; ` +
      `${unmailed} without): p50 ${ms(quantile(lat, 0.5))}  p99 ${ms(quantile(lat, 0.99))}  ` +
      `max ${ms(lat[lat.length - 1] ?? NaN)}; last mail ${ms(lastMail - lastBooking)} after the last booking; ` +
      `mails received twice: ${twice}`,
  );
  printBreakdown(run, before, after, activity, cpu, used, wal);
  const lagMs = (p: number) => ms((lag.get(`nodejs_eventloop_lag_p${p}_seconds`) ?? NaN) * 1000);
  console.log(
    `    the service's event loop: lag p50 ${lagMs(50)}  p99 ${lagMs(99)} (prom-client, 10 ms resolution): ` +
      `what every await of a request and of a worker waits for besides its own work`,
  );
  console.log(
    `    CPU (this run, not the replay): sink ` +
      `${ms(used.sink / Math.max(1, received.mails.length + received.hooks.length))} ` +
      `per mail or webhook received; service RSS peak ${rss.toFixed(0)} MiB`,
  );
  await replay(db, service, sink, crmId, since);
  return {
    run,
    mailP99: quantile(lat, 0.99),
    lastMailAfterMs: lastMail - lastBooking,
    rssMiB: rss,
  };
}

/** Where the phase's time went: the requests' wall time, PostgreSQL's backends, the pools, CPU. */
function printBreakdown(
  run: BookingRun,
  before: Map<string, number>,
  after: Map<string, number>,
  a: Activity,
  cpu: ReturnType<ReturnType<typeof cpuMeter>>,
  used: { backends: number; flushers: number },
  wal: { bytes: number; flushes: number },
) {
  const time = serviceTime(before, after);
  const d = grown(before, after);
  const pool = (name: string, p: string) => d.get(`${name}{pool="${p}"}`) ?? 0;
  const per = (x: number) => x / Math.max(1, time.requests);
  const perBooking = (x: number) => x / Math.max(1, run.booked);
  const requestsPool = (p: string) => p === 'booking';
  const jobsPool = (p: string) => p === 'booking-jobs' || p === 'booking-mail';
  const anyPool = (p: string) => p.startsWith('booking');
  // a request's PostgreSQL time by what its backend was doing while active
  const active = count(a, requestsPool, 'active');
  const share = (e: (ev: string) => boolean) => (active ? count(a, requestsPool, 'active', e) / active : 0);
  const lock = share((e) => e.startsWith('Lock:'));
  const walWait = share((e) => /WAL|XactSync|SyncRep/i.test(e));
  const lwlock = share((e) => e.startsWith('LWLock:') && !/WAL/.test(e));
  const io = share((e) => e.startsWith('IO:') && !/WAL/.test(e));
  const running = share((e) => e === 'running');
  const pgMs = per(time.statementMs);
  const rest = per(time.requestMs) - per(time.poolWaitMs) - pgMs;
  console.log(
    `    a request's wall time (A2 and A3 alike, ${time.requests} requests): at the client ${ms(run.mean)} mean; ` +
      `in the service ${ms(per(time.requestMs))} = pool wait ${ms(per(time.poolWaitMs))} + PostgreSQL ` +
      `${ms(pgMs)} + this process ${ms(rest)} (JavaScript and waiting for its event loop)`,
  );
  console.log(
    `      PostgreSQL's part by its backends' samples (${a.samples} samples every 50 ms): running ` +
      `${ms(pgMs * running)}, lock waits ${ms(pgMs * lock)}, WAL/commit flush ${ms(pgMs * walWait)}, ` +
      `other LWLocks ${ms(pgMs * lwlock)}, data IO ${ms(pgMs * io)}, round trips and the rest ` +
      `${ms(pgMs * (1 - running - lock - walWait - lwlock - io))}`,
  );
  const top = [...a.counts]
    .filter(([k]) => k.split('|')[1] === 'active')
    .sort((x, y) => y[1] - x[1])
    .slice(0, 6)
    .map(([k, n]) => `${k.replace(/\|active\|/, ' ')} ${(n / a.samples).toFixed(2)}`)
    .join(', ');
  console.log(`      busy backends per sample by pool and event: ${top}`);
  const conns = (p: (x: string) => boolean) => count(a, p) / Math.max(1, a.samples);
  const busy = (p: (x: string) => boolean) => count(a, p, 'active') / Math.max(1, a.samples);
  const inTx = (p: (x: string) => boolean) => count(a, p, 'idle in transaction') / Math.max(1, a.samples);
  console.log(
    `    connections: requests ${conns(requestsPool).toFixed(0)} (busy ${busy(requestsPool).toFixed(2)}, ` +
      `idle in a transaction ${inTx(requestsPool).toFixed(2)}), jobs and mail thread ${conns(jobsPool).toFixed(0)} ` +
      `(busy ${busy(jobsPool).toFixed(2)}, idle in a transaction ${inTx(jobsPool).toFixed(2)}), all pools ` +
      `${conns(anyPool).toFixed(0)}; the workers' share of busy backends ` +
      `${pct(busy(jobsPool) / Math.max(1e-9, busy(anyPool)))}`,
  );
  console.log(
    `    statements per booking: requests ${perBooking(pool('db_statements_total', 'requests')).toFixed(1)}, ` +
      `jobs ${perBooking(pool('db_statements_total', 'jobs')).toFixed(1)}, listing ` +
      `${perBooking(pool('db_statements_total', 'listing')).toFixed(1)}; jobs pool wait ` +
      `${ms(perBooking(pool('db_pool_wait_seconds_total', 'jobs') * 1000))} and statements ` +
      `${ms(perBooking(pool('db_query_seconds_total', 'jobs') * 1000))} per booking`,
  );
  console.log(
    `    CPU per booking: service ${ms(perBooking(cpu.serviceMs))}, PostgreSQL ${ms(perBooking(cpu.postgresMs))} ` +
      `(every postgres process on the machine; this database's pool backends ${ms(perBooking(used.backends))}, ` +
      `WAL writer, checkpointer and background writer ${ms(perBooking(used.flushers))}), bench client ` +
      `${ms(perBooking(cpu.benchMs))}; WAL ${(wal.flushes / Math.max(1, run.booked)).toFixed(2)} flushes and ` +
      `${(wal.bytes / Math.max(1, run.booked) / 1024).toFixed(1)} KiB per booking`,
  );
}

/**
 * The workers' CPU, measured apart from the requests': the phase's mails and then its webhook
 * deliveries made due again on the otherwise idle service, its CPU and PostgreSQL's until the sink
 * has them all (they arrive twice at the sink; the phase's figures were taken before).
 */
async function replay(db: Db, service: Child, sink: Sink, crmId: string, since: Date) {
  for (const kind of ['mail', 'webhook'] as const) {
    const seen = await sink.log();
    const from: [number, number] = [seen.mails.length, seen.hooks.length];
    const pids = await poolPids(db);
    const ticks = ticksOf(pids);
    const spent = cpuMeter(service.child.pid!);
    const started = now();
    const rows =
      kind === 'mail'
        ? await db.query(
            `UPDATE outbox SET status = 'PENDING', sent_at = NULL, next_attempt_at = now()
              WHERE crm_id = $1 AND created_at >= $2 AND status = 'SENT' RETURNING id`,
            [crmId, since],
          )
        : await db.query(
            `UPDATE webhook_deliveries d SET status = 'PENDING', next_attempt_at = now() FROM webhook_subscriptions s
              WHERE s.id = d.subscription_id AND s.crm_id = $1 AND d.created_at >= $2 AND d.status = 'SUCCEEDED'
             RETURNING d.event_id`,
            [crmId, since],
          );
    const want: [number, number] = kind === 'mail' ? [rows.length, 0] : [0, rows.length];
    const got = await waitForSink(sink, from, want, DRAIN_CAP_MS);
    const seconds = (now() - started) / 1000;
    const cpu = spent();
    const backends = (ticksOf(pids) - ticks) * TICK_MS;
    const n = kind === 'mail' ? got.mails.length : got.hooks.length;
    console.log(
      `    workers' CPU per ${kind} (the phase's ${rows.length} replayed on the idle service: ${n} arrived in ` +
        `${seconds.toFixed(1)} s = ${(n / seconds).toFixed(0)}/s): service ${ms(cpu.serviceMs / Math.max(1, n))}, ` +
        `its PostgreSQL backends ${ms(backends / Math.max(1, n))}`,
    );
  }
}

/** The targets' lines (issue 55), against W2-hot of the same run when it ran. */
export function printProdTargets(prod: ProdRun, hotPerSecond: number | undefined) {
  const t = PROD_TARGETS;
  const ratio = hotPerSecond ? prod.run.perSecond / hotPerSecond : NaN;
  console.log(
    `    targets : ${
      hotPerSecond
        ? `>= ${t.ofHot}x W2-hot (${hotPerSecond.toFixed(0)}/s): ${ratio.toFixed(2)}x ${met(ratio >= t.ofHot)}; `
        : ''
    }` +
      `>= ${t.quietPerSecond} bookings/s: ${met(prod.run.perSecond >= t.quietPerSecond)}; mail p99 <= 5 s: ` +
      `${met(prod.mailP99 <= t.mailP99Ms)}; last mail <= 5 s after the last booking: ` +
      `${met(prod.lastMailAfterMs <= t.lastMailMs)}; peak RSS < ${t.rssMiB} MiB: ${met(prod.rssMiB < t.rssMiB)}`,
  );
}
