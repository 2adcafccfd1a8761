/**
 * A1 on a service instance that writes alone (storage/instanceLease.ts, as main.ts runs it): its
 * cached listing is answered without reading the database while nothing was written, a change it
 * commits shows at once, and an instance joining the same database ends that before it can change
 * anything, so a booking made through the newcomer shows on the first instance's next answer.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceApplicationName, openDb, type Db } from '../../src/storage/db.js';
import { instanceLease, JOIN_WAIT_MS, LEASE_MS, type InstanceLease } from '../../src/storage/instanceLease.js';
import { migrate } from '../../src/storage/migrate.js';
import type { TestApp } from '../helpers/app.js';
import { book, bookBodyFor, createTimeslots, flatten, setupBooking, upcoming, type Booking } from '../helpers/bookingFixtures.js';
import { createPostgresDatabase, currentBackend } from '../helpers/db.js';
import { asInjectResponse, dayFromNow, partnerOverHttp } from '../helpers/e2e.js';
import { serviceStorageEnv, startServiceProcess, type ServiceProcess } from '../helpers/process.js';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const onPostgres = currentBackend() === 'postgres';
const CRM = 'crm1';
const KEY = 'key-one';


async function started(env: Record<string, string>): Promise<{ svc: ServiceProcess; base: string }> {
  const svc = startServiceProcess({ ...env, API_KEYS: `${CRM}:${KEY}` });
  cleanups.push(() => svc.child.exitCode === null && svc.child.kill('SIGKILL'));
  return { svc, base: await svc.listening };
}

/** The public flow's fixtures' view of a service process: their requests go over HTTP to `base`. */
function overHttp(base: string): TestApp {
  const inject = async (o: { method: string; url: string; headers?: Record<string, string>; payload?: object }) =>
    asInjectResponse(
      await fetch(new URL(o.url, base), {
        method: o.method,
        headers: { ...o.headers, ...(o.payload ? { 'content-type': 'application/json' } : {}) },
        body: o.payload ? JSON.stringify(o.payload) : undefined,
      }),
    );
  return { app: { inject } } as unknown as TestApp;
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

async function bookableResource(t: TestApp, base: string): Promise<Booking> {
  const b = await setupBooking(t, { partner: partnerOverHttp(base, CRM, KEY) });
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
    const { base } = await started(await serviceStorageEnv(cleanups));
    const t = overHttp(base);
    const b = await bookableResource(t, base);
    await upcoming(t, b.resource.uuid);
    expect(await readsFor(t, base, b, 20)).toBeLessThan(10);

    const start = await bookFirst(t, b);
    const after = flatten(await upcoming(t, b.resource.uuid));
    expect(after.map((s) => s.start)).not.toContain(start);
  });
});

describe.skipIf(!onPostgres)('an instance joining the database', () => {
  it('ends the first instance\'s reads-free answers before it serves: a booking through it shows on the first at once; once it left, they resume', async () => {
    const env = await serviceStorageEnv(cleanups);
    const first = await started(env);
    const t1 = overHttp(first.base);
    const b = await bookableResource(t1, first.base);
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
  let url: string;
  const leases: InstanceLease[] = [];
  const dbs: Db[] = [];
  /** An instance's lease on a handle of its own, joined; how long joining took. */
  const joined = async () => {
    const id = randomUUID();
    const db = await openDb({ databaseUrl: url, dataDir: '', applicationName: instanceApplicationName(id) });
    dbs.push(db);
    const lease = instanceLease(db, id, (err) => expect.fail(String(err)));
    leases.push(lease);
    const asked = performance.now();
    await lease.join();
    return { lease, db, tookMs: performance.now() - asked };
  };
  const heldWithin = async (lease: InstanceLease, held: boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (lease.held() !== held) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const leaveAll = async () => {
    for (const l of leases.splice(0)) await l.leave();
    for (const db of dbs.splice(0)) await db.close().catch(() => undefined); // closed already by a test
  };

  beforeAll(async () => {
    const created = await createPostgresDatabase();
    url = created.url;
    cleanups.push(created.drop);
    cleanups.push(leaveAll);
    const db = await openDb({ databaseUrl: url, dataDir: '' });
    await migrate(db);
    await db.close();
  });

  it('is held by an instance alone; one joining waits out its lease, which it then no longer holds; it is held again once the other left, trusting nothing read before', async () => {
    const a = await joined();
    expect(a.lease.held()).toBe(true);
    const beforeB = a.db.writes.mark();
    const b = await joined();
    expect(b.tookMs).toBeGreaterThanOrEqual(JOIN_WAIT_MS);
    expect(a.lease.held()).toBe(false);
    expect(b.lease.held()).toBe(false);

    await b.lease.leave();
    await b.db.close();
    await heldWithin(a.lease, true, 5_000);
    // b may have written while a did not hold the lease: what a read before is not trusted
    expect(a.db.writes.quiet(beforeB)).toBe(false);
  });

  it('is not held while anything else is connected to the database (a script, psql, an older version), and is again once it left', async () => {
    await leaveAll();
    const { lease } = await joined();
    await heldWithin(lease, true, 5_000);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await heldWithin(lease, false, LEASE_MS + 1_000);
    await other.end();
    await heldWithin(lease, true, 5_000);
  });
});
