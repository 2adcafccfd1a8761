/**
 * npm run bench: W1 (A1 on a busy resource, against its bare-Fastify ceiling) and W2 (50 concurrent
 * consumers reserving and booking distinct slots for 20 s) on a temporary PostgreSQL database of
 * the local server (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { openDb, type Db } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrate.js';
import { seedW1, seedW2, w2Slot, type W2Data } from './seed.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const W1_SECONDS = 10;
const W1_CONNECTIONS = 10;
const W2_SECONDS = 20;
const W2_CONSUMERS = 50;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  await c.query(sql);
  await c.end();
}

/** Starts a bench process (tsx) and resolves with the address it prints. */
function startChild(script: string, args: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /LISTENING (\S+)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const run = (opts: autocannon.Options) => autocannon(opts);

async function measureGet(url: string) {
  await run({ url, connections: W1_CONNECTIONS, duration: 3 }); // warm-up
  const r = await run({ url, connections: W1_CONNECTIONS, duration: W1_SECONDS });
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average, non2xx: r.non2xx, errors: r.errors };
}

async function w1(serverUrl: string, db: Db, seededDb: { resourceUuid: string; productUuid: string }) {
  const path = `/resources/${seededDb.resourceUuid}/upcoming_bookables?prdRef=${seededDb.productUuid}`;
  const sample = await fetch(`${serverUrl}${path}`);
  const bytes = Buffer.from(await sample.arrayBuffer());
  const body = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  const items = Object.entries(body).filter(([k]) => k !== 'public_visible').flatMap(([, v]) => v as { kind: string }[]);
  const service = await measureGet(`${serverUrl}${path}`);
  // every request another timeFormat: a cache miss each time, so the whole listing is computed
  let n = 0;
  const computed = await run({
    url: serverUrl,
    connections: W1_CONNECTIONS,
    duration: W1_SECONDS,
    requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, path: `${path}&timeFormat=${encodeURIComponent(`yyyy-MM-dd HH:mm '${n++}'`)}` }) }],
  });
  const file = join(mkdtempSync(join(tmpdir(), 'bench-')), 'w1.json');
  writeFileSync(file, bytes);
  const ceilingServer = await startChild('bench/ceiling.ts', [file], {});
  const ceiling = await measureGet(`${ceilingServer.url}${path}`);
  await stop(ceilingServer.child);
  void db;
  return {
    status: sample.status, bytes: bytes.length, items: items.length, lots: items.filter((i) => i.kind === 'models.LotAppointment').length, service, ceiling,
    computed: { p50: computed.latency.p50, p99: computed.latency.p99, rps: computed.requests.average },
  };
}

