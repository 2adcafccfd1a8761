/**
 * Availability rules (issue 54: "creating a rule with 400 days of two windows, and changing it,
 * takes one statement or batch"): `npx tsx bench/rules.ts`. On each engine (PGlite in memory, and
 * a temporary PostgreSQL database of BENCH_DATABASE_URL / TEST_DATABASE_URL / the local server), in
 * this process through the app (HTTP inject, the partner API as a partner calls it):
 *  - create a rule open every day with two windows: 400 dates, 800 timeslots;
 *  - change its windows: the 800 taken back (their dates hold no booking) and 800 made again;
 *  - the same change with a booking on every tenth date (those dates kept).
 * Each on a resource whose provider already holds CREATE_HISTORY other resources' rules (a
 * database in service), RUNS times; the median and the slowest are printed.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { buildApp, type App } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { ensureKey } from '../src/partners/apiKeys.js';
import { openDb, type Db } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrate.js';
import { median } from './stats.js';

const ADMIN_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = 7;
/** rules (of 800 timeslots each) already in the database before the measured ones */
const CREATE_HISTORY = 20;
const KEY = 'bench-rules-key';
const WINDOWS = [
  [
    { from: '09:00', to: '12:00' },
    { from: '13:00', to: '17:00' },
  ],
  [
    { from: '08:00', to: '11:30' },
    { from: '12:30', to: '18:00' },
  ],
];

interface Partner {
  call(
    method: 'POST' | 'GET' | 'DELETE',
    path: string,
    body?: object,
  ): Promise<{ status: number; body: Record<string, unknown>; ms: number }>;
}

function partner(app: App, crmId: string): Partner {
  return {
    async call(method, path, body) {
      const started = performance.now();
      const res = await app.inject({
        method,
        url: `/crms/${crmId}${path}`,
        headers: { 'x-service-client-id': KEY },
        ...(body ? { payload: body } : {}),
      });
      const ms = performance.now() - started;
      if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
      return { status: res.statusCode, body: res.statusCode === 204 ? {} : res.json(), ms };
    },
  };
}

/** A provider with a product; returns the provider's path. */
async function setup(p: Partner): Promise<string> {
  const id = randomBytes(4).toString('hex');
  await p.call('POST', '/user', {
    reference: `u-${id}@bench`,
    email: `u-${id}@bench.example`,
    username: `u-${id}`,
    lastName: 'Bench',
  });
  await p.call('POST', '/account', {
    accountReference: `acc-${id}@bench`,
    ownerReference: `u-${id}@bench`,
    branch: 'real-estate',
  });
  await p.call('POST', '/provider', {
    reference: `prov-${id}@bench`,
    ownerReference: `u-${id}@bench`,
    accountReference: `acc-${id}@bench`,
    name: 'Bench',
  });
  const base = `/provider/prov-${id}%40bench`;
  await p.call('POST', `${base}/products`, { reference: 'viewing', name: 'Viewing', minDuration: 30 });
  return base;
}

async function newRule(p: Partner, base: string, n: number) {
  await p.call('POST', `${base}/resources`, {
    reference: `res-${n}`,
    publicName: `Resource ${n}`,
    internalName: `R${n}`,
    products: ['viewing'],
  });
  const body = {
    reference: `hours-${n}`,
    resourceReference: `res-${n}`,
    weekdays: ['1', '2', '3', '4', '5', '6', '7'],
    windows: WINDOWS[0],
    raster: 30,
    defaultCapacity: 1,
  };
  const res = await p.call('POST', `${base}/availability-rules`, body);
  const made = (res.body.rule as { timeslotsCreated: number }).timeslotsCreated;
  if (made !== 800) throw new Error(`a rule made ${made} timeslots, not 800`);
  return res.ms;
}

/** Books (D6, the partner's appointment) the first window's start on every tenth date of the rule. */
async function bookEveryTenth(p: Partner, base: string, n: number): Promise<number> {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  let booked = 0;
  for (let day = 10; day < 400; day += 10) {
    const date = new Date(today + day * 86_400_000).toISOString().slice(0, 10);
    await p.call('POST', `${base}/appointments`, {
      reference: `apt-${n}-${day}`,
      start: `${date}T12:30`,
      end: `${date}T13:30`,
      resourceReference: `res-${n}`,
      productReference: 'viewing',
    });
    booked++;
  }
  return booked;
}

interface Figures {
  create: number[];
  change: number[];
  changeKept: number[];
}

async function measure(db: Db): Promise<Figures> {
  await migrate(db);
  const crmId = `bench-${randomBytes(3).toString('hex')}`;
  await ensureKey(db, crmId, KEY);
  const app = await buildApp({ config: testConfig({ bookingRateLimitPerMinute: 1_000_000 }), db, logger: false });
  await app.ready();
  try {
    const p = partner(app, crmId);
    const base = await setup(p);
    for (let i = 0; i < CREATE_HISTORY; i++) await newRule(p, base, 1000 + i);
    const figures: Figures = { create: [], change: [], changeKept: [] };
    for (let run = 0; run < RUNS; run++) {
      figures.create.push(await newRule(p, base, run));
      const change = await p.call('POST', `${base}/availability-rules/hours-${run}`, { windows: WINDOWS[1] });
      if ((change.body.rule as { timeslotsCreated: number }).timeslotsCreated !== 800)
        throw new Error('the change did not make 800 timeslots');
      figures.change.push(change.ms);
      const kept = await bookEveryTenth(p, base, run);
      const again = await p.call('POST', `${base}/availability-rules/hours-${run}`, { windows: WINDOWS[0] });
      if ((again.body.keptTimeslots as string[]).length !== 2 * kept)
        throw new Error('the change kept other dates than the booked ones');
      figures.changeKept.push(again.ms);
    }
    return figures;
  } finally {
    await app.close();
  }
}

const show = (name: string, list: number[]) =>
  `${name} median ${median(list).toFixed(0)} ms, slowest ${Math.max(...list).toFixed(0)} ms`;

export async function rulesPhase(): Promise<void> {
  const engines: { name: string; open: () => Promise<{ db: Db; drop: () => Promise<void> }> }[] = [
    {
      name: 'PGlite (memory)',
      open: async () => {
        const db = await openDb({ databaseUrl: 'memory://', dataDir: '' });
        return { db, drop: () => db.close() };
      },
    },
    {
      name: 'PostgreSQL',
      open: async () => {
        const name = `bench_rules_${randomBytes(4).toString('hex')}`;
        const admin = async (sql: string) => {
          const c = new pg.Client({ connectionString: ADMIN_URL });
          await c.connect();
          await c.query(sql);
          await c.end();
        };
        await admin(`CREATE DATABASE ${name}`);
        const url = new URL(ADMIN_URL);
        url.pathname = `/${name}`;
        const db = await openDb({ databaseUrl: url.toString(), dataDir: '', poolSize: 4 });
        return {
          db,
          drop: async () => {
            await db.close();
            await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          },
        };
      },
    },
  ];
  for (const engine of engines) {
    const { db, drop } = await engine.open();
    try {
      const f = await measure(db);
      console.log(
        `RULES ${engine.name}: 400 days x 2 windows (800 timeslots), ${RUNS} runs after ${CREATE_HISTORY} rules`,
      );
      console.log(
        `  ${show('create', f.create)}; ${show('change', f.change)}; ` +
          `${show('change keeping 39 booked dates', f.changeKept)}`,
      );
    } finally {
      await drop();
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await rulesPhase();
