/**
 * npm run bench: the service as `npm start` runs it (compiled, its own process) on a temporary
 * PostgreSQL database of the local server (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/postgres), seeded through the partner API:
 *  W1      A1 on a busy resource, cached and uncached, against its bare-Fastify ceiling; RSS
 *  W2      50 consumers reserving and booking distinct slots of 25 resources for 20 s
 *  W2-hot  50 consumers on distinct slots of ONE resource for 20 s
 *  W2-long 50 consumers on distinct slots of ONE resource with 40,128 capacity-1 slots over 209 days
 *          for 20 s: where a booking's wall time and CPU go; then 800 bookings at 1,000, 10,000 and
 *          40,000 slots, twice taking turns, with PostgreSQL's statements per booking (pg_stat_statements)
 *  W2-ONEIP  the same with every consumer on ONE client address (a campus, an office, a carrier's
 *          NAT, a proxy without TRUST_PROXY), against W2-hot's bookings/s; both print the share
 *          of busy PostgreSQL backends waiting on locks (pg_stat_activity sampled every 100 ms)
 *  W2-PROD 50 consumers from ONE address on W2-long's 40,128-slot resource for 20 s, its provider with one
 *          webhook subscription: bookings/s, A2/A3, the mails' latency to the SMTP sink and where the
 *          time goes, the workers' CPU per mail and webhook (bench/prod.ts); against W2-hot when both run
 *  W3      12 clients of mixed partner writes on one provider with 25 resources while 25 consumers book
 *  FEED    the calendar feed of W1's resource polled by 10 connections: full answers, then 304s
 *  COLD    100 times in a row: one booking on W1's listing (20 places a slot), then the first A1 after it
 *  RUSH    that listing (A1, br/gzip welcome) polled by 20 viewers while 20 consumers book its places, 15 s
 *  EDGE    that listing through nginx with deploy/nginx.conf: 200 viewers (br) polling it every 100 ms
 *          while 20 consumers book its places, 15 s; the service's A1 requests/s and the listing's
 *          age at the viewers (bench/edge.ts)
 *  CALENDAR  a 5 MiB calendar (2,000 events, 500 recurring) read and expanded 400 days ahead, in this process
 *  BUSY    the cold A1 of W1-shaped resources taking turns, without and with 500 busy times (closures), 100 each
 *  W1-CACHED  W1's listing from the cache, 50 connections, uncompressed and br, against a plain
 *          node:http server sending the same bytes; the build in BENCH_SERVICE_DIR (any commit's), seeded over HTTP
 *  RETENTION  100,000 participations on W2-hot's resource that ended over 30 days ago (each with its
 *          consumer, mails and a webhook event) erased by the retention job while W2-hot's workload
 *          books, against the same workload without the job before and after
 *  FAILOVER  consumers booking while the primary of two private clusters (a synchronous standby) is
 *          killed -9 and the standby promoted: bookings acknowledged, lost, ms to the first 201, 503s
 *          (bench/failover.ts; its own clusters and service process); runs last
 * The service runs as `npm start` does, every job on: mail to an SMTP sink, webhooks to a local receiver
 * (bench/sink.mjs, a process of its own). Each booking workload's provider (RUSH's and COLD's too)
 * also has a history of 20,000 past consumers
 * and bookings. COLD, RUSH and EDGE share their resource; COLD runs first, on the quiet service.
 * Only a part: `npm run bench -- W2-hot W3` (names as above).
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { compactListingChanges } from '../src/listing/listingCompactor.js';
import { testConfig } from '../src/config.js';
import { openDb, type Db } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrate.js';
import { cpuMeter, type CpuSpent } from './cpu.js';
import { grown, metricsOf } from './metrics.js';
import { addWaits, noWaits, sampleWaits, waitShares, type WaitCounts } from './waits.js';
import { bookingRun, overbookingCheck, slotCounter, type BookingRun } from './booking.js';
import { COLD_BOOKINGS, coldRun } from './cold.js';
import { BUSY_ROUNDS, busyRun } from './busy.js';
import { POOL_MEMBERS, POOL_ROUNDS, poolsRun, seedPools, type PoolsData } from './pools.js';
import { calendarExpandPhase } from './calendarExpand.js';
import { FEED_CONNECTIONS, FEED_SECONDS, feedRun } from './feed.js';
import { mixedRun } from './mixed.js';
import {
  LONG_CONSUMERS,
  LONG_SECONDS,
  LONG_SIZES,
  longRun,
  longSlots,
  printStatements,
  printWallTime,
  seedLong,
  SIZE_BOOKINGS,
  SIZE_ROUNDS,
  statementStats,
  walMeter,
  type LongData,
  type LongRun,
} from './long.js';
import { printProdTargets, runProd, seedProd, startSink, stopSink, type Sink } from './prod.js';
import { RUSH_BOOKERS, RUSH_SECONDS, RUSH_VIEWERS, rushRun } from './rush.js';
import { EDGE_BOOKERS, EDGE_POLL_MS, EDGE_SECONDS, EDGE_VIEWERS, edgeRun } from './edge.js';
import {
  seedBooking,
  seedBusy,
  seedHistory,
  seedRush,
  seedTraces,
  seedW1,
  type BookingData,
  type BusyData,
} from './seed.js';
import { rssMiB, sampleRss, startChild, startFlags, stop, type Child } from './service.js';
import { W1_CONNECTIONS, W1_SECONDS, w1 } from './w1.js';
import { CACHED_CONNECTIONS, CACHED_SECONDS, cachedRun } from './cached.js';
import { median } from './stats.js';
import { failoverRun, printFailover } from './failover.js';

const ADMIN_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** past consumers (and bookings) each booking workload's provider has, as in a database in service */
const HISTORY = 20_000;
const WORKLOADS = [
  'W1',
  'W1-CACHED',
  'W2',
  'W2-hot',
  'W2-long',
  'W2-ONEIP',
  'W2-PROD',
  'W3',
  'FEED',
  'COLD',
  'RUSH',
  'EDGE',
  'BUSY',
  'POOLS',
  'CALENDAR',
  'RETENTION',
  'FAILOVER',
];
/** seconds of unmeasured booking before W2-hot and W2-ONEIP taking turns, when no workload booked before */
const WARM_UP_SECONDS = 5;
/** W2-ONEIP's one client address */
const ONE_ADDRESS = '10.38.0.1';
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : WORKLOADS;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  await c.query(sql);
  await c.end();
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const met = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** Peak RSS targets of the service per phase, MiB (issue 37). */
const RSS_TARGETS_MIB: Record<string, number> = { W1: 150, RUSH: 200 };

