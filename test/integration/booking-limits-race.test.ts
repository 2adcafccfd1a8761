/**
 * The database enforces booking limits under concurrency (issue 53, DESIGN 7.11): RACERS real HTTP
 * requests at once, each for another free slot of one resource on one date (or in one ISO week),
 * with perDay (perWeek) = N: exactly N win and the rest get 412 BOOKING_LIMIT, on this backend and,
 * on PostgreSQL, also with two service instances on one database. The same for one consumer's A3s
 * (one e-mail, a new user, cases mixed) on different slots with maxUpcomingBookingsPerConsumer = M:
 * exactly M win, the rest get 409 CONSUMER_LIMIT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { currentBackend } from '../helpers/db.js';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';

const RACERS = 16;
const ROUNDS = 2;

let t: TestApp;
let second: App | null = null;
const bases: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000 });
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
async function post(base: string, path: string, body: object): Promise<{ status: number; errorCode?: string }> {
  ip++;
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.8.${(ip >> 8) & 255}.${ip & 255}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { errors?: { errorCode: string }[] };
  return { status: res.status, errorCode: json.errors?.[0]?.errorCode };
}

type Kind = 'reserve' | 'create';

interface Race {
  b: Booking;
  slots: ListedBookable[];
  kind: Kind;
  instances: string[];
  /** the consumer of each A3 (default: a new one each) */
  who?: () => object;
}

const A3 = 'create_appointment_with_consumer';

/** Every racer asks for another listed slot at once, spread over the instances. */
async function raceSlots({ b, slots, kind, instances, who = consumer }: Race) {
  const ref = encodeURIComponent(b.resource.reference);
  const path = kind === 'reserve' ? `/rest/1/resources/${ref}/reserve_appointment` : `/resources/${ref}/${A3}`;
  const body = (slot: ListedBookable) =>
    kind === 'reserve' ? reserveBodyFor(slot, b.product.uuid) : bookBodyFor(slot, b.product.uuid, undefined, who());
  return Promise.all(slots.map((slot, i) => post(instances[i % instances.length], path, body(slot))));
}

/** Live participations of the resource, per local date in Berlin. */
async function livePerDate(resourceId: string): Promise<Record<string, number>> {
  const rows = await t.db.query<{ day: string; n: number }>(
    `SELECT to_char(a.start_at AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD') AS day, count(*)::int AS n
       FROM appointments a JOIN participations p ON p.appointment_id = a.id
      WHERE a.resource_id = $1 AND a.state = 'ACTIVE' AND NOT a.archived
        AND participation_is_live(p.state, p.hold_until, $2)
      GROUP BY 1 ORDER BY 1`,
    [resourceId, t.clock.now()],
  );
  return Object.fromEntries(rows.map((r) => [r.day, r.n]));
}

type Outcome = { status: number; errorCode?: string };

function expectExactly(wins: number, refusal: Outcome, results: Outcome[]) {
  expect(results.filter((r) => r.status === 201).length, JSON.stringify(results)).toBe(wins);
  const refused = results.filter((r) => r.status !== 201);
  const expected = refused.every((r) => r.status === refusal.status && r.errorCode === refusal.errorCode);
  expect(expected, JSON.stringify(results)).toBe(true);
}

const BOOKING_LIMIT = { status: 412, errorCode: 'BOOKING_LIMIT' };

/** perDay = N: RACERS slots of one date (Tuesday 2026-06-02 in Berlin), each asked for once, at once. */
async function dayRound(kind: Kind, instances: string[], perDay: number) {
  const b = await setupBooking(t, { timeZone: 'Europe/Berlin', resource: { bookingLimits: { perDay } } });
  await createTimeslots(b, [{ start: '2026-06-02T08:00', end: '2026-06-02T16:00', raster: 30 }]);
  const slots = flatten(await upcoming(t, b.resource.reference));
  expect(slots).toHaveLength(RACERS);
  expectExactly(perDay, BOOKING_LIMIT, await raceSlots({ b, slots, kind, instances }));
  expect(await livePerDate(b.resource.uuid)).toEqual({ '2026-06-02': perDay });
}

