/**
 * Issue 13: no write waits on unrelated work. While another session holds the locks of an
 * unfinished change (a booking, or a provider, product, profile or resource update), the service
 * answers requests that touch other rows, also of the same resource and provider. The service under
 * test runs on connections with a lock_timeout, so a request that waited for a lock would fail,
 * and a sampler watches pg_locks for any lock request not granted while the requests run.
 * PostgreSQL only: PGlite runs one transaction at a time.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { claimPlace } from '../../src/scheduling/claimPlace.js';
import type { Queryable } from '../../src/storage/db.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTimeslots, setupBooking, type Booking } from '../helpers/bookingFixtures.js';
import { currentBackend } from '../helpers/db.js';
import { createResource } from '../helpers/offeringsFixtures.js';

const postgres = currentBackend() === 'postgres';

let t: TestApp;
let app: App;
let b: Booking;
let blocker: pg.Client;
let contactRef: string;
const resources: { uuid: string; reference: string; timeslot: string }[] = [];

const limits = { bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000 };
const asQueryable = (c: pg.Client): Queryable => ({
  query: async (sql, params) => (await c.query(sql, params)).rows,
  exec: async (sql) => void (await c.query(sql)),
});

beforeAll(async () => {
  if (!postgres) return;
  t = await startTestApp(limits);
  const dbName = new URL(t.database.url!).pathname.slice(1);
  await t.db.exec(`ALTER DATABASE ${dbName} SET lock_timeout = '2s'`);
  // the service under test: a pool opened after the setting, so every session of it has the timeout
  app = await buildApp({ config: t.config, db: await t.database.openAnother(), clock: t.clock, logger: false });
  b = await setupBooking(t);
  contactRef = `contact-${Date.now()}@crm`;
  expect(
    (
      await b.p.call('POST', '/user', {
        reference: contactRef,
        email: `${contactRef.replace('@', '.')}@example.com`,
        username: contactRef.replace('@', '-'),
        lastName: 'Contact',
      })
    ).statusCode,
  ).toBe(201);
  const profile = await b.p.call('PUT', `/user/${contactRef}/generalContactProfile`, {
    name: 'Contact',
    contactChannels: [{ type: 'email', value: 'contact@example.com' }],
  });
  expect(profile.statusCode, profile.body).toBe(201);
  for (let i = 0; i < 3; i++) {
    const r = await createResource(b.p, b.provider.providerRef, {
      products: [b.product.reference],
      contact: contactRef,
    });
    const [ts] = await createTimeslots({ ...b, resource: r }, [
      { resourceReference: r.reference, start: '2026-06-02T09:00', end: '2026-06-02T17:00', raster: 30 },
    ]);
    resources.push({ uuid: r.uuid, reference: r.reference, timeslot: ts.uuid });
  }
  blocker = new pg.Client({ connectionString: t.database.url });
  await blocker.connect();
}, 120_000);

afterAll(async () => {
  if (!postgres) return;
  await blocker.end();
  await app.close();
  await t.close();
});

/** The UTC instant of 2026-06-02 at `hhmm` in Europe/Berlin (UTC+2 in June). */
const at = (hhmm: string) => new Date(`2026-06-02T${hhmm}:00+02:00`);
let client = 0;

function post(path: string, body: object) {
  client++;
  return app.inject({
    method: 'POST',
    url: path,
    payload: body,
    headers: { 'x-forwarded-for': `10.13.${(client >> 8) & 255}.${client & 255}` },
  });
}