/**
 * Runs a phase while sampling the service's RSS every 100 ms, then
 * prints the peak (against the phase's target, if it has one).
 */
async function rssDuring<T>(service: Child, phase: string, run: () => Promise<T>): Promise<T> {
  const peakRss = sampleRss(service.child.pid!);
  const result = await run();
  const rss = peakRss();
  const target = RSS_TARGETS_MIB[phase];
  console.log(
    `    service RSS: peak ${rss.toFixed(0)} ` +
      `MiB during ${phase}${target ? `; target < ${target} (MiB): ${met(rss < target)}` : ''}`,
  );
  return result;
}

async function runW1(service: Child, data: Awaited<ReturnType<typeof seedW1>>) {
  console.log(
    `\nW1  GET upcoming_bookables?prdRef (28 days 08:00-18:00, raster 30, 150 appointments), ` +
      `${W1_CONNECTIONS} connections, ${W1_SECONDS} s`,
  );
  const r = await w1(service.url, service.child.pid!, data);
  console.log(
    `    response: ${r.status}, ${r.items} bookables (${r.lots} LotAppointments), ${(r.bytes / 1024).toFixed(0)} KiB`,
  );
  console.log(
    `    service : p50 ${ms(r.service.p50)}  p99 ${ms(r.service.p99)}  ${r.service.rps.toFixed(0)} ` +
      `req/s  (non-2xx ${r.service.non2xx}, errors ${r.service.errors}); ` +
      `CPU ${(r.service.cpuMsPerRequest * 1000).toFixed(0)} µs per request`,
  );
  console.log(
    `    uncached: p50 ${ms(r.computed.p50)}  p99 ${ms(r.computed.p99)}  ${r.computed.rps.toFixed(0)} ` +
      `req/s  (every request computes the listing: cache miss forced); ` +
      `CPU ${(r.computed.cpuMsPerRequest * 1000).toFixed(0)} µs per request`,
  );
  console.log(
    `    ceiling : p50 ${ms(r.ceiling.p50)}  p99 ${ms(r.ceiling.p99)}  ${r.ceiling.rps.toFixed(0)} ` +
      `req/s  (bare Fastify, same bytes); CPU ${(r.ceiling.cpuMsPerRequest * 1000).toFixed(0)} µs per request`,
  );
  const share = r.service.rps / r.ceiling.rps;
  console.log(
    `    targets : p99 <= 20 ms: ${met(r.service.p99 <= 20)}; >= 70 % of ceiling: ` +
      `${(share * 100).toFixed(0)} % ${met(share >= 0.7)}`,
  );
}

async function runBusy(service: Child, data: BusyData) {
  console.log(
    `\nBUSY  ${BUSY_ROUNDS} times each, taking turns: a change to the listing, ` +
      `then ONE cold A1 of a W1-shaped resource (28 days 08:00-18:00, raster 30, 150 appointments), ` +
      `without and with ${data.busyIntervals} busy times (closures at night)`,
  );
  for (const kind of ['appointment', 'closure'] as const) {
    const [plain, busy] = await busyRun(service.url, data, kind);
    const after =
      kind === 'appointment'
        ? 'an appointment (as after a booking: the changed appointments are read)'
        : 'a closure (nothing named: everything is read again)';
    console.log(`  after ${after}`);
    for (const side of [plain, busy])
      console.log(
        `    ${side.name.padEnd(24)}: p50 ${ms(side.p50)}  p99 ${ms(side.p99)}  (non-200 ${side.failed}; ` +
          `${(side.bytes / 1024).toFixed(0)} KiB)`,
      );
    const ratio = busy.p50 / plain.p50;
    console.log(
      `    ${kind === 'appointment' ? 'targets ' : 'figure  '}: ` +
        `p50 with busy times ${ratio.toFixed(2)}x ` +
        `without${kind === 'appointment' ? ` (within 20 %: ${met(ratio <= 1.2)})` : ''}`,
    );
  }
}

async function runPools(service: Child, data: PoolsData) {
  console.log(
    `\nPOOLS  ${POOL_ROUNDS} times each, taking turns: a booking, then ONE cold A1 (the first read after it) ` +
      `of one W1-shaped resource, and of a pool of ${POOL_MEMBERS} such members`,
  );
  const before = await metricsOf(service.url);
  const [single, pool] = await poolsRun(service.url, service.child.pid!, data);
  const reads = grown(before, await metricsOf(service.url));
  const read = (kind: string) => reads.get(`booking_listing_reads_total{read="${kind}"}`) ?? 0;
  for (const side of [single, pool])
    console.log(
      `    ${side.name.padEnd(14)}: p50 ${ms(side.p50)}  p99 ${ms(side.p99)}  (non-200 ${side.failed}; ` +
        `${(side.bytes / 1024).toFixed(0)} KiB on the wire; service CPU ${side.cpuMsPerRead.toFixed(1)} ms per read)`,
    );
  // a cold A1 after a booking reads only the changed appointments; "full" reads every member's data anew
  console.log(
    `    reads   : changes ${read('changes')}, full ${read('full')}, versions ${read('versions')} ` +
      `(listing reads in the phase, both sides)`,
  );
  const ratio = pool.p50 / single.p50;
  console.log(`    target  : pool p50 ${ratio.toFixed(2)}x one resource's (at most 2x: ${met(ratio <= 2)})`);
}

async function runFeed(service: Child, data: Awaited<ReturnType<typeof seedW1>>) {
  console.log(
    `\nFEED  GET the calendar feed of W1's resource (28 days, 150 appointments), ${FEED_CONNECTIONS} ` +
      `connections, ${FEED_SECONDS} s`,
  );
  const r = await feedRun(service.url, data);
  console.log(
    `    response: ${r.status}, ${r.events} events, ${(r.bytes / 1024).toFixed(0)} KiB; ` +
      `first request (renders): ${ms(r.coldMs)}`,
  );
  console.log(
    `    full    : p50 ${ms(r.full.p50)}  p99 ${ms(r.full.p99)}  ${r.full.rps.toFixed(0)} ` +
      `req/s  (non-2xx ${r.full.non2xx}, errors ${r.full.errors})`,
  );
  console.log(
    `    304     : p50 ${ms(r.notModified.p50)}  p99 ` +
      `${ms(r.notModified.p99)}  ${r.notModified.rps.toFixed(0)} req/s  (If-None-Match with the ETag; ` +
      `non-2xx here are the 304s: ${r.notModified.non2xx})`,
  );
}