/** perWeek = N: RACERS slots over the five working days of ISO week 2026-W24, at once. */
async function weekRound(kind: Kind, instances: string[], perWeek: number) {
  const b = await setupBooking(t, { timeZone: 'Europe/Berlin', resource: { bookingLimits: { perWeek } } });
  const days = ['08', '09', '10', '11', '12'];
  await createTimeslots(
    b,
    days.map((d) => ({ start: `2026-06-${d}T09:00`, end: `2026-06-${d}T11:00`, raster: 30 })),
  );
  const slots = flatten(await upcoming(t, b.resource.reference)).slice(0, RACERS);
  expect(slots).toHaveLength(RACERS);
  expectExactly(perWeek, BOOKING_LIMIT, await raceSlots({ b, slots, kind, instances }));
  expect(Object.values(await livePerDate(b.resource.uuid)).reduce((x, y) => x + y, 0)).toBe(perWeek);
}

/** maxUpcomingBookingsPerConsumer = M: one consumer (a new e-mail, its case varied) books RACERS slots at once. */
async function consumerRound(instances: string[], max: number) {
  const b = await setupBooking(t, { timeZone: 'Europe/Berlin' });
  const provider = `/provider/${encodeURIComponent(b.provider.providerRef)}`;
  const set = await b.p.call('PUT', provider, { maxUpcomingBookingsPerConsumer: max });
  expect(set.statusCode, set.body).toBe(200);
  await createTimeslots(b, [{ start: '2026-06-02T08:00', end: '2026-06-02T16:00', raster: 30 }]);
  const slots = flatten(await upcoming(t, b.resource.reference));
  const email = `${uniqueId('racer')}@consumer.example`;
  let n = 0;
  const who = () => consumer({ email: n++ % 2 ? email.toUpperCase() : email });
  const results = await raceSlots({ b, slots, kind: 'create', instances, who });
  expectExactly(max, { status: 409, errorCode: 'CONSUMER_LIMIT' }, results);
  const [{ booked, users }] = await t.db.query<{ booked: number; users: number }>(
    `SELECT (SELECT count(*)::int FROM participations p JOIN customers c ON c.id = p.customer_id
              WHERE c.provider_id = $1 AND lower(c.email) = lower($2) AND p.state IN ('REQUESTED', 'BOOKED')) AS booked,
            (SELECT count(*)::int FROM users WHERE lower(email) = lower($2)) AS users`,
    [b.provider.providerUuid, email],
  );
  expect({ booked, users }).toEqual({ booked: max, users: 1 });
}

const suites: { name: string; instances: () => string[]; runIf: boolean }[] = [
  { name: `one service instance (${currentBackend()})`, instances: () => bases.slice(0, 1), runIf: true },
  {
    name: 'two service instances on one PostgreSQL database',
    instances: () => bases,
    runIf: currentBackend() === 'postgres',
  },
];

for (const suite of suites) {
  describe.runIf(suite.runIf)(`booking limits under ${RACERS} concurrent requests, ${suite.name}`, () => {
    for (const kind of ['reserve', 'create'] as const) {
      it(`perDay = 3: exactly 3 of ${RACERS} concurrent ${kind} requests on one date win`, async () => {
        expect(suite.instances().length).toBe(suite.runIf && suite.name.startsWith('two') ? 2 : 1);
        for (let round = 0; round < ROUNDS; round++) await dayRound(kind, suite.instances(), 3);
      }, 120_000);
      it(`perWeek = 4: exactly 4 of ${RACERS} concurrent ${kind} requests in one week win`, async () => {
        for (let round = 0; round < ROUNDS; round++) await weekRound(kind, suite.instances(), 4);
      }, 120_000);
    }
    for (const max of [1, 2]) {
      it(`maxUpcomingBookingsPerConsumer = ${max}: exactly ${max} of ${RACERS} A3 of one consumer win`, async () => {
        for (let round = 0; round < ROUNDS; round++) await consumerRound(suite.instances(), max);
      }, 120_000);
    }
  });
}
