/**
 * Idempotency-Key on A2, A3 and reschedule (docs/lifecycle.md): a retry replays the first answer and does
 * the work once, on any instance; another body is 422, a key still running 409; 400 and 429 are not
 * kept; keys expire after 24 h. A commit whose outcome is unknown (answered 503) that did commit is
 * found by the retry with its key: the answer was written with the work, in its transaction.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { requestFingerprint } from '../../src/http/idempotency.js';
import type { Db } from '../../src/storage/db.js';
import { CommitUnknownError } from '../../src/storage/hosts.js';
import { claimKey } from '../../src/storage/idempotencyKeys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  publicCall,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
} from '../helpers/bookingFixtures.js';
import { currentBackend } from '../helpers/db.js';
import { bookSlot, moveBodyFor, participationOfToken, reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ maxHoldsPerIp: 1, bookingRateLimitPerMinute: 100_000 });
});
afterAll(() => t.close());

const key = () => `key-${Math.random().toString(36).slice(2)}`;

async function offer() {
  const b = await setupBooking(t);
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00', raster: 60 }]);
  return { b, slots: flatten(await upcoming(t, b.resource.reference)) };
}

const participationsOf = async (resourceId: string) =>
  (
    await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM participations p JOIN appointments a ON a.id = p.appointment_id
         WHERE a.resource_id = $1`,
      [resourceId],
    )
  )[0].n;
const mailsOf = async (crmId: string) => (await t.db.query('SELECT 1 FROM outbox WHERE crm_id = $1', [crmId])).length;
const clientIp = (n: number) => ({ 'x-forwarded-for': `10.77.0.${n}` });

describe('Idempotency-Key', () => {
  it('A3: a retry with the same key and body replays status and body (Idempotent-Replayed), books once', async () => {
    const { b, slots } = await offer();
    const body = bookBodyFor(slots[0], b.product.uuid, undefined, consumer());
    const k = key();
    const first = await book(t, b.resource.reference, body, undefined, { 'idempotency-key': k });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const mails = await mailsOf(b.p.crmId);

    // the structured-field form is the same key
    const again = await book(t, b.resource.reference, body, undefined, { 'idempotency-key': `"${k}"` });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.body).toBe(first.body);
    expect(await participationsOf(b.resource.uuid)).toBe(1);
    expect(await mailsOf(b.p.crmId)).toBe(mails);

    // without a key a booking is a new request: the slot is taken now
    expect((await book(t, b.resource.reference, { ...body, ...consumer() })).statusCode).toBe(412);
  });

  it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED; on another path it is another key', async () => {
    const { b, slots } = await offer();
    const k = key();
    const first = await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid), undefined, {
      'idempotency-key': k,
      ...clientIp(1),
    });
    expect(first.statusCode, first.body).toBe(201);
    const other = await reserve(t, b.resource.reference, reserveBodyFor(slots[1], b.product.uuid), undefined, {
      'idempotency-key': k,
      ...clientIp(1),
    });
    expect(other.statusCode).toBe(422);
    expect(other.json().errors[0].errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(other.headers['idempotent-replayed']).toBeUndefined();

    const booked = await book(
      t,
      b.resource.reference,
      bookBodyFor(slots[0], b.product.uuid, first.json().participation.customer_uuid),
      undefined,
      { 'idempotency-key': k },
    );
    expect(booked.statusCode, booked.body).toBe(201);
    expect(booked.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps a 412 (replayed), not a 400 or a 429: after those the key is free for the corrected request', async () => {
    const { b, slots } = await offer();
    await bookSlot(t, b, slots[0]);
    const taken = reserveBodyFor(slots[0], b.product.uuid);
    const k412 = key();
    expect(
      (await reserve(t, b.resource.reference, taken, undefined, { 'idempotency-key': k412, ...clientIp(2) }))
        .statusCode,
    ).toBe(412);
    const replayed = await reserve(t, b.resource.reference, taken, undefined, {
      'idempotency-key': k412,
      ...clientIp(2),
    });
    expect(replayed.statusCode).toBe(412);
    expect(replayed.headers['idempotent-replayed']).toBe('true');

    const k400 = key();
    const bad = await reserve(
      t,
      b.resource.reference,
      { ...reserveBodyFor(slots[1], b.product.uuid), to: '2026-06-02T10:30:00+02:00' },
      undefined,
      { 'idempotency-key': k400, ...clientIp(2) },
    );
    expect(bad.statusCode).toBe(400);
    const fixed = await reserve(t, b.resource.reference, reserveBodyFor(slots[1], b.product.uuid), undefined, {
      'idempotency-key': k400,
      ...clientIp(2),
    });
    expect(fixed.statusCode, fixed.body).toBe(201);

    // MAX_HOLDS_PER_IP is 1 here: a second hold from this address is 429, then possible once the first expired
    const k429 = key();
    const second = reserveBodyFor(slots[2], b.product.uuid);
    const limited = await reserve(t, b.resource.reference, second, undefined, {
      'idempotency-key': k429,
      ...clientIp(2),
    });
    expect(limited.statusCode).toBe(429);
    t.clock.advance(181_000);
    try {
      const later = await reserve(t, b.resource.reference, second, undefined, {
        'idempotency-key': k429,
        ...clientIp(2),
      });
      expect(later.statusCode, later.body).toBe(201);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first runs, and runs the key again once that is dead', async () => {
    const { b, slots } = await offer();
    const booked = await bookSlot(t, b, slots[0]);
    const body = moveBodyFor(slots[1]);
    const k = key();
    const scope = { method: 'POST', path: `/rest/1/bookings/${encodeURIComponent(booked.token)}/reschedule`, key: k };
    // another instance has claimed the key for this very request and is still at it
    expect((await claimKey(t.db, scope, requestFingerprint({}, body), t.clock.now())).kind).toBe('run');
    const busy = await reschedule(t, booked.token, body, { 'idempotency-key': k });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().errors[0].errorCode).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(busy.headers['retry-after']).toBe('1');
    expect((await participationOfToken(t, booked.token)).appointment_id).toBe(booked.appointment_uuid);

    // that instance died: after its lease (60 s) the key runs here
    t.clock.advance(61_000);
    try {
      const moved = await reschedule(t, booked.token, body, { 'idempotency-key': k });
      expect(moved.statusCode, moved.body).toBe(200);
      const replay = await reschedule(t, booked.token, body, { 'idempotency-key': k });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(moved.body);
      expect(
        await t.db.query(`SELECT 1 FROM outbox WHERE crm_id = $1 AND template = 'booking-rescheduled'`, [b.p.crmId]),
      ).toHaveLength(1);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('expires a key after 24 hours', async () => {
    const { b, slots } = await offer();
    const k = key();
    expect(
      (
        await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid), undefined, {
          'idempotency-key': k,
          ...clientIp(3),
        })
      ).statusCode,
    ).toBe(201);
    t.clock.advance(24 * 3_600_000 - 60_000);
    try {
      const reused = await reserve(t, b.resource.reference, reserveBodyFor(slots[1], b.product.uuid), undefined, {
        'idempotency-key': k,
        ...clientIp(3),
      });
      expect(reused.statusCode).toBe(422);
      t.clock.advance(61_000);
      // the first hold's place, so this address may hold again
      await t.db.query("DELETE FROM participations WHERE client_ip = '10.77.0.3'");
      // a day later the slots are in the past: what matters is that the key runs anew (no 422, no replay)
      const fresh = await reserve(t, b.resource.reference, reserveBodyFor(slots[1], b.product.uuid), undefined, {
        'idempotency-key': k,
        ...clientIp(3),
      });
      expect(fresh.statusCode).toBe(409);
      expect(fresh.json().errors[0].errorCode).toBe('TOO_LATE');
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('rejects a malformed key with 400 naming the header', async () => {
    const { b, slots } = await offer();
    const res = await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid), undefined, {
      'idempotency-key': 'x'.repeat(256),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toMatch(/^header\.idempotency-key must be 1 to 255 visible ASCII characters/);
  });

  it('allows the header in a CORS preflight that asks for it, and answers A6 exactly otherwise', async () => {
    const path = '/rest/1/resources/x@y/reserve_appointment';
    const plain = await publicCall(t, 'OPTIONS', path, undefined, undefined, { origin: 'https://partner.example' });
    expect(plain.headers['access-control-allow-headers']).toBe(
      'Origin, X-Requested-With, Content-Type, Accept, Authorization, X-Auth-Token',
    );
    const asking = await publicCall(t, 'OPTIONS', path, undefined, undefined, {
      origin: 'https://partner.example',
      'access-control-request-headers': 'content-type,idempotency-key',
    });
    expect(asking.headers['access-control-allow-headers']).toBe(
      'Origin, X-Requested-With, Content-Type, Accept, Authorization, X-Auth-Token, Idempotency-Key',
    );
  });
});

/**
 * The database as an instance sees it when its connection is lost after COMMIT was sent and the
 * commit did go through (test/integration/storage-failover.test.ts makes that happen with a real
 * server): every transaction commits on the real database, then fails as db.ts reports such a
 * commit, with a CommitUnknownError (answered 503).
 */