function printBooked(r: BookingRun) {
  console.log(
    `    completed bookings: ${r.booked} in ${r.seconds.toFixed(1)} s = ${r.perSecond.toFixed(0)} ` +
      `bookings/s  (requests p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, longest ${ms(r.max)}; errors ${r.errors})`,
  );
  console.log(`    failed steps: ${JSON.stringify(r.failures)}`);
}

/** Prints the overbooking check of the data's resources; true when clean. */
async function printOverbooking(db: Db, data: BookingData): Promise<boolean> {
  const check = await overbookingCheck(db, data.resourceUuids);
  console.log(
    `    overbooking check: ${check.appointments} appointments, ${check.booked} BOOKED participations, ` +
      `${check.overbooked} over capacity, ${check.overlapping} overlapping appointments`,
  );
  return check.overbooked === 0 && check.overlapping === 0;
}

async function printBookings(db: Db, [r, cpu]: [BookingRun, CpuSpent], data: BookingData, target: number | null) {
  printBooked(r);
  const per = (spent: number) => (r.booked ? spent / r.booked : NaN);
  const total = per(cpu.serviceMs) + per(cpu.postgresMs) + per(cpu.benchMs);
  console.log(
    `    CPU per booking: service ${ms(per(cpu.serviceMs))}, PostgreSQL ${ms(per(cpu.postgresMs))}, ` +
      `bench client ${ms(per(cpu.benchMs))} = ${ms(total)} (${cpus().length} cores: ` +
      `at most ${((cpus().length * 1000) / total).toFixed(0)} bookings/s with the client on the same machine)`,
  );
  const clean = await printOverbooking(db, data);
  console.log(
    `    targets : ${target ? `>= ${target} bookings/s: ${met(r.perSecond >= target)}; ` : ''}zero ` +
      `overbookings: ${met(clean)}`,
  );
}

type Take = ReturnType<typeof slotCounter>;

async function runCold(service: Child, data: BookingData, take: Take) {
  console.log(
    `\nCOLD  ${COLD_BOOKINGS} times in a row: one booking (reserve + create) ` +
      `on ONE resource (28 days 08:00-18:00, raster 30, 20 places a slot), then ONE A1 (accept-encoding: br, gzip)`,
  );
  const r = await coldRun(service.url, data, take);
  console.log(
    `    cold A1 : p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  longest ${ms(r.max)}  (non-200 ${r.failed}; ` +
      `Content-Encoding seen: ${r.encodings.join(', ')})`,
  );
  const comparedBy =
    r.withETag === r.n
      ? 'ETag'
      : r.withETag
        ? `ETag, by body where it had none (${r.n - r.withETag})`
        : 'body: no ETag';
  console.log(
    `    changed : ${r.differed} of ${r.n} answers differed from the previous one (compared by ${comparedBy}); ` +
      `failed bookings ${r.failedBookings}`,
  );
  console.log(`    targets : cold A1 p50 <= 10 ms: ${met(r.p50 <= 10)}`);
}

async function runRush(db: Db, service: Child, data: BookingData, take: Take) {
  console.log(
    `\nRUSH  A1 of ONE resource (28 days 08:00-18:00, raster 30, 20 places a slot) ` +
      `polled by ${RUSH_VIEWERS} viewers (accept-encoding: br, gzip) while ${RUSH_BOOKERS} ` +
      `consumers book its places, ${RUSH_SECONDS} s`,
  );
  await metricsOf(service.url); // prom-client's event-loop lag histogram restarts at each read: measured from here
  const spent = cpuMeter(service.child.pid!);
  const { a1, bookings } = await rushRun(service.url, data, take);
  const lag = await metricsOf(service.url);
  const cpu = spent();
  const encodings =
    Object.entries(a1.encodings)
      .map(([e, n]) => `${e} ${n}`)
      .join(', ') || 'none';
  console.log(
    `    A1      : p50 ${ms(a1.p50)}  p99 ${ms(a1.p99)}  longest ${ms(a1.max)}  ${a1.perSecond.toFixed(0)} ` +
      `req/s  (non-2xx ${a1.non2xx}, errors ${a1.errors})`,
  );
  console.log(`    viewers : in a worker thread of their own; its event-loop lag p99 ${ms(a1.viewerLagP99)}`);
  console.log(
    `    on wire : ${a1.wireMean.toFixed(0)} bytes per answer (largest ${a1.wireMax}), ` +
      `Content-Encoding seen: ${encodings}`,
  );
  const contents = (c: NonNullable<typeof a1.last>) =>
    `${c.bytes} bytes (${(c.bytes / 1024).toFixed(0)} KiB), ${c.items} bookables (${c.lots} LotAppointments)`;
  console.log(
    `    uncompressed: before the rush ${contents(a1.first)}; last answer ${a1.last ? contents(a1.last) : 'none'}`,
  );
  printBooked(bookings);
  const available = cpus().length * bookings.seconds;
  const share = (spentMs: number) =>
    `${(spentMs / 1000).toFixed(1)} s (${((100 * spentMs) / 1000 / available).toFixed(0)} %)`;
  console.log(
    `    CPU     : service ${share(cpu.serviceMs)}, PostgreSQL ${share(cpu.postgresMs)}, ` +
      `bench client ${share(cpu.benchMs)} of ${available.toFixed(0)} core-seconds`,
  );
  console.log(`    service : A1 reads (so far) ${await countedOf(service.url, 'booking_listing_reads_total')}`);
  // prom-client samples the lag with a 10 ms timer, and Node's histogram includes that interval
  const lagMs = (p: number) =>
    ms(Math.max(0, (lag.get(`nodejs_eventloop_lag_p${p}_seconds`) ?? NaN) * 1000 - LAG_SAMPLING_MS));
  console.log(`    service event-loop lag: p50 ${lagMs(50)}  p90 ${lagMs(90)}  p99 ${lagMs(99)}`);
  const clean = await printOverbooking(db, data);
  console.log(
    `    targets : A1 p99 <= 50 ms: ${met(a1.p99 <= 50)}; answer <= 30 KB on the wire: ` +
      `${met(a1.wireMax <= 30_000)}; zero overbookings: ${met(clean)}`,
  );
}

