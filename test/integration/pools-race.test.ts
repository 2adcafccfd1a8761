/**
 * Pools under concurrency (issue 53, DESIGN 7.11): K real HTTP requests at once for one time on a
 * pool of N free members: exactly N succeed, each on another member, the rest 412 "201"; on
 * PostgreSQL also spread over two service instances on one database. With booking limits: members
 * at their limit are skipped, never booked over it, under the same races. And fairness:
 * LEAST_RECENTLY_BOOKED over 600 bookings one after another leaves the members' counts at most 1 apart.
 * Reschedules of pool bookings racing onto one time (by pool_uuid and onto one member): no member twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { currentBackend } from '../helpers/db.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consumer, flatten, upcoming } from '../helpers/bookingFixtures.js';
import { memberTimeslots, setupPool, type PoolSetup } from '../helpers/poolFixtures.js';

let t: TestApp;
let second: App | null = null;
const bases: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 1_000_000, maxHoldsPerIp: 1_000_000 });
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
async function post(base: string, path: string, body: object) {
  ip++;
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${(ip >> 8) & 255}.${ip & 255}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as {
    errors?: { errorCode: string }[];
    createdAppointment?: { resource_uuid: string; cancelLink: string };
    participation?: { resource_uuid: string };
  };
  return {
    status: res.status,
    errorCode: json.errors?.[0]?.errorCode,
    member: (json.createdAppointment ?? json.participation)?.resource_uuid,
    cancelLink: json.createdAppointment?.cancelLink,
  };
}

interface PoolSlot {
  start: string;
  end: string;
  capacity_left: number;
}

async function race(s: PoolSetup, slot: PoolSlot, racers: number) {
  const ref = encodeURIComponent(s.pool.reference);
  return Promise.all(
    Array.from({ length: racers }, (_, i) => {
      const base = bases[i % bases.length];
      const common = { pool_uuid: s.pool.uuid, product_uuid: s.product.uuid };
      return i % 2 === 0
        ? post(base, `/resources/${ref}/create_appointment_with_consumer`, {
            ...common,
            start: slot.start,
            end: slot.end,
            ...consumer(),
          })
        : post(base, `/rest/1/resources/${ref}/reserve_appointment`, { ...common, from: slot.start, to: slot.end });
    }),
  );
}

/** Live participations per member and local date, read from the database. */
async function liveByMember(s: PoolSetup) {
  const rows = await t.db.query<{ resource_id: string; n: number; overlapping: number }>(
    `SELECT a.resource_id, count(*)::int AS n,
            (SELECT count(*)::int FROM appointments x JOIN appointments y
                 ON x.resource_id = y.resource_id AND x.id < y.id AND x.state = 'ACTIVE' AND y.state = 'ACTIVE'
                AND tstzrange(x.start_at, x.end_at) && tstzrange(y.start_at, y.end_at)
              WHERE x.resource_id = a.resource_id) AS overlapping
       FROM appointments a JOIN participations p ON p.appointment_id = a.id
      WHERE a.resource_id = ANY($1::uuid[]) AND p.state IN ('RESERVED', 'REQUESTED', 'BOOKED')
      GROUP BY a.resource_id`,
    [s.members.map((m) => m.uuid)],
  );
  return rows;
}