/** Reserve and book one slot through the service; both answers. */
async function reserveAndBook(resource: (typeof resources)[number], hhmm: string): Promise<number[]> {
  const from = at(hhmm).toISOString();
  const to = new Date(at(hhmm).getTime() + 30 * 60_000).toISOString();
  const held = await post(`/rest/1/resources/${resource.uuid}/reserve_appointment`, {
    timeslot_uuid: resource.timeslot,
    product_uuid: b.product.uuid,
    from,
    to,
  });
  if (held.statusCode !== 201) return [held.statusCode];
  const booked = await post(`/resources/${resource.uuid}/create_appointment_with_consumer`, {
    start: from,
    end: to,
    timeslot_uuid: resource.timeslot,
    product_uuid: b.product.uuid,
    placeholder_id: held.json().participation.customer_uuid,
    email: `c${client}@consumer.example`,
    firstname: 'Erika',
    lastname: 'Muster',
  });
  return [held.statusCode, booked.statusCode];
}

/**
 * Runs `requests` while the blocker's transaction (after `hold`)
 * is open; asserts no lock request of the service waited meanwhile.
 */
async function whileUncommitted<T>(hold: (q: Queryable) => Promise<unknown>, requests: () => Promise<T>): Promise<T> {
  await blocker.query('BEGIN');
  try {
    await hold(asQueryable(blocker));
    let waits = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [{ n }] = await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted
             AND a.datname = current_database()`,
        );
        waits = Math.max(waits, n);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const result = await requests();
    sampling = false;
    await sampler;
    expect(waits, 'lock requests that had to wait').toBe(0);
    return result;
  } finally {
    await blocker.query('ROLLBACK');
  }
}

/** A booking of slot `hhmm` on the resource, made by the blocker's session and left uncommitted. */
const uncommittedBooking = (resource: (typeof resources)[number], hhmm: string) => async (q: Queryable) => {
  await claimPlace(q, {
    participation: {
      crmId: b.p.crmId,
      providerId: b.provider.providerUuid,
      reference: `blocker-${hhmm}-${resource.uuid}@test`,
      customerId: null,
      state: 'RESERVED',
      holdUntil: new Date('2030-01-01'),
    },
    now: t.clock.now(),
    source: 'public',
    create: {
      appointment: {
        id: randomUUID(),
        crmId: b.p.crmId,
        providerId: b.provider.providerUuid,
        resourceId: resource.uuid,
        productId: b.product.uuid,
        timeslotId: resource.timeslot,
        reference: `blocker-${hhmm}-${resource.uuid}@test`,
        start: at(hhmm),
        end: new Date(at(hhmm).getTime() + 30 * 60_000),
        capacity: 1,
        acceptBookings: true,
        createdByPublicFlow: true,
      },
      buffers: { leadMin: 0, followUpMin: 0 },
    },
  });
};

describe.skipIf(!postgres)('no write waits on unrelated work (PostgreSQL)', () => {
  it('books slots of a resource while another booking of the same resource is uncommitted, and lists it', async () => {
    const r = resources[0];
    const answers = await whileUncommitted(uncommittedBooking(r, '09:00'), async () => [
      ...(await reserveAndBook(r, '09:30')),
      ...(await reserveAndBook(r, '10:00')),
      (await app.inject({ method: 'GET', url: `/resources/${r.uuid}/upcoming_bookables` })).statusCode,
    ]);
    expect(answers).toEqual([201, 201, 201, 201, 200]);
  });

  it('books while a provider, product, contact profile and resource update are uncommitted', async () => {
    const [r1, r2] = resources;
    const answers = await whileUncommitted(
      async (q) => {
        await q.query(`UPDATE providers SET name = 'Renamed' WHERE id = $1`, [b.provider.providerUuid]);
        await q.query(`UPDATE products SET description = 'changed' WHERE id = $1`, [b.product.uuid]);
        await q.query(
          `UPDATE contact_profiles SET name = 'Changed' WHERE user_id = (SELECT id FROM users WHERE reference = $1)`,
          [contactRef],
        );
        await q.query(`UPDATE resources SET description = 'changed' WHERE id = $1`, [r2.uuid]);
      },
      async () => [
        ...(await reserveAndBook(r1, '11:00')),
        ...(await reserveAndBook(r2, '11:00')),
        (await app.inject({ method: 'GET', url: `/resources/${r2.uuid}/upcoming_bookables` })).statusCode,
      ],
    );
    expect(answers).toEqual([201, 201, 201, 201, 200]);
  });

  it('answers partner writes while bookings of every resource they touch are uncommitted', async () => {
    const base = b.base;
    const answers = await whileUncommitted(
      async (q) => {
        for (const r of resources) await uncommittedBooking(r, '12:00')(q);
      },
      async () => {
        const key = { 'x-service-client-id': b.p.key };
        const call = async (method: 'POST' | 'PUT', path: string, body: object) =>
          (await app.inject({ method, url: `/crms/${b.p.crmId}${path}`, headers: key, payload: body })).statusCode;
        return [
          await call('PUT', `/provider/${encodeURIComponent(b.provider.providerRef)}`, { name: 'Acme Renamed' }),
          await call('POST', `${base}/products/${encodeURIComponent(b.product.reference)}`, { description: 'new' }),
          await call('PUT', `/user/${contactRef}/generalContactProfile`, {
            name: 'New name',
            contactChannels: [{ type: 'email', value: 'contact@example.com' }],
          }),
          await call('POST', `${base}/resources/${encodeURIComponent(resources[0].reference)}`, { description: 'new' }),
          await call('POST', `${base}/timeslots`, {
            timeslots: [
              {
                resourceReference: resources[0].reference,
                start: '2026-06-03T09:00',
                end: '2026-06-03T10:00',
                raster: 30,
                defaultCapacity: 1,
                defaultAcceptBookings: true,
                state: 'BOOKABLE',
              },
            ],
          }),
          await call('POST', `${base}/appointments`, {
            reference: `apt-${Date.now()}@crm`,
            start: '2026-06-02T12:30',
            end: '2026-06-02T13:00',
            resourceReference: resources[2].reference,
            productReference: b.product.reference,
          }),
        ];
      },
    );
    expect(answers).toEqual([200, 200, 200, 202, 201, 201]);
  });

  it('concurrent provider, product and profile updates and bookings all finish, without a deadlock', async () => {
    const [{ deadlocks: before }] = await t.db.query<{ deadlocks: number }>(
      'SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()',
    );
    const key = { 'x-service-client-id': b.p.key };
    const partner = (i: number) => {
      const call = async (method: 'POST' | 'PUT', path: string, body: object) =>
        (await app.inject({ method, url: `/crms/${b.p.crmId}${path}`, headers: key, payload: body })).statusCode;
      switch (i % 4) {
        case 0:
          return call('PUT', `/provider/${encodeURIComponent(b.provider.providerRef)}`, { name: `Acme ${i}` });
        case 1:
          return call('POST', `${b.base}/products/${encodeURIComponent(b.product.reference)}`, {
            description: `v${i}`,
          });
        case 2:
          return call('PUT', `/user/${contactRef}/generalContactProfile`, {
            name: `Contact ${i}`,
            contactChannels: [{ type: 'email', value: 'contact@example.com' }],
          });
        default:
          return call('POST', `${b.base}/resources/${encodeURIComponent(resources[i % 3].reference)}`, {
            description: `v${i}`,
          });
      }
    };
    const slots = ['13:00', '13:30', '14:00', '14:30', '15:00', '15:30', '16:00', '16:30'];
    const results = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) => partner(i)),
      ...resources.flatMap((r) => slots.map((s) => reserveAndBook(r, s))),
    ]);
    const partnerAnswers = results.slice(0, 40) as number[];
    const bookingAnswers = results.slice(40) as number[][];
    expect(partnerAnswers.every((s) => s === 200 || s === 202)).toBe(true);
    expect(bookingAnswers.every((pair) => pair.length === 2 && pair[0] === 201 && pair[1] === 201)).toBe(true);
    const [{ deadlocks: after }] = await t.db.query<{ deadlocks: number }>(
      'SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()',
    );
    expect(Number(after)).toBe(Number(before));
  });
});
