/**
 * W1-CACHED: W1's listing served from the cache to 50 connections in closed loop, uncompressed (no
 * Accept-Encoding) and br, each against a plain node:http server sending the same bytes in the
 * same run, the two taking turns in slices. Besides req/s and p99, what does not depend on the machine's phase: the
 * service's CPU per request, its database's backends' CPU per request, and statements per request (the
 * database's committed transactions: every statement outside a transaction is one).
 *
 * It needs nothing of this checkout's code but the bench: it starts the build in BENCH_SERVICE_DIR
 * (default: this checkout) as `npm start` does, on a database of its own, and seeds it through its
 * partner API over HTTP, so the same harness measures any commit's build (bench/compare.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { httpPartner, seedW1Resource, seedW1With } from './seed.js';
import { processTicks, TICK_MS } from './cpu.js';
import { sampleRss, startChild, startFlags, stop } from './service.js';
import { median } from './stats.js';

export const CACHED_CONNECTIONS = 50;
export const CACHED_SECONDS = 10;
const WARMUP_SECONDS = 3;
/** The days of the second, shorter listing (a third variant, uncompressed): about 85 KB. */
const SHORT_DAYS = 10;

/** A port free now, for a service that takes its port from the environment. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
    s.on('error', fail);
  });
}

async function waitForHttp(url: string, exited: () => boolean): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (exited()) throw new Error('the service exited during start');
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`no answer from ${url}`);
}

interface Measured {
  p50: number;
  p99: number;
  rps: number;
  non2xx: number;
  errors: number;
  cpuUsPerRequest: number;
  pgCpuUsPerRequest: number;
  statementsPerRequest: number;
}

/** One target's slices added up. */
interface Tally {
  requests: number;
  seconds: number;
  ticks: number;
  pgTicks: number;
  non2xx: number;
  errors: number;
  p50s: number[];
  p99s: number[];
}

export async function cachedRun(adminUrl: string): Promise<void> {
  const serviceDir = resolve(process.env.BENCH_SERVICE_DIR ?? '.');
  const name = `booking_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const crmId = 'bench-cached';
  const key = randomBytes(16).toString('hex');
  const port = await freePort();
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`]
    : [];
  // before the compiled build (9267d17) `npm start` ran the sources through tsx
  const main = existsSync(join(serviceDir, 'dist/main.js'))
    ? [join(serviceDir, 'dist/main.js')]
    : ['--import', 'tsx', join(serviceDir, 'src/main.ts')];
  const spawned = spawn(process.execPath, [...profile, ...startFlags(serviceDir), ...main], {
    cwd: serviceDir,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-data-')),
      API_KEYS: `${crmId}:${key}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      CANCEL_LINK_SECRET: randomBytes(32).toString('hex'),
    },
  });
  let exited = false;
  spawned.on('exit', () => (exited = true));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${base}/openapi.json`, () => exited);
    const partnerApi = await httpPartner(base, crmId, key);
    const data = await seedW1With(partnerApi);
    // the same listing over SHORT_DAYS: an uncompressed answer of the size issue 39 measured (83 KB)
    const shortUuid = await seedW1Resource(partnerApi.call, partnerApi.providerRef, 'short@bench', SHORT_DAYS);
    // the seeding's listing changes folded by the service's compactor (every 2 s), as long before on a service in use
    await new Promise((r) => setTimeout(r, 5000));
    // stays connected, idle, through the measurement: every deployment has a second client on its
    // database (psql, a monitoring agent), and the listing's freshness must not depend on there being none
    const idleClient = new pg.Client({ connectionString: url.toString(), application_name: 'bench-idle' });
    await idleClient.connect();
    await idleClient.query('VACUUM ANALYZE');

    const pathOf = (resourceUuid: string) => `/resources/${resourceUuid}/upcoming_bookables?prdRef=${data.productUuid}`;
    const path = pathOf(data.resourceUuid);
    const shortPath = pathOf(shortUuid);
    const ceiling = await startCeiling(base, path);
    const shortCeiling = await startCeiling(base, shortPath);
    console.log(
      `    service : ${serviceDir} (status ${ceiling.status}); answer ${ceiling.identityBytes} ` +
        `bytes uncompressed, ${ceiling.brBytes} bytes br (Content-Encoding: ${ceiling.encoding}); ` +
        `over ${SHORT_DAYS} days ${shortCeiling.identityBytes} bytes uncompressed; ` +
        'a second database client connected and idle throughout',
    );
    const peakRss = sampleRss(spawned.pid!);
    try {
      const variants = [
        ['identity', path, ceiling, {}],
        [`identity ${SHORT_DAYS}d`, shortPath, shortCeiling, {}],
        ['br', path, ceiling, { 'accept-encoding': 'br' }],
      ] as const;
      for (const [variant, url, plainServer, headers] of variants) {
        const { service, bare } = await measurePair(
          { url: `${base}${url}`, pid: spawned.pid!, admin, db: name },
          { url: `${plainServer.url}${url}`, pid: plainServer.child.pid! },
          headers,
        );
        const share = service.rps / bare.rps;
        console.log(
          `    ${variant.padEnd(12)} service : p50 ${service.p50.toFixed(1)} ` +
            `ms  p99 ${service.p99.toFixed(1)} ms  ${service.rps.toFixed(0)} ` +
            `req/s  CPU ${service.cpuUsPerRequest.toFixed(0)} µs per request, ` +
            `PostgreSQL ${service.pgCpuUsPerRequest.toFixed(0)} µs per request, ` +
            `${service.statementsPerRequest.toFixed(3)} statements per request (non-2xx ${service.non2xx}, ` +
            `errors ${service.errors})`,
        );
        console.log(
          `    ${variant.padEnd(12)} ceiling : p50 ${bare.p50.toFixed(1)} ms  p99 ${bare.p99.toFixed(1)} ` +
            `ms  ${bare.rps.toFixed(0)} req/s  CPU ${bare.cpuUsPerRequest.toFixed(0)} ` +
            `µs per request (plain node:http, same bytes)`,
        );
        console.log(
          `    ${variant.padEnd(12)} share   : ${share.toFixed(2)} of the ceiling (target >= 0.85: ` +
            `${share >= 0.85 ? 'met' : 'MISSED'})`,
        );
      }
      console.log(`    service RSS: peak ${peakRss().toFixed(0)} MiB during W1-CACHED`);
    } finally {
      await stop(ceiling.child);
      await stop(shortCeiling.child);
      await idleClient.end();
    }
  } finally {
    if (!exited) await stop(spawned);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/**
 * A plain node:http server answering with the bytes the service sends for `path`, uncompressed and
 * br (wire bytes: fetch would decode br).
 */
async function startCeiling(base: string, path: string) {
  const plain = await fetch(`${base}${path}`, { headers: { 'accept-encoding': 'identity' } });
  const identity = Buffer.from(await plain.arrayBuffer());
  const br = await wireBytes(`${base}${path}`, { 'accept-encoding': 'br' });
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  writeFileSync(join(dir, 'identity'), identity);
  writeFileSync(join(dir, 'br'), br.body);
  const child = await startChild(
    [join(import.meta.dirname, 'nodeCeiling.mjs'), join(dir, 'identity'), join(dir, 'br'), br.encoding ?? 'identity'],
    {},
  );
  return {
    ...child,
    status: plain.status,
    identityBytes: identity.length,
    brBytes: br.body.length,
    encoding: br.encoding ?? 'none',
  };
}

function wireBytes(url: string, headers: Record<string, string>): Promise<{ body: Buffer; encoding?: string }> {
  return import('node:http').then(
    ({ get }) =>
      new Promise((done, fail) => {
        get(url, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done({ body: Buffer.concat(chunks), encoding: res.headers['content-encoding'] }));
        }).on('error', fail);
      }),
  );
}