async function runEdge(db: Db, service: Child, data: BookingData, take: Take) {
  console.log(
    `\nEDGE  A1 of RUSH's listing through nginx (deploy/nginx.conf): ${EDGE_VIEWERS} ` +
      `viewers (accept-encoding: br, gzip; each polling again ${EDGE_POLL_MS} ms after an answer) ` +
      `while ${EDGE_BOOKERS} consumers book its places at the service, ${EDGE_SECONDS} s`,
  );
  const spent = cpuMeter(service.child.pid!);
  const r = await edgeRun(service.url, data, take);
  const cpu = spent();
  const encodings =
    Object.entries(r.a1.encodings)
      .map(([e, n]) => `${e} ${n}`)
      .join(', ') || 'none';
  console.log(
    `    edge A1 : p50 ${ms(r.a1.p50)}  p99 ${ms(r.a1.p99)}  longest ` +
      `${ms(r.a1.max)}  ${r.a1.perSecond.toFixed(0)} req/s  (non-2xx ${r.a1.non2xx}, errors ${r.a1.errors}; ` +
      `Content-Encoding seen: ${encodings}); viewers' event-loop lag p99 ${ms(r.a1.viewerLagP99)}`,
  );
  const perVariant = r.originPerSecond / Math.max(1, r.variants);
  console.log(
    `    origin  : ${r.originPerSecond.toFixed(2)} A1 requests/s reached the service (its /metrics), ` +
      `${r.variants} listing variant(s): ${perVariant.toFixed(2)} per variant`,
  );
  console.log(
    `    age     : p50 ${ms(r.age.p50)}  p99 ${ms(r.age.p99)}  oldest ${ms(r.age.max)}  over 2 s: ` +
      `${r.age.over2s} of ${r.age.n} answers; ${r.age.versions} distinct listings seen (age: ` +
      `time since the earliest acknowledged hold the answer does not show)`,
  );
  printBooked(r.bookings);
  const available = cpus().length * r.bookings.seconds;
  const share = (spentMs: number) =>
    `${(spentMs / 1000).toFixed(1)} s (${((100 * spentMs) / 1000 / available).toFixed(0)} %)`;
  console.log(
    `    CPU     : service ${share(cpu.serviceMs)}, PostgreSQL ${share(cpu.postgresMs)}, ` +
      `bench client ${share(cpu.benchMs)}, nginx ${share(r.nginxMs)} of ${available.toFixed(0)} core-seconds; ` +
      `nginx ${((1000 * r.nginxMs) / Math.max(1, r.a1.n)).toFixed(0)} µs per edge answer`,
  );
  const clean = await printOverbooking(db, data);
  console.log(
    `    targets : edge A1 p99 <= 20 ms: ${met(r.a1.p99 <= 20)}; ` +
      `origin <= 2 A1 requests/s per listing variant: ${met(perVariant <= 2)}; zero overbookings: ` +
      `${met(clean)}; no listing older than 2 s: ${met(r.age.over2s === 0)}`,
  );
}

/** prom-client's event-loop monitoring resolution (its default) */
const LAG_SAMPLING_MS = 10;

/** A counter with one label as text: `value n, value n`. */
async function countedOf(url: string, name: string): Promise<string> {
  const samples = [...(await metricsOf(url))].flatMap(([key, n]) => {
    const label = new RegExp(`^${name}\\{\\w+="([^"]*)"\\}$`).exec(key);
    return label ? [`${label[1]} ${n}`] : [];
  });
  return samples.join(', ');
}

