/**
 * A1 on a service instance that writes alone (storage/instanceLease.ts, as main.ts runs it): its
 * cached listing is answered without reading the database while nothing was written, a change it
 * commits shows at once, and an instance joining the same database ends that before it can change
 * anything, so a booking made through the newcomer shows on the first instance's next answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/storage/db.js';
import { instanceLease, JOIN_WAIT_MS, type InstanceLease } from '../../src/storage/instanceLease.js';
import { migrate } from '../../src/storage/migrate.js';
import type { Partner, TestApp } from '../helpers/app.js';
import { book, bookBodyFor, createTimeslots, flatten, setupBooking, upcoming, type Booking } from '../helpers/bookingFixtures.js';
import { createPostgresDatabase, currentBackend } from '../helpers/db.js';
import { dayFromNow } from '../helpers/e2e.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const onPostgres = currentBackend() === 'postgres';
const CRM = 'crm1';
const KEY = 'key-one';

async function databaseEnv(): Promise<Record<string, string>> {
  if (onPostgres) {
    const { url, drop } = await createPostgresDatabase();
    cleanups.push(drop);
    return { DATABASE_URL: url };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'booking-sole-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return { DATA_DIR: dataDir };
}

async function started(env: Record<string, string>): Promise<{ svc: ServiceProcess; base: string }> {
  const svc = startServiceProcess({ ...env, API_KEYS: `${CRM}:${KEY}` });
  cleanups.push(() => svc.child.exitCode === null && svc.child.kill('SIGKILL'));
  return { svc, base: await svc.listening };
}

/** The fixtures' view of a service process: their requests go over HTTP to `base`. */
function overHttp(base: string): TestApp {
  const inject = async (o: { method: string; url: string; headers?: Record<string, string>; payload?: object; query?: Record<string, string> }) => {
    const url = new URL(o.url, base);
    for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, v);
    const res = await fetch(url, {
      method: o.method,
      headers: { ...o.headers, ...(o.payload ? { 'content-type': 'application/json' } : {}) },
      body: o.payload ? JSON.stringify(o.payload) : undefined,
    });
    const body = await res.text();
    return { statusCode: res.status, body, headers: Object.fromEntries(res.headers), json: () => JSON.parse(body) } as unknown as LightMyRequestResponse;
  };
  return { app: { inject } } as unknown as TestApp;
}

function partnerOn(t: TestApp): Partner {
  return {
    crmId: CRM,
    key: KEY,
    call: (method, path, body, query) => t.app.inject({ method, url: `/crms/${CRM}${path}`, headers: { 'x-service-client-id': KEY }, payload: body as object, query }),
  };
}

/** booking_listing_reads_total of a process, all kinds together. */
async function listingReads(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(/^booking_listing_reads_total\{read="\w+"\} (\d+)$/gm)) sum += Number(m[1]);
  return sum;
}

/**
 * How many reads `times` listings one after the other cost the process. Checked, each costs one;
 * answered from the cache alone, none but after the process's background jobs wrote (a few times a
 * second: each poll may write).
 */
async function readsFor(t: TestApp, base: string, b: Booking, times: number): Promise<number> {
  const before = await listingReads(base);
  for (let i = 0; i < times; i++) expect(flatten(await upcoming(t, b.resource.uuid)).length).toBeGreaterThan(0);
  return (await listingReads(base)) - before;
}

async function bookableResource(t: TestApp): Promise<Booking> {
  const b = await setupBooking(t, { partner: partnerOn(t) });
  const day = dayFromNow(3);
  await createTimeslots(b, [{ start: `${day}T09:00`, end: `${day}T12:00`, defaultCapacity: 1 }]);
  return b;
}

/** Books the first listed slot through `t` and returns its start. */
async function bookFirst(t: TestApp, b: Booking): Promise<string> {
  const [slot] = flatten(await upcoming(t, b.resource.uuid));
  const booked = await book(t, b.resource.uuid, bookBodyFor(slot, b.product.uuid));
  expect(booked.statusCode, booked.body).toBe(201);
  return slot.start;
}

describe('a service instance alone on its database', () => {
  it('answers its cached listing with no read, and shows a booking made through it at once', async () => {
    const { base } = await started(await databaseEnv());
    const t = overHttp(base);
    const b = await bookableResource(t);
    await upcoming(t, b.resource.uuid);
    expect(await readsFor(t, base, b, 20)).toBeLessThan(10);

    const start = await bookFirst(t, b);
    const after = flatten(await upcoming(t, b.resource.uuid));
    expect(after.map((s) => s.start)).not.toContain(start);
  });
});

describe.skipIf(!onPostgres)('an instance joining the database', () => {
  it('ends the first instance\'s reads-free answers before it serves: a booking through it shows on the first at once; once it left, they resume', async () => {
    const env = await databaseEnv();
    const first = await started(env);
    const t1 = overHttp(first.base);
    const b = await bookableResource(t1);
    await upcoming(t1, b.resource.uuid);
    expect(await readsFor(t1, first.base, b, 20)).toBeLessThan(10);

    const second = await started(env);
    const t2 = overHttp(second.base);
    const start = await bookFirst(t2, b);
    expect(flatten(await upcoming(t1, b.resource.uuid)).map((s) => s.start)).not.toContain(start);
    // while the second runs, every answer of the first is checked by a read
    expect(await readsFor(t1, first.base, b, 3)).toBe(3);

    second.svc.child.kill('SIGTERM');
    expect(await second.svc.exited).toBe(0);
    const deadline = Date.now() + 10_000;
    while ((await readsFor(t1, first.base, b, 20)) >= 10) expect(Date.now()).toBeLessThan(deadline);
  });
});

describe.skipIf(!onPostgres)('InstanceLease', () => {
  let db: Db;
  const leases: InstanceLease[] = [];
  const joined = async () => {
    const lease = instanceLease(db, (err) => expect.fail(String(err)));
    leases.push(lease);
    const asked = performance.now();
    await lease.join();
    return { lease, tookMs: performance.now() - asked };
  };

  it('is held by an instance alone; one joining waits out its lease, which it then no longer holds; it is held again once the other left', async () => {
    const { url } = await createPostgresDatabase().then((d) => (cleanups.push(d.drop), d));
    db = await openDb({ databaseUrl: url, dataDir: '' });
    cleanups.push(async () => {
      for (const l of leases) await l.leave();
      await db.close();
    });
    await migrate(db);

    const a = await joined();
    expect(a.lease.held()).toBe(true);
    const b = await joined();
    expect(b.tookMs).toBeGreaterThanOrEqual(JOIN_WAIT_MS);
    expect(a.lease.held()).toBe(false);
    expect(b.lease.held()).toBe(false);

    await b.lease.leave();
    const deadline = Date.now() + 5_000;
    while (!a.lease.held()) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});