describe('pools under concurrent requests', () => {
  it('K > N requests for one time on N free members: N win on N members, the rest 412 "201"', async () => {
    const s = await setupPool(t, 4);
    await memberTimeslots(s, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00' }]);
    const slots = flatten(await upcoming(t, s.pool.reference)) as unknown as PoolSlot[];
    for (const slot of slots.slice(0, 3)) {
      const results = await race(s, slot, 12);
      const won = results.filter((r) => r.status === 201);
      expect(won).toHaveLength(4);
      expect(new Set(won.map((r) => r.member)).size).toBe(4);
      for (const r of results.filter((x) => x.status !== 201)) expect([r.status, r.errorCode]).toEqual([412, '201']);
    }
    for (const row of await liveByMember(s)) {
      expect(row.n).toBe(3);
      expect(row.overlapping).toBe(0);
    }
  });

  it('members at their booking limit are skipped under a race, never booked over it', async () => {
    const s = await setupPool(t, 3);
    await memberTimeslots(s, [{ start: '2026-06-03T09:00', end: '2026-06-03T12:00' }]);
    for (const m of s.members.slice(0, 2)) {
      const res = await s.p.call('POST', `${s.base}/resources/${encodeURIComponent(m.reference)}`, {
        bookingLimits: { perDay: 2 },
      });
      expect(res.statusCode).toBe(202);
    }
    const slots = flatten(await upcoming(t, s.pool.reference)) as unknown as PoolSlot[];
    const results = (await Promise.all(slots.map((slot) => race(s, slot, 3)))).flat();
    const won = results.filter((r) => r.status === 201);
    // member 3 takes one per slot (6), members 1 and 2 at most 2 each
    expect(won).toHaveLength(6 + 2 + 2);
    const counts = new Map<string, number>();
    for (const r of won) counts.set(r.member!, (counts.get(r.member!) ?? 0) + 1);
    expect(counts.get(s.members[0].uuid)).toBe(2);
    expect(counts.get(s.members[1].uuid)).toBe(2);
    expect(counts.get(s.members[2].uuid)).toBe(6);
    for (const r of results.filter((x) => x.status !== 201)) expect([r.status, r.errorCode]).toEqual([412, '201']);
  });
});

describe('reschedules of pool bookings under a race', () => {
  it('onto one time, through the pool or onto one member: each member taken once, the others stay', async () => {
    const s = await setupPool(t, 3);
    const day = '2026-06-04';
    await memberTimeslots(s, [{ start: `${day}T09:00`, end: `${day}T12:00` }]);
    const slots = flatten(await upcoming(t, s.pool.reference)) as unknown as PoolSlot[];
    const at = (time: string) => slots.find((x) => x.start.startsWith(`${day}T${time}`))!;
    // six bookings through the pool: at 09:00 and at 09:30, one on each member
    const ref = encodeURIComponent(s.pool.reference);
    const booked: { cancelLink: string; member: string }[] = [];
    for (const time of ['09:00', '09:30'])
      for (let i = 0; i < 3; i++) {
        const r = await post(bases[0], `/resources/${ref}/create_appointment_with_consumer`, {
          pool_uuid: s.pool.uuid,
          product_uuid: s.product.uuid,
          start: at(time).start,
          end: at(time).end,
          ...consumer(),
        });
        expect(r.status).toBe(201);
        booked.push({ cancelLink: r.cancelLink!, member: r.member! });
      }
    expect(new Set(booked.map((b) => b.member)).size).toBe(3);
    // all move to 11:00 at once: half through the pool (any member), half onto member 1's slot
    const target = at('11:00');
    const onFirst = flatten(await upcoming(t, s.members[0].reference)).find((x) => x.start === target.start)!;
    const results = await Promise.all(
      booked.map((b, i) =>
        post(
          bases[i % bases.length],
          `/rest/1/bookings/${encodeURIComponent(new URL(b.cancelLink).pathname.split('/').pop()!)}/reschedule`,
          {
            start: target.start,
            end: target.end,
            ...(i % 2 === 0 ? { pool_uuid: s.pool.uuid } : { timeslot_uuid: onFirst.timeslot_uuid }),
          },
        ),
      ),
    );
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(3);
    expect(new Set(won.map((r) => r.member)).size).toBe(3);
    for (const r of results.filter((x) => x.status !== 200)) expect([r.status, r.errorCode]).toEqual([412, '201']);
    // in the database: each booking on the member its answer names (the winner's new one, else its
    // own), which of them moved decided by the race; none overlapping
    const expected = new Map<string, number>();
    booked.forEach((b, i) => {
      const member = results[i].status === 200 ? results[i].member! : b.member;
      expected.set(member, (expected.get(member) ?? 0) + 1);
    });
    const rows = await liveByMember(s);
    expect(new Map(rows.map((row) => [row.resource_id, row.n]))).toEqual(expected);
    for (const row of rows) expect(row.overlapping).toBe(0);
    const [{ n }] = await t.db.query<{ n: number }>(
      `SELECT count(DISTINCT a.resource_id)::int AS n
         FROM appointments a JOIN participations p ON p.appointment_id = a.id
        WHERE a.resource_id = ANY($1::uuid[]) AND a.start_at = $2 AND p.state = 'BOOKED'`,
      [s.members.map((m) => m.uuid), new Date(target.start)],
    );
    expect(n).toBe(3);
  });
});

describe('fairness', () => {
  it('LEAST_RECENTLY_BOOKED: 600 bookings one after another leave the counts at most 1 apart', async () => {
    const s = await setupPool(t, 7);
    // 600 slots of 30 minutes on every member: 25 days of 12 hours
    await memberTimeslots(
      s,
      Array.from({ length: 25 }, (_, d) => {
        const day = new Date(Date.UTC(2026, 5, 2 + d)).toISOString().slice(0, 10);
        return { start: `${day}T08:00`, end: `${day}T20:00` };
      }),
    );
    const slots = flatten(await upcoming(t, s.pool.reference)) as unknown as PoolSlot[];
    expect(slots).toHaveLength(600);
    const counts = new Map<string, number>();
    const ref = encodeURIComponent(s.pool.reference);
    for (const slot of slots) {
      const r = await post(bases[0], `/resources/${ref}/create_appointment_with_consumer`, {
        pool_uuid: s.pool.uuid,
        product_uuid: s.product.uuid,
        start: slot.start,
        end: slot.end,
        ...consumer(),
      });
      expect(r.status).toBe(201);
      counts.set(r.member!, (counts.get(r.member!) ?? 0) + 1);
    }
    const values = s.members.map((m) => counts.get(m.uuid) ?? 0);
    expect(values.reduce((a, b) => a + b, 0)).toBe(600);
    expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
  }, 600_000);
});