async function w2(serverUrl: string, data: W2Data) {
  let next = 0;
  let booked = 0;
  const failures: Record<string, number> = {};
  const fail = (step: string, status: number) => (failures[`${step} ${status}`] = (failures[`${step} ${status}`] ?? 0) + 1);
  type Ctx = { slot?: ReturnType<typeof w2Slot>; n?: number; placeholder?: string; headers?: Record<string, string> };
  const started = Date.now();
  const result = await run({
    url: serverUrl,
    connections: W2_CONSUMERS,
    duration: W2_SECONDS,
    requests: [
      {
        method: 'POST',
        setupRequest: (req: any, context: Ctx) => {
          const n = next++;
          context.n = n;
          context.slot = w2Slot(data, n);
          // every booking is another consumer at another address, as in real traffic
          context.headers = { 'content-type': 'application/json', 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
          req.headers = context.headers;
          req.path = `/rest/1/resources/${context.slot.resourceUuid}/reserve_appointment`;
          req.body = JSON.stringify({ timeslot_uuid: context.slot.timeslotUuid, product_uuid: data.productUuid, from: context.slot.from, to: context.slot.to });
          return req;
        },
        onResponse: (status: number, body: string, context: Ctx) => {
          if (status === 201) context.placeholder = JSON.parse(body).participation.customer_uuid;
          else fail('reserve', status);
        },
      },
      {
        method: 'POST',
        setupRequest: (req: any, context: Ctx) => {
          if (!context.placeholder || !context.slot) return null as never; // the hold failed: start over
          const s = context.slot;
          req.path = `/resources/${s.resourceUuid}/create_appointment_with_consumer`;
          req.headers = context.headers;
          req.body = JSON.stringify({
            start: s.from, end: s.to, timeslot_uuid: s.timeslotUuid, product_uuid: data.productUuid, placeholder_id: context.placeholder,
            email: `consumer-${context.n}@bench.example`, firstname: 'Bench', lastname: `Consumer ${context.n}`,
          });
          return req;
        },
        onResponse: (status: number) => {
          if (status === 201) booked++;
          else fail('create', status);
        },
      },
    ],
  });
  const seconds = (Date.now() - started) / 1000;
  return { booked, seconds, perSecond: booked / seconds, failures, latencyP99: result.latency.p99, errors: result.errors };
}

async function overbookingCheck(db: Db, data: W2Data) {
  const [over] = await db.query<{ appointments: number; overbooked: number; booked: number }>(
    `SELECT count(*)::int AS appointments,
            count(*) FILTER (WHERE taken > capacity)::int AS overbooked,
            COALESCE(sum(booked), 0)::int AS booked
       FROM (SELECT a.capacity,
                    (SELECT count(*) FROM participations p WHERE p.appointment_id = a.id AND (p.state IN ('REQUESTED', 'BOOKED') OR (p.state = 'RESERVED' AND p.hold_until > now()))) AS taken,
                    (SELECT count(*) FROM participations p WHERE p.appointment_id = a.id AND p.state = 'BOOKED') AS booked
               FROM appointments a WHERE a.resource_id = ANY($1::uuid[])) x`,
    [data.resourceUuids],
  );
  const [overlaps] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM appointments a JOIN appointments b
        ON a.resource_id = b.resource_id AND a.id < b.id AND tstzrange(a.start_at, a.end_at) && tstzrange(b.start_at, b.end_at)
      WHERE a.resource_id = ANY($1::uuid[]) AND a.state = 'ACTIVE' AND b.state = 'ACTIVE' AND NOT a.archived AND NOT b.archived`,
    [data.resourceUuids],
  );
  return { ...over, overlapping: overlaps.n };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main(): Promise<void> {
  console.log(`machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared machine: figures vary with other load)`);
  const name = `booking_bench_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const db = await openDb({ databaseUrl, dataDir: '' });
  let server: ChildProcess | undefined;
  try {
    await migrate(db);
    const seeder = await buildApp({ config: testConfig({ databaseUrl }), db, logger: false });
    console.log('seeding through the partner API ...');
    const w1Data = await seedW1(seeder, db);
    const w2Data = await seedW2(seeder, db);
    await seeder.close();
    // statistics and visibility as a database in service has them, not autovacuum's first pass mid-run
    await db.exec('VACUUM ANALYZE');
    await db.exec('CHECKPOINT');
    // As in production: a configured cancel-link secret (unset, each link costs two queries for the stored one).
    const started = await startChild('bench/server.ts', [], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', CANCEL_LINK_SECRET: randomBytes(32).toString('hex') });
    server = started.child;

    console.log(`\nW1  GET upcoming_bookables?prdRef (28 days 08:00-18:00, raster 30, 150 appointments), ${W1_CONNECTIONS} connections, ${W1_SECONDS} s`);
    const r1 = await w1(started.url, db, w1Data);
    console.log(`    response: ${r1.status}, ${r1.items} bookables (${r1.lots} LotAppointments), ${(r1.bytes / 1024).toFixed(0)} KiB`);
    console.log(`    service : p50 ${ms(r1.service.p50)}  p99 ${ms(r1.service.p99)}  ${r1.service.rps.toFixed(0)} req/s  (non-2xx ${r1.service.non2xx}, errors ${r1.service.errors})`);
    console.log(`    uncached: p50 ${ms(r1.computed.p50)}  p99 ${ms(r1.computed.p99)}  ${r1.computed.rps.toFixed(0)} req/s  (every request computes the listing: cache miss forced)`);
    console.log(`    ceiling : p50 ${ms(r1.ceiling.p50)}  p99 ${ms(r1.ceiling.p99)}  ${r1.ceiling.rps.toFixed(0)} req/s  (bare Fastify, same bytes)`);
    const share = r1.service.rps / r1.ceiling.rps;
    console.log(`    targets : p99 <= 50 ms: ${r1.service.p99 <= 50 ? 'met' : 'MISSED'}; >= 50 % of ceiling: ${(share * 100).toFixed(0)} % ${share >= 0.5 ? 'met' : 'MISSED'}`);

    console.log(`\nW2  ${W2_CONSUMERS} concurrent consumers, reserve + create on distinct slots (${w2Data.resourceUuids.length} resources), ${W2_SECONDS} s`);
    const r2 = await w2(started.url, w2Data);
    const check = await overbookingCheck(db, w2Data);
    console.log(`    completed bookings: ${r2.booked} in ${r2.seconds.toFixed(1)} s = ${r2.perSecond.toFixed(0)} bookings/s  (request p99 ${ms(r2.latencyP99)}, errors ${r2.errors})`);
    console.log(`    failed steps: ${JSON.stringify(r2.failures)}`);
    console.log(`    overbooking check: ${check.appointments} appointments, ${check.booked} BOOKED participations, ${check.overbooked} over capacity, ${check.overlapping} overlapping pairs`);
    console.log(`    targets : >= 300 bookings/s: ${r2.perSecond >= 300 ? 'met' : 'MISSED'}; zero overbookings: ${check.overbooked === 0 && check.overlapping === 0 ? 'met' : 'MISSED'}`);
  } finally {
    if (server) await stop(server);
    await db.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
