/**
 * No overbooking, ever (issue 5 §5): at least 50 concurrent real HTTP requests race for one slot;
 * exactly `capacity` of them win, every round, on this backend, and on PostgreSQL also with two
 * service instances on one database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { currentBackend } from '../helpers/db.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';

const RACERS = 50;
const ROUNDS = 3;
const limits = { bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000 };

let t: TestApp;
let second: App | null = null;
const bases: string[] = [];

beforeAll(async () => {
  t = await startTestApp(limits);
  bases.push(await t.app.listen({ port: 0, host: '127.0.0.1' }));
  if (currentBackend() === 'postgres') {
    // a second service instance: its own app and connection pool on the same database
    second = await buildApp({ config: t.config, db: await t.database.openAnother(), clock: t.clock, logger: false });
    bases.push(await second.listen({ port: 0, host: '127.0.0.1' }));
  }
}, 60_000);
afterAll(async () => {
  await second?.close();
  await t.close();
});

let ip = 0;
async function post(base: string, path: string, body: object): Promise<number> {
  ip++;
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    // every racer is another consumer, so nothing but the slot itself serializes them
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${(ip >> 8) & 255}.${ip & 255}` },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** One round: a fresh slot of the given capacity, RACERS simultaneous requests spread over the instances. */
async function race(capacity: number, kind: 'reserve' | 'create', instances: string[]) {
  const b = await setupBooking(t);
  await createTimeslots(b, [{ start: '2026-06-03T09:00', end: '2026-06-03T09:30', defaultCapacity: capacity }]);
  const [slot] = flatten(await upcoming(t, b.resource.reference)) as ListedBookable[];
  const ref = encodeURIComponent(b.resource.reference);
  const path =
    kind === 'reserve'
      ? `/rest/1/resources/${ref}/reserve_appointment`
      : `/resources/${ref}/create_appointment_with_consumer`;
  const body = () =>
    kind === 'reserve'
      ? reserveBodyFor(slot, b.product.uuid)
      : bookBodyFor(slot, b.product.uuid, undefined, consumer());
  const statuses = await Promise.all(
    Array.from({ length: RACERS }, (_, i) => post(instances[i % instances.length], path, body())),
  );
  const appointments = await t.db.query<{ id: string; capacity: number; taken: number }>(
    `SELECT a.id, a.capacity, (SELECT count(*)::int FROM participations p WHERE p.appointment_id = a.id
       AND p.state IN ('RESERVED', 'REQUESTED', 'BOOKED')) AS taken
       FROM appointments a JOIN resources r ON r.id = a.resource_id WHERE r.id = $1`,
    [b.resource.uuid],
  );
  return { statuses, appointments };
}

function expectExactly(capacity: number, result: Awaited<ReturnType<typeof race>>) {
  const wins = result.statuses.filter((s) => s === 201).length;
  expect(wins).toBe(capacity);
  expect(
    result.statuses.filter((s) => s !== 201).every((s) => s === 412),
    `statuses ${result.statuses.join(',')}`,
  ).toBe(true);
  expect(result.appointments).toEqual([{ id: expect.any(String), capacity, taken: capacity }]);
}

describe(`${RACERS} concurrent requests on one slot over HTTP (${currentBackend()})`, () => {
  for (const capacity of [1, 3]) {
    for (const kind of ['reserve', 'create'] as const) {
      it(`lets exactly ${capacity} of ${RACERS} concurrent ${kind} requests win, in ${ROUNDS} rounds`, async () => {
        for (let round = 0; round < ROUNDS; round++)
          expectExactly(capacity, await race(capacity, kind, bases.slice(0, 1)));
      }, 60_000);
    }
  }
});

describe.runIf(currentBackend() === 'postgres')(`two service instances on one PostgreSQL database`, () => {
  for (const capacity of [1, 3]) {
    for (const kind of ['reserve', 'create'] as const) {
      it(`lets exactly ${capacity} of ${RACERS} ${kind} requests on two instances win, ${ROUNDS} rounds`, async () => {
        expect(bases).toHaveLength(2);
        for (let round = 0; round < ROUNDS; round++) expectExactly(capacity, await race(capacity, kind, bases));
      }, 60_000);
    }
  }
});