function lostAfterCommit(db: Db): Db {
  return {
    kind: db.kind,
    query: <T>(sql: string, params?: unknown[]) => db.query<T>(sql, params),
    exec: (sql: string) => db.exec(sql),
    transaction: async (fn) => {
      await db.transaction(fn);
      throw new CommitUnknownError('the connection to the database was lost at commit');
    },
    close: async () => undefined,
  };
}

describe('Idempotency-Key after a commit whose outcome was unknown (DESIGN.md §7.13)', () => {
  let lossy: App;
  beforeAll(async () => {
    lossy = await buildApp({ config: t.config, db: lostAfterCommit(t.db), clock: t.clock, logger: false });
  });
  afterAll(() => lossy.close());

  it('A3 on a hold answered 503 but booked: the retry with its key gets 201 with that booking', async () => {
    const { b, slots } = await offer();
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid), undefined, {
      ...clientIp(5),
    });
    expect(held.statusCode, held.body).toBe(201);
    const body = bookBodyFor(slots[0], b.product.uuid, held.json().participation.customer_uuid, consumer());
    const k = key();
    const url = `/resources/${encodeURIComponent(b.resource.reference)}/create_appointment_with_consumer`;
    const lost = await lossy.inject({ method: 'POST', url, payload: body, headers: { 'idempotency-key': k } });
    expect(lost.statusCode, lost.body).toBe(503);
    expect(lost.json().errors[0].errorCode).toBe('DATABASE_UNAVAILABLE');
    expect(lost.json().errors[0].message).toMatch(/may or may not have been saved/);
    const [booking] = await t.db.query<{ id: string; state: string; appointment_id: string }>(
      `SELECT p.id, p.state, p.appointment_id FROM participations p JOIN appointments a ON a.id = p.appointment_id
        WHERE a.resource_id = $1`,
      [b.resource.uuid],
    );
    expect(booking.state, 'the hold became the booking: the commit went through').toBe('BOOKED');
    const mails = await mailsOf(b.p.crmId);

    const retry = await book(t, b.resource.reference, body, undefined, { 'idempotency-key': k });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const created = retry.json().createdAppointment;
    expect(created.appointment_uuid).toBe(booking.appointment_id);
    expect((await participationOfToken(t, tokenOf(created.cancelLink))).id).toBe(booking.id);
    expect(await participationsOf(b.resource.uuid)).toBe(1);
    expect(await mailsOf(b.p.crmId), 'nothing is done again').toBe(mails);
    // again and again: the same bytes
    expect((await book(t, b.resource.reference, body, undefined, { 'idempotency-key': k })).body).toBe(retry.body);

    // another request on that hold is refused as before: the place is taken
    const other = await book(t, b.resource.reference, { ...body, ...consumer() }, undefined, {
      'idempotency-key': key(),
    });
    expect(other.statusCode, other.body).toBe(412);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await participationsOf(b.resource.uuid)).toBe(1);
  });

  it('a reschedule answered 503 but moved: the retry with its key gets 200 with the move', async () => {
    const { b, slots } = await offer();
    const booked = await bookSlot(t, b, slots[0]);
    const body = moveBodyFor(slots[1]);
    const k = key();
    const url = `/rest/1/bookings/${encodeURIComponent(booked.token)}/reschedule`;
    const lost = await lossy.inject({ method: 'POST', url, payload: body, headers: { 'idempotency-key': k } });
    expect(lost.statusCode, lost.body).toBe(503);
    const moved = await participationOfToken(t, booked.token);
    expect(moved.appointment_id, 'the move went through').not.toBe(booked.appointment_uuid);

    const retry = await reschedule(t, booked.token, body, { 'idempotency-key': k });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json().createdAppointment.appointment_uuid).toBe(moved.appointment_id);
    expect(
      await t.db.query(`SELECT 1 FROM outbox WHERE crm_id = $1 AND template = 'booking-rescheduled'`, [b.p.crmId]),
    ).toHaveLength(1);
  });

  it('a refusal (nothing written with the work) is stored after the answer, as before', async () => {
    const { b, slots } = await offer();
    await bookSlot(t, b, slots[0]);
    const body = bookBodyFor(slots[0], b.product.uuid, undefined, consumer());
    const k = key();
    const taken = await book(t, b.resource.reference, body, undefined, { 'idempotency-key': k });
    expect(taken.statusCode).toBe(412);
    const replay = await book(t, b.resource.reference, body, undefined, { 'idempotency-key': k });
    expect(replay.statusCode).toBe(412);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe.runIf(currentBackend() === 'postgres')('Idempotency-Key across instances (PostgreSQL)', () => {
  let second: App;
  beforeAll(async () => {
    second = await buildApp({ config: t.config, db: await t.database.openAnother(), clock: t.clock, logger: false });
  });
  afterAll(() => second.close());

  it('a retry on another instance replays, and one arriving while the first is blocked gets 409', async () => {
    const { b, slots } = await offer();
    const body = bookBodyFor(slots[0], b.product.uuid, undefined, consumer());
    const k = key();
    const url = `/resources/${encodeURIComponent(b.resource.reference)}/create_appointment_with_consumer`;
    const send = (app: App) => app.inject({ method: 'POST', url, payload: body, headers: { 'idempotency-key': k } });

    // hold the booking up in the database: nothing may insert appointments until the lock goes
    const blocker = new pg.Client({ connectionString: t.database.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE appointments IN EXCLUSIVE MODE');
    const first = send(t.app);
    // until the first request waits on that lock (its key is taken by then): waited for, not slept
    const waiting = async () =>
      (
        await blocker.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()
             AND wait_event_type = 'Lock'`,
        )
      ).rows[0].n;
    await expect.poll(waiting, { timeout: 25_000, interval: 20 }).toBeGreaterThanOrEqual(1);
    const meanwhile = await send(second);
    await blocker.query('COMMIT');
    await blocker.end();
    expect(meanwhile.statusCode).toBe(409);
    expect(meanwhile.json().errors[0].errorCode).toBe('IDEMPOTENCY_KEY_IN_USE');

    const done = await first;
    expect(done.statusCode, done.body).toBe(201);
    const elsewhere = await send(second);
    expect(elsewhere.statusCode).toBe(201);
    expect(elsewhere.headers['idempotent-replayed']).toBe('true');
    expect(elsewhere.body).toBe(done.body);
    expect(await participationsOf(b.resource.uuid)).toBe(1);
  });
});