/** The backends connected to the database `name`, by pid. */
async function backends(admin: pg.Client, name: string): Promise<number[]> {
  return (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name])).rows.map(
    (r) => r.pid,
  );
}

async function committed(admin: pg.Client, name: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
    [name],
  );
  return Number(rows[0].n);
}

/**
 * The order of the slices: the service (S) and the ceiling (C) take turns, S C C S S C C S, so a
 * change of the machine's speed during the run (it swings 2x within minutes here) weighs on both
 * alike instead of on whichever ran second.
 */
const SLICE_ORDER = ['S', 'C', 'C', 'S', 'S', 'C', 'C', 'S'] as const;
const SLICE_SECONDS = (CACHED_SECONDS * 2) / SLICE_ORDER.length;

/**
 * Warm-up of both, then CACHED_SECONDS of each in slices taking turns (SLICE_ORDER); for the
 * service, its database's backends' CPU and its statements too. Latencies are the slices' medians.
 */
async function measurePair(
  service: { url: string; pid: number; admin: pg.Client; db: string },
  ceiling: { url: string; pid: number },
  headers: Record<string, string>,
): Promise<{ service: Measured; bare: Measured }> {
  for (const url of [service.url, ceiling.url])
    await autocannon({ url, headers, connections: CACHED_CONNECTIONS, duration: WARMUP_SECONDS });

  const tally = (): Tally => ({
    requests: 0,
    seconds: 0,
    ticks: 0,
    pgTicks: 0,
    non2xx: 0,
    errors: 0,
    p50s: [],
    p99s: [],
  });
  const tallies = { S: tally(), C: tally() };
  const statementsBefore = await committed(service.admin, service.db);
  for (const slice of SLICE_ORDER) {
    const { url, pid } = slice === 'S' ? service : ceiling;
    const t = tallies[slice];
    const pids = slice === 'S' ? await backends(service.admin, service.db) : [];
    const before = { own: processTicks(pid), pg: pids.map((p) => processTicks(p)) };
    const r = await autocannon({ url, headers, connections: CACHED_CONNECTIONS, duration: SLICE_SECONDS });
    t.ticks += processTicks(pid) - before.own;
    // a backend that exited during the slice reads 0: its ticks are lost, never subtracted
    pids.forEach((p, i) => {
      t.pgTicks += Math.max(0, processTicks(p) - before.pg[i]);
    });
    t.requests += r.requests.total;
    t.seconds += r.duration;
    t.non2xx += r.non2xx;
    t.errors += r.errors;
    t.p50s.push(r.latency.p50);
    t.p99s.push(r.latency.p99);
  }
  // statistics reach pg_stat_database within a second of each backend's work
  await new Promise((d) => setTimeout(d, 1500));
  const statements = (await committed(service.admin, service.db)) - statementsBefore;
  const measured = (t: Tally, withDb: boolean): Measured => ({
    p50: median(t.p50s),
    p99: median(t.p99s),
    rps: t.requests / t.seconds,
    non2xx: t.non2xx,
    errors: t.errors,
    cpuUsPerRequest: (t.ticks * TICK_MS * 1000) / t.requests,
    pgCpuUsPerRequest: withDb ? (t.pgTicks * TICK_MS * 1000) / t.requests : NaN,
    statementsPerRequest: withDb ? statements / t.requests : NaN,
  });
  return { service: measured(tallies.S, true), bare: measured(tallies.C, false) };
}