async function measured(service: Child, run: () => Promise<BookingRun>): Promise<[BookingRun, CpuSpent]> {
  const spent = cpuMeter(service.child.pid!);
  const r = await run();
  return [r, spent()];
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

function printWaits(counts: WaitCounts) {
  const w = waitShares(counts);
  console.log(
    `    PostgreSQL waits: lock ${pct(w.lock)} of busy backend samples (advisory ${pct(w.advisory)}), ` +
      `WAL ${pct(w.wal)}; ${w.samples} samples every 100 ms, ${w.busyMean.toFixed(1)} busy backends on average`,
  );
  console.log(`    most sampled: ${w.top.map(([k, share]) => `${k} ${pct(share)}`).join(', ')}`);
}

/**
 * W2-hot's workload (50 consumers, distinct slots of one
 * resource), each consumer on its own address or all on oneAddress.
 */
interface HotPhase {
  data: BookingData;
  take: Take;
  oneAddress?: string;
  runs: BookingRun[];
  cpu: CpuSpent;
  waits: WaitCounts;
}

const hotPhase = (data: BookingData, oneAddress?: string): HotPhase => ({
  data,
  take: slotCounter(data),
  oneAddress,
  runs: [],
  cpu: { serviceMs: 0, postgresMs: 0, benchMs: 0 },
  waits: noWaits(),
});

/** One measured slice of a phase, its figures added to the phase's. */
async function hotSlice(service: Child, databaseUrl: string, phase: HotPhase, seconds: number): Promise<void> {
  const stopWaits = await sampleWaits(databaseUrl);
  const [r, cpu] = await measured(service, () =>
    bookingRun(service.url, phase.data, {
      consumers: 50,
      length: seconds,
      take: phase.take,
      oneAddress: phase.oneAddress,
    }),
  );
  phase.waits = addWaits(phase.waits, await stopWaits());
  phase.runs.push(r);
  phase.cpu = {
    serviceMs: phase.cpu.serviceMs + cpu.serviceMs,
    postgresMs: phase.cpu.postgresMs + cpu.postgresMs,
    benchMs: phase.cpu.benchMs + cpu.benchMs,
  };
}

/** A phase's slices as one run: counts added up; latency the slices' mean p50 and largest p99. */
function phaseRun(phase: HotPhase): BookingRun {
  const runs = phase.runs;
  const booked = runs.reduce((n, r) => n + r.booked, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const failures: Record<string, number> = {};
  for (const r of runs) for (const [k, n] of Object.entries(r.failures)) failures[k] = (failures[k] ?? 0) + n;
  return {
    booked,
    seconds,
    perSecond: booked / seconds,
    failures,
    p50: runs.reduce((n, r) => n + r.p50, 0) / runs.length,
    p99: Math.max(...runs.map((r) => r.p99)),
    max: Math.max(...runs.map((r) => r.max)),
    requests: runs.reduce((n, r) => n + r.requests, 0),
    mean:
      runs.reduce((n, r) => n + r.mean * r.requests, 0) /
      Math.max(
        1,
        runs.reduce((n, r) => n + r.requests, 0),
      ),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

async function printHotPhase(db: Db, phase: HotPhase, target: number | null): Promise<BookingRun> {
  const run = phaseRun(phase);
  await printBookings(db, [run, phase.cpu], phase.data, target);
  printWaits(phase.waits);
  return run;
}

/**
 * RETENTION: past participations to erase, the service's PERSONAL_DATA_RETENTION_DAYS, and how long before that the
 * latest of them ended
 */
const RETENTION_OLD = 100_000;
const RETENTION_DAYS = 30;
const RETENTION_MARGIN_DAYS = 10;
/**
 * RETENTION's slices of booking: this long each, QUIET of them without the job before it and as many after, at most
 * BUSY_CAP seconds of them while it erases
 */
const RETENTION_SLICE_SECONDS = 4;
const RETENTION_QUIET_SLICES = 3;
const RETENTION_BUSY_CAP_SECONDS = 300;

/** Participations whose appointment ended before the retention cutoff and whose personal data is still there. */
async function unerased(db: Db): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM appointments a JOIN participations p ON p.appointment_id = a.id
       AND p.erased_at IS NULL
      WHERE a.end_at < now() - $1::int * interval '1 day'`,
    [RETENTION_DAYS],
  );
  return n;
}

/** Polls unerased() every 250 ms from now until it is 0. */
function watchErasure(db: Db) {
  const started = Date.now();
  let doneAt: number | undefined;
  const finished = (async () => {
    while ((await unerased(db)) > 0) await new Promise((r) => setTimeout(r, 250));
    doneAt = Date.now();
  })();
  return { finished, done: () => doneAt !== undefined, seconds: () => ((doneAt ?? Date.now()) - started) / 1000 };
}

/**
 * RETENTION (see the top): W2-hot's workload in slices, without the job (the service as started),
 * then on a service started with PERSONAL_DATA_RETENTION_DAYS while its job erases (until done, at
 * most BUSY_CAP s), then again without it (restarted, warmed up).
 */
async function runRetention(
  db: Db,
  databaseUrl: string,
  first: Child,
  data: BookingData,
  restart: (env: Record<string, string>) => Promise<Child>,
) {
  const old = await unerased(db);
  console.log(
    `\nRETENTION  ${old} participations that ended over ${RETENTION_DAYS} days ago (on the booked resource; ` +
      `each with its customer, user, 2 mails and a webhook event) ` +
      `erased by the retention job (PERSONAL_DATA_RETENTION_DAYS=${RETENTION_DAYS}, RETENTION_SWEEP_SECONDS=1) ` +
      `while 50 consumers book distinct slots of ONE resource, in slices of ${RETENTION_SLICE_SECONDS} s; ` +
      `without the job: ${RETENTION_QUIET_SLICES} slices before and ${RETENTION_QUIET_SLICES} after`,
  );
  const quiet = hotPhase(data);
  const busy: HotPhase = { ...hotPhase(data), take: quiet.take };
  await bookingRun(first.url, data, { consumers: 50, length: WARM_UP_SECONDS, take: quiet.take });
  for (let i = 0; i < RETENTION_QUIET_SLICES; i++) await hotSlice(first, databaseUrl, quiet, RETENTION_SLICE_SECONDS);
  const withJob = await restart({ PERSONAL_DATA_RETENTION_DAYS: String(RETENTION_DAYS), RETENTION_SWEEP_SECONDS: '1' });
  const erasure = watchErasure(db);
  while (!erasure.done() && erasure.seconds() < RETENTION_BUSY_CAP_SECONDS)
    await hotSlice(withJob, databaseUrl, busy, RETENTION_SLICE_SECONDS);
  const bookedFor = erasure.seconds();
  await erasure.finished;
  const seconds = erasure.seconds();
  const after = await restart({});
  await bookingRun(after.url, data, { consumers: 50, length: WARM_UP_SECONDS, take: quiet.take });
  for (let i = 0; i < RETENTION_QUIET_SLICES; i++) await hotSlice(after, databaseUrl, quiet, RETENTION_SLICE_SECONDS);

  console.log(
    `    erased  : ${old} in ${seconds.toFixed(1)} s from the service's start (its first sweep 1 s in) ` +
      `= ${(old / seconds).toFixed(0)} participations/s; left ${await unerased(db)}; ` +
      `booking went on for ${bookedFor.toFixed(1)} s of it (${busy.runs.length} slices)`,
  );
  console.log(`\n  without the job (${quiet.runs.length} slices, before and after):`);
  const q = await printHotPhase(db, quiet, null);
  console.log(`\n  while the job erases (${busy.runs.length} slices):`);
  const b = await printHotPhase(db, busy, null);
  const p99s = (phase: HotPhase) => median(phase.runs.map((r) => r.p99));
  const ratio = p99s(busy) / p99s(quiet);
  console.log(
    `\n    slices' median p99: ${ms(p99s(busy))} with the job, ${ms(p99s(quiet))} ` +
      `without = ${ratio.toFixed(2)}x; bookings/s ${b.perSecond.toFixed(0)} / ${q.perSecond.toFixed(0)} ` +
      `= ${(b.perSecond / q.perSecond).toFixed(2)}x; longest request ${ms(b.max)} / ${ms(q.max)}`,
  );
  const locks = waitShares(busy.waits).lock;
  console.log(
    `    targets : median p99 within 1.5x: ${met(ratio <= 1.5)}; longest request within 1.5x: ` +
      `${met(b.max <= 1.5 * q.max)}; bookings waiting on locks under 1 % of busy samples while erasing ` +
      `(${pct(locks)}): ${met(locks < 0.01)}`,
  );
}

/** W2-long (see the top and bench/long.ts). */
async function runLong(db: Db, databaseUrl: string, service: Child, data: LongData) {
  const stats = await statementStats(databaseUrl);
  const days = data.main.dayStartsMs.length;
  console.log(
    `\nW2-long  ${LONG_CONSUMERS} concurrent consumers, ` +
      `reserve + create on distinct slots of ONE resource with ${longSlots(data.main)} ` +
      `capacity-1 slots over ${days} days, ${LONG_SECONDS} s (after ${WARM_UP_SECONDS} s unmeasured)`,
  );
  const take = slotCounter(data.main);
  await bookingRun(service.url, data.main, { consumers: LONG_CONSUMERS, length: WARM_UP_SECONDS, take });
  const stopWaits = await sampleWaits(databaseUrl);
  const stopWal = await walMeter(databaseUrl);
  const main = await longRun(service.url, service.child.pid!, stats, data.main, LONG_SECONDS, take);
  const waits = await stopWaits();
  const wal = await stopWal();
  await printBookings(db, [main.run, main.cpu], data.main, 400);
  printWaits(waits);
  console.log(
    `    WAL: ${(wal.flushes / main.run.booked).toFixed(2)} flushes (fsync) ` +
      `and ${(wal.bytes / main.run.booked / 1024).toFixed(1)} KiB per booking, background work included`,
  );
  printWallTime(main);
  if (main.stats) printStatements('(pg_stat_statements)', main.stats, main.run.booked, 14);
  else
    console.log(
      '    statements: pg_stat_statements is not loaded (shared_preload_libraries): no per-statement figures',
    );

  console.log(
    `\n  by calendar size: ${SIZE_BOOKINGS} bookings each, ${SIZE_ROUNDS} ` +
      `rounds taking turns (${LONG_SIZES.join(', ')} slots, then back), each on a fresh resource`,
  );
  const bySize = LONG_SIZES.map(() => [] as LongRun[]);
  for (let r = 0; r < SIZE_ROUNDS; r++) {
    const order = LONG_SIZES.map((_, i) => i);
    for (const i of r % 2 ? order.reverse() : order)
      bySize[i].push(
        await longRun(service.url, service.child.pid!, stats, data.rounds[r][i], { bookings: SIZE_BOOKINGS }),
      );
  }
  const rows = bySize.map((runs, i) => {
    const booked = runs.reduce((n, x) => n + x.run.booked, 0);
    const seconds = runs.reduce((n, x) => n + x.run.seconds, 0);
    const sum = (f: (x: LongRun) => number) => runs.reduce((n, x) => n + f(x), 0) / Math.max(1, booked);
    return {
      slots: longSlots(data.rounds[0][i]),
      booked,
      perSecond: booked / seconds,
      service: sum((x) => x.cpu.serviceMs),
      postgres: sum((x) => x.cpu.postgresMs),
      statements: runs[0].stats ? sum((x) => x.stats!.calls) : NaN,
      execMs: runs[0].stats ? sum((x) => x.stats!.execMs) : NaN,
      buffers: runs[0].stats ? sum((x) => x.stats!.buffers) : NaN,
      last: runs[runs.length - 1],
    };
  });
  console.log(
    '    slots   bookings  bookings/s  CPU per booking: ' +
      'service  PostgreSQL   statements  executing  buffers (top-level, per booking)',
  );
  for (const r of rows)
    console.log(
      [
        `    ${String(r.slots).padStart(6)}`,
        String(r.booked).padStart(8),
        r.perSecond.toFixed(0).padStart(10),
        ms(r.service).padStart(24),
        ms(r.postgres).padStart(10),
        r.statements.toFixed(1).padStart(11),
        ms(r.execMs).padStart(9),
        r.buffers.toFixed(0).padStart(7),
      ].join('  '),
    );
  for (const r of [rows[0], rows[rows.length - 1]])
    if (r.last.stats) printStatements(`at ${r.slots} slots, last round`, r.last.stats, r.last.run.booked);
  const pgCpu = rows.map((r) => r.postgres);
  const spread = Math.max(...pgCpu) / Math.min(...pgCpu);
  let clean = true;
  for (const round of data.rounds) for (const d of round) clean = (await printOverbooking(db, d)) && clean;
  console.log(
    `    targets : >= 400 bookings/s on W2-long: ${main.run.perSecond.toFixed(0)} ` +
      `${met(main.run.perSecond >= 400)}; PostgreSQL CPU per booking within 20 % across the sizes: ` +
      `largest ${spread.toFixed(2)}x the smallest ${met(spread <= 1.2)}; zero overbookings: ${met(clean)}`,
  );
  await stats?.close();
}

/** slices of W2-hot and W2-ONEIP when both run: A B B A A B B A, so that the machine's drift falls on both alike */
const HOT_SLICES = 4;

async function main(): Promise<void> {
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (shared machine: figures vary with other load)`,
  );
  const unknown = chosen.filter((w) => !WORKLOADS.includes(w));
  if (unknown.length) throw new Error(`unknown workload ${unknown.join(', ')}: one of ${WORKLOADS.join(', ')}`);
  if (chosen.includes('CALENDAR')) {
    calendarExpandPhase();
    if (chosen.length === 1) return;
  }
  if (chosen.includes('W1-CACHED')) {
    console.log(
      `\nW1-CACHED  GET upcoming_bookables?prdRef (W1's listing) from the cache, ${CACHED_CONNECTIONS} ` +
        `connections, ${CACHED_SECONDS} s each: no Accept-Encoding, then br`,
    );
    await cachedRun(ADMIN_URL);
    if (chosen.length === 1) return;
  }
  const name = `booking_bench_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const db = await openDb({ databaseUrl, dataDir: '' });
  let service: Child | undefined;
  let sink: Sink | undefined;
  try {
    sink = await startSink();
    await migrate(db);
    // W2-long lists the statements inside functions and triggers too (where pg_stat_statements is loaded)
    if (chosen.includes('W2-long'))
      await admin(`ALTER DATABASE ${name} SET pg_stat_statements.track = 'all'`).catch(() => undefined);
    if (process.env.BENCH_EXPLAIN) {
      await admin(`ALTER DATABASE ${name} SET session_preload_libraries = 'auto_explain'`);
      await admin(`ALTER DATABASE ${name} SET auto_explain.log_min_duration = '${process.env.BENCH_EXPLAIN}'`);
      await admin(`ALTER DATABASE ${name} SET auto_explain.log_analyze = on`);
      await admin(`ALTER DATABASE ${name} SET auto_explain.log_nested_statements = on`);
    }
    const seeder = await buildApp({
      config: testConfig({ databaseUrl, webhookAllowPrivateNetworks: true }),
      db,
      logger: false,
    });
    console.log('seeding through the partner API ...');
    const w2Data = chosen.includes('W2')
      ? await seedBooking(seeder, db, { resources: 25, days: 30, raster: 10 })
      : undefined;
    const hotData = chosen.includes('W2-hot')
      ? await seedBooking(seeder, db, { resources: 1, days: 150, raster: 5 })
      : undefined;
    const longData = chosen.includes('W2-long') ? await seedLong(seeder, db) : undefined;
    if (longData) await seedHistory(seeder, db, longData.main, HISTORY);
    const prodData = chosen.includes('W2-PROD') ? await seedProd(seeder, db, sink.hookUrl, HISTORY) : undefined;
    const oneIpData = chosen.includes('W2-ONEIP')
      ? await seedBooking(seeder, db, { resources: 1, days: 150, raster: 5 })
      : undefined;
    const w3Data = chosen.includes('W3')
      ? await seedBooking(seeder, db, { resources: 25, days: 30, raster: 10 })
      : undefined;
    const rushData = ['COLD', 'RUSH', 'EDGE'].some((w) => chosen.includes(w)) ? await seedRush(seeder, db) : undefined;
    for (const data of [w2Data, hotData, oneIpData, w3Data, rushData])
      if (data) await seedHistory(seeder, db, data, HISTORY);
    const retentionData = chosen.includes('RETENTION')
      ? await seedBooking(seeder, db, { resources: 1, days: 300, raster: 5 })
      : undefined;
    if (retentionData) {
      const place = {
        resourceUuid: retentionData.resourceUuids[0],
        endedDaysAgo: RETENTION_DAYS + RETENTION_MARGIN_DAYS,
      };
      await seedHistory(seeder, db, retentionData, RETENTION_OLD, place);
      await seedTraces(db, retentionData.partner.crmId);
    }
    // W1 last: with its appointments in the exclusion constraint's GiST index first, each history's
    // bulk insert (20,000 appointments of one resource in one statement) had every row's check scan
    // about 10,000 entries (docs/performance.md)
    const w1Data = chosen.includes('W1') || chosen.includes('FEED') ? await seedW1(seeder, db) : undefined;
    const busyData = chosen.includes('BUSY') ? await seedBusy(seeder, db) : undefined;
    const poolsData = chosen.includes('POOLS') ? await seedPools(seeder, db) : undefined;
    await seeder.close();
    // The seeding's listing changes (20,000 bookings of history per workload), folded as the service's
    // compactor would have folded them long before: its first runs used to do it in the middle of the
    // first workload (about 300 ms of PostgreSQL's time in the first seconds of a RUSH run alone).
    await compactListingChanges(db);
    // statistics and visibility as a database in service has them, not autovacuum's first pass mid-run
    await db.exec('VACUUM ANALYZE');
    await db.exec('CHECKPOINT');
    // Between workloads, what autovacuum does on a server in service: the CI machine's PostgreSQL runs
    // with autovacuum off, and without it the dead rows a workload leaves (the listing change log
    // folds ~200 rows a second) slow every later one (COLD's p50
    // was 57-66 ms after the booking workloads, 4-5 ms alone).
    const settle = () => db.exec('VACUUM ANALYZE');
    // As in production: a configured cancel-link secret. The hold cap and the booking rate limit
    // raised as an operator would for audiences behind one address (docs/deploy.md), so W2-ONEIP
    // runs; every other workload gives each booking an address of its own and never meets them.
    const serviceEnv = {
      DATABASE_URL: process.env.BENCH_SERVICE_DATABASE_URL?.replace('{db}', name) ?? databaseUrl,
      LOG_LEVEL: 'silent',
      CANCEL_LINK_SECRET: randomBytes(32).toString('hex'),
      MAX_HOLDS_PER_IP: '1000000',
      BOOKING_RATE_LIMIT_PER_MINUTE: '1000000',
      SMTP_URL: sink.smtpUrl,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    const startService = (env: Record<string, string> = {}) =>
      startChild(
        [
          ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
          ...startFlags(process.env.BENCH_SERVICE_DIR ?? '.'),
          'bench/server.mjs',
        ],
        { ...serviceEnv, ...env },
      );
    service = await startService();
    console.log(
      `\nservice: node ${startFlags(process.env.BENCH_SERVICE_DIR ?? '.').join(' ') || '(no flags)'}; ` +
        `RSS ${rssMiB(service.child.pid!).toFixed(0)} MiB at start (idle)`,
    );

    if (w1Data && chosen.includes('W1')) await rssDuring(service, 'W1', () => runW1(service!, w1Data));
    if (busyData) {
      await settle();
      await rssDuring(service, 'BUSY', () => runBusy(service!, busyData));
    }
    if (poolsData) {
      await settle();
      await rssDuring(service, 'POOLS', () => runPools(service!, poolsData));
    }
    if (w1Data && chosen.includes('FEED')) {
      await settle();
      await rssDuring(service, 'FEED', () => runFeed(service!, w1Data));
    }
    if (w2Data) {
      await settle();
      console.log('\nW2  50 concurrent consumers, reserve + create on distinct slots of 25 resources, 20 s');
      await rssDuring(service, 'W2', async () =>
        printBookings(
          db,
          await measured(service!, () => bookingRun(service!.url, w2Data, { consumers: 50, length: 20 })),
          w2Data,
          null,
        ),
      );
    }
    const hot = hotData && hotPhase(hotData);
    const one = oneIpData && hotPhase(oneIpData, ONE_ADDRESS);
    const HOT_TITLE = 'W2-hot  50 concurrent consumers, reserve + create on distinct slots of ONE resource';
    const ONE_TITLE =
      `W2-ONEIP  as W2-hot, every consumer on ONE address (${ONE_ADDRESS}; ` +
      `MAX_HOLDS_PER_IP and BOOKING_RATE_LIMIT_PER_MINUTE raised)`;
    let hotPerSecond: number | undefined;
    if (hot && !one) {
      await settle();
      console.log(`\n${HOT_TITLE}, 20 s`);
      await rssDuring(service, 'W2-hot', async () => {
        await hotSlice(service!, databaseUrl, hot, 20);
        hotPerSecond = (await printHotPhase(db, hot, 500)).perSecond;
      });
    } else if (one && !hot) {
      await settle();
      console.log(`\n${ONE_TITLE}, 20 s`);
      await rssDuring(service, 'W2-ONEIP', async () => {
        await hotSlice(service!, databaseUrl, one, 20);
        await printHotPhase(db, one, null);
      });
    } else if (hot && one) {
      // Both: taking turns in slices (A B B A ...), A the one named first (W2-hot unless
      // `npm run bench -- W2-ONEIP W2-hot`), so that the shared machine's changing speed falls on
      // both alike; run one after the other, the first measured 0.54-0.67x of the second in this
      // machine's loaded phases. A service that has not booked yet first books 5 s unmeasured.
      const [a, b] = chosen.indexOf('W2-ONEIP') < chosen.indexOf('W2-hot') ? [one, hot] : [hot, one];
      await settle();
      if (!w2Data)
        await bookingRun(service.url, a.data, {
          consumers: 50,
          length: WARM_UP_SECONDS,
          take: a.take,
          oneAddress: a.oneAddress,
        });
      const slice = 20 / HOT_SLICES;
      const sliced = async () => {
        for (let i = 0; i < HOT_SLICES; i++)
          for (const phase of i % 2 ? [b, a] : [a, b]) await hotSlice(service!, databaseUrl, phase, slice);
      };
      await rssDuring(service, 'W2-hot and W2-ONEIP', sliced);
      const turns = `${HOT_SLICES} slices of ${slice} s taking turns with`;
      console.log(`\n${HOT_TITLE}, ${turns} W2-ONEIP (latency: the slices' mean p50 and largest p99)`);
      const hotRun = await printHotPhase(db, hot, 500);
      hotPerSecond = hotRun.perSecond;
      console.log(`\n${ONE_TITLE}, ${turns} W2-hot`);
      const oneRun = await printHotPhase(db, one, null);
      const ratio = oneRun.perSecond / hotRun.perSecond;
      console.log(
        `\nW2-ONEIP against W2-hot: ${oneRun.perSecond.toFixed(0)} / ${hotRun.perSecond.toFixed(0)} ` +
          `bookings/s = ${ratio.toFixed(2)}x  (target >= 0.9x: ${met(ratio >= 0.9)})`,
      );
    }
    if (prodData) {
      await settle();
      console.log(
        `\nW2-PROD  ${'50 consumers from ONE address, reserve + create on distinct slots of ONE resource'} with ` +
          `${prodData.dayStartsMs.length * prodData.slotsPerDay} capacity-1 slots over ` +
          `${prodData.dayStartsMs.length} ` +
          `days, every job on (mail to the SMTP sink, webhooks to one subscription), 20 s after ` +
          `${WARM_UP_SECONDS} s unmeasured`,
      );
      const prod = await runProd(db, databaseUrl, service, sink, prodData, WARM_UP_SECONDS);
      const clean = await printOverbooking(db, prodData);
      console.log(`    zero overbookings: ${met(clean)}`);
      printProdTargets(prod, hotPerSecond);
    }
    if (longData) {
      await settle();
      await rssDuring(service, 'W2-long', () => runLong(db, databaseUrl, service!, longData));
    }
    if (w3Data) {
      await settle();
      console.log(
        '\nW3  12 partner clients (provider PUT, product update, profile PUT, resource update, ' +
          'timeslot create) on one provider with 25 resources, while 25 consumers book, 20 s',
      );
      const r = await rssDuring(service, 'W3', () => mixedRun(service!.url, w3Data, 12, 25, 20));
      let worstP99 = 0;
      let longest = 0;
      for (const [op, s] of Object.entries(r.operations)) {
        console.log(
          `    ${op.padEnd(16)} n ${String(s.n).padStart(6)}  p50 ${ms(s.p50).padStart(9)}  p99 ` +
            `${ms(s.p99).padStart(9)}  longest ${ms(s.max).padStart(9)}  failed ${s.failed}`,
        );
        if (op !== 'reserve' && op !== 'create') {
          worstP99 = Math.max(worstP99, s.p99);
          longest = Math.max(longest, s.max);
        }
      }
      console.log(
        `    bookings meanwhile: ${r.booked} in ${r.seconds.toFixed(1)} s = ${(r.booked / r.seconds).toFixed(0)}/s`,
      );
      const check = await overbookingCheck(db, w3Data.resourceUuids);
      console.log(
        `    overbooking check: ${check.overbooked} over capacity, ${check.overlapping} overlapping appointments`,
      );
      console.log(
        `    targets : partner writes p99 <= 100 ms: ${ms(worstP99)} ${met(worstP99 <= 100)}; ` +
          `no answer over 1 s: ${ms(longest)} ${met(longest <= 1000)}`,
      );
    }
    if (rushData) {
      const take = slotCounter(rushData); // COLD's bookings, then RUSH's, then EDGE's: the places of one listing
      if (chosen.includes('COLD')) {
        await settle();
        await rssDuring(service, 'COLD', () => runCold(service!, rushData, take));
      }
      if (chosen.includes('RUSH')) {
        await settle();
        await rssDuring(service, 'RUSH', () => runRush(db, service!, rushData, take));
      }
      if (chosen.includes('EDGE')) {
        await settle();
        await rssDuring(service, 'EDGE', () => runEdge(db, service!, rushData, take));
      }
    }
    if (retentionData) {
      await settle();
      const restart = async (env: Record<string, string>) => {
        await stop(service!.child);
        service = undefined;
        service = await startService(env);
        return service;
      };
      await runRetention(db, databaseUrl, service, retentionData, restart);
    }
  } finally {
    if (service) await stop(service.child);
    if (sink) await stopSink(sink);
    await db.close();
    if (process.env.BENCH_KEEP) console.log(`\nkept the database ${name} (BENCH_KEEP): drop it when done`);
    else await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  if (chosen.includes('FAILOVER')) printFailover(await failoverRun());
  console.log(
    `\nload average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
