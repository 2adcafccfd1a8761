/**
 * Issue 56 (DESIGN.md §7.13): the service goes on when its database goes away, with real servers.
 * - restart: one private PostgreSQL, killed (-9) and started again under load;
 * - failover: a primary with a synchronous standby (two private clusters, test/helpers/postgresPair.ts);
 *   the service's DATABASE_URL names both hosts. The primary is killed -9 while consumers book,
 *   the standby promoted a second later (as a failover manager would) and its inherited
 *   synchronous_standby_names cleared.
 * In both: the service process lives on; every booking answered 201 is BOOKED on the database
 * afterwards; no answer is 500 and none takes 10 s; /readyz is 503 while no writable database is
 * known and 200 after; a booking is answered 201 within 10 s of the database being back; every A3
 * answered 503 and retried with its Idempotency-Key gets an answer that agrees with the database
 * (201 when the first try did commit); every acknowledged booking's confirmation mail arrives.
 * And a commit whose outcome is unknown (its wait for the synchronous standby cancelled, which
 * PostgreSQL reports only as a WARNING; its connection lost at COMMIT) is a CommitUnknownError;
 * an A3 answered so that did commit is found by its retry with the same Idempotency-Key.
 * When nothing clears synchronous_standby_names and the standby is gone, every COMMIT waits for ever:
 * the request pools' deadline (DATABASE_STATEMENT_TIMEOUT_MS) cancels it, the A3 answers 503 within
 * 10 s, and its retry once commits go through again finds the truth.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/storage/db.js';
import { CommitUnknownError } from '../../src/storage/hosts.js';
import { type AutoFailover, skipWithoutAutoFailover, startAutoFailover } from '../helpers/autoFailover.js';
import { currentBackend } from '../helpers/db.js';
import { randomBytes } from 'node:crypto';
import { runOutage, setUp, type OutageFigures } from '../helpers/failoverLoad.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { SmtpSink } from '../helpers/smtpSink.js';
import { sql, startPostgresPair, type PostgresPair } from '../helpers/postgresPair.js';
import { skipWithoutPostgresBinaries, startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.js';

/**
 * Starts a booking while `users` is locked, waits until its transaction waits for that lock (its
 * Idempotency-Key claimed and committed by then), crashes the standby and lets the booking go on:
 * its COMMIT then waits for a standby that is gone. Returns the booking's answer, still pending
 * (in an object: a promise cannot resolve to one).
 */
async function heldUntilStandbyGone<T>(p: PostgresPair, start: () => Promise<T>): Promise<{ answer: Promise<T> }> {
  const blocker = new pg.Client({ connectionString: p.primary.url });
  blocker.on('error', () => undefined);
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE users IN EXCLUSIVE MODE');
  const pending = start();
  const blocked = async () =>
    (
      await sql<{ n: number }>(
        p.primary.url,
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'
           AND query LIKE '%consumer_customer%'`,
      )
    )[0].n;
  await expect.poll(blocked, { timeout: 20_000, interval: 20 }).toBe(1);
  await p.standby.crash();
  await blocker.query('COMMIT'); // took no transaction id: nothing to wait for
  await blocker.end();
  return { answer: pending };
}

function expectSurvived(f: OutageFigures) {
  expect(f.serviceAlive, 'the service process is still running').toBe(true);
  expect(f.lost, 'bookings answered 201 and missing on the database').toBe(0);
  expect(f.answers500, 'answers 500 or another 5xx than 503').toBe(0);
  expect(f.undocumented503, '503 answers without Retry-After or the error body').toBe(0);
  expect(f.longestRequestMs, 'the longest request, ms').toBeLessThan(10_000);
  expect(f.readyDuringOutage, '/readyz while the database is away').toContain(503);
  expect(f.readyAfter).toBe(200);
  expect(
    f.listingDuringOutage.filter((s) => ![200, 204, 304, 503].includes(s)),
    'A1 while away',
  ).toEqual([]);
  expect(f.msFromHealTo201, 'ms from the database back to the first booking').toBeGreaterThanOrEqual(0);
  expect(f.msFromHealTo201).toBeLessThan(10_000);
  // a retry's answer agrees with the database: 201 exactly when it is booked now (a first try that did
  // commit stored its answer with the booking, and the retry replays it); otherwise the place is gone
  for (const r of f.retries) {
    if (r.status === 201) expect(r.booked).toBe(true);
    else expect([409, 412], JSON.stringify(r)).toContain(r.status);
    if (r.booked) expect(r.status, JSON.stringify(r)).toBe(201);
  }
  expect(f.mailsMissing, 'acknowledged bookings without their confirmation mail').toBe(0);
}

describe.runIf(currentBackend() === 'postgres' && !skipWithoutPostgresBinaries())('a database that goes away', () => {
  let server: PrivatePostgres | undefined;
  let pair: PostgresPair | undefined;
  let managed: AutoFailover | undefined;
  afterAll(async () => {
    await server?.close();
    await pair?.stop();
    await managed?.stop();
  }, 60_000);

  it('restart under load: the process lives on, nothing acknowledged is lost, it serves again', async () => {
    server = await startPrivatePostgres();
    const s = server;
    const figures = await runOutage({
      databaseUrl: s.url,
      checkUrl: s.url,
      breakDb: () => s.crash(),
      healDb: async () => {
        await new Promise((r) => setTimeout(r, 500));
        await s.start();
      },
    });
    console.info(`restart: ${JSON.stringify(figures)}`);
    await s.close();
    server = undefined;
    expectSurvived(figures);
  }, 180_000);

  it('failover to the synchronous standby: every 201 is BOOKED on the new primary, 0 answers 500', async () => {
    pair = await startPostgresPair();
    const p = pair;
    const figures = await runOutage({
      databaseUrl: p.url,
      checkUrl: p.standby.url,
      breakDb: () => p.primary.crash(),
      healDb: async () => {
        await new Promise((r) => setTimeout(r, 1000)); // a failover manager notices, then promotes
        await p.promoteStandby();
      },
    });
    console.info(`failover: ${JSON.stringify(figures)}`);
    await p.stop();
    pair = undefined;
    expectSurvived(figures);
  }, 180_000);

  it('a commit whose wait for the standby is cancelled, or whose connection is lost, is never a success', async () => {
    pair = await startPostgresPair();
    const p = pair;
    const db = await openDb({ databaseUrl: p.url, dataDir: '', poolSize: 3 });
    try {
      await db.query('CREATE TABLE commits (id int PRIMARY KEY)');
      await p.standby.crash(); // the synchronous standby is gone: every commit waits for it
      const syncRepWaits = async () =>
        (
          await sql<{ n: number }>(
            p.primary.url,
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'SyncRep'`,
          )
        )[0].n;
      // a cancel (a pooler's or a client's query timeout, an operator) ends the wait: PostgreSQL says only
      // WARNING, and the row is committed locally. (statement_timeout is off during the commit itself.)
      const cancelled = async (pending: Promise<unknown>) => {
        pending.catch(() => undefined);
        await expect.poll(syncRepWaits).toBe(1);
        await sql(p.primary.url, `SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'`);
        await expect(pending).rejects.toBeInstanceOf(CommitUnknownError);
      };
      await cancelled(db.transaction(async (tx) => void (await tx.query('INSERT INTO commits VALUES (1)'))));
      await cancelled(db.query('INSERT INTO commits VALUES (2)')); // an autocommit statement
      const local = await sql<{ id: number }>(p.primary.url, 'SELECT id FROM commits ORDER BY id');
      expect(
        local.map((r) => r.id),
        'committed locally: pg itself would have reported success',
      ).toEqual([1, 2]);
      // the connection lost while COMMIT waits
      const atCommit = db.transaction(async (tx) => void (await tx.query('INSERT INTO commits VALUES (3)')));
      atCommit.catch(() => undefined);
      await expect.poll(syncRepWaits).toBe(1);
      await p.primary.crash();
      await expect(atCommit).rejects.toBeInstanceOf(CommitUnknownError);
    } finally {
      await db.close().catch(() => undefined);
      await p.stop();
      pair = undefined;
    }
  }, 60_000);

  it('an A3 answered 503 that did commit: the retry with its Idempotency-Key gets 201 and that booking', async () => {
    pair = await startPostgresPair();
    const p = pair;
    const sink = await SmtpSink.start();
    const crmId = `fo-${randomBytes(4).toString('hex')}`;
    const apiKey = `key-${randomBytes(4).toString('hex')}`;
    let service: ServiceProcess | undefined;
    try {
      service = startServiceProcess({ DATABASE_URL: p.url, SMTP_URL: sink.url, API_KEYS: `${crmId}:${apiKey}` });
      const base = await service.listening;
      const { product, resource, slots } = await setUp(base, crmId, apiKey);
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.text(), replayed: res.headers.get('idempotent-replayed') };
      };
      const slot = slots[0];
      const hold = { timeslot_uuid: slot.timeslotUuid, product_uuid: product.uuid, from: slot.from, to: slot.to };
      const held = await post(`/rest/1/resources/${resource.uuid}/reserve_appointment`, hold);
      expect(held.status, held.body).toBe(201);
      const body = {
        start: slot.from,
        end: slot.to,
        timeslot_uuid: slot.timeslotUuid,
        product_uuid: product.uuid,
        placeholder_id: JSON.parse(held.body).participation.customer_uuid,
        email: 'erika@fo.example',
        firstname: 'Erika',
        lastname: 'Muster',
      };
      const book = (b: unknown, key: string) =>
        post(`/resources/${resource.uuid}/create_appointment_with_consumer`, b, { 'idempotency-key': key });

      // the booking's transaction is held at its first statement (its key is claimed and committed by then)
      // the standby goes: the booking's COMMIT waits for it, and is cancelled (committed locally, WARNING only)
      const { answer: first } = await heldUntilStandbyGone(p, () => book(body, 'K'));
      let answered = false;
      first.finally(() => {
        answered = true;
      });
      while (!answered) {
        await sql(p.primary.url, `SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const lost = await first;
      expect(lost.status, lost.body).toBe(503);
      expect(lost.body).toMatch(/may or may not have been saved/);
      const [booking] = await sql<{ id: string; state: string; appointment_id: string }>(
        p.primary.url,
        'SELECT id, state, appointment_id FROM participations WHERE placeholder_id = $1',
        [body.placeholder_id],
      );
      expect(booking.state, 'the hold became the booking: the commit went through').toBe('BOOKED');

      // the operator lets the primary commit without its standby; the consumer retries with the same key
      await sql(p.primary.url, `ALTER SYSTEM SET synchronous_standby_names = ''`);
      await sql(p.primary.url, 'SELECT pg_reload_conf()');
      const retry = await book(body, 'K');
      expect(retry.status, retry.body).toBe(201);
      expect(retry.replayed).toBe('true');
      const created = JSON.parse(retry.body).createdAppointment;
      expect(created.appointment_uuid).toBe(booking.appointment_id);
      expect(new URL(created.cancelLink).pathname.split('/').pop()!.split('.')[0]).toBe(booking.id);
      // another request for that hold is refused: the place is taken by this booking
      const other = await book({ ...body, email: 'max@fo.example' }, 'K2');
      expect(other.status, other.body).toBe(412);
    } finally {
      service?.child.kill('SIGKILL');
      await service?.exited;
      await sink.close();
      await p.stop();
      pair = undefined;
    }
  }, 90_000);

  it('commits waiting for an absent sync standby: 503 with Retry-After < 10 s; a retry finds the truth', async () => {
    // nothing clears synchronous_standby_names (no failover manager acted yet): every COMMIT on the
    // primary waits for ever. DATABASE_STATEMENT_TIMEOUT_MS (3 s here, 8 s by default) ends the wait.
    pair = await startPostgresPair();
    const p = pair;
    const crmId = `sb-${randomBytes(4).toString('hex')}`;
    const apiKey = `key-${randomBytes(4).toString('hex')}`;
    const timeoutMs = 3000;
    let service: ServiceProcess | undefined;
    try {
      service = startServiceProcess({
        DATABASE_URL: p.url,
        API_KEYS: `${crmId}:${apiKey}`,
        DATABASE_STATEMENT_TIMEOUT_MS: String(timeoutMs),
      });
      const base = await service.listening;
      const { product, resource, slots } = await setUp(base, crmId, apiKey);
      const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const started = performance.now();
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return {
          status: res.status,
          body: text,
          ms: performance.now() - started,
          retryAfter: res.headers.get('retry-after'),
          replayed: res.headers.get('idempotent-replayed'),
        };
      };
      const expect503 = (a: Awaited<ReturnType<typeof send>>, what: string) => {
        expect(a.status, `${what}: ${a.body}`).toBe(503);
        expect(a.retryAfter, what).toMatch(/^\d+$/);
        expect(JSON.parse(a.body).errors[0].errorCode, what).toBe('DATABASE_UNAVAILABLE');
        expect(a.ms, `${what}: ms to the answer`).toBeLessThan(10_000);
        expect(a.ms, `${what}: ms to the answer`).toBeGreaterThanOrEqual(timeoutMs - 50);
      };
      // two holds while the standby is there (a hold commits too)
      const bodies: (Record<string, string> & { placeholder_id: string })[] = [];
      for (const slot of slots.slice(0, 2)) {
        const hold = { timeslot_uuid: slot.timeslotUuid, product_uuid: product.uuid, from: slot.from, to: slot.to };
        const held = await send('POST', `/rest/1/resources/${resource.uuid}/reserve_appointment`, hold);
        expect(held.status, held.body).toBe(201);
        bodies.push({
          start: slot.from,
          end: slot.to,
          timeslot_uuid: slot.timeslotUuid,
          product_uuid: product.uuid,
          placeholder_id: JSON.parse(held.body).participation.customer_uuid as string,
          email: `consumer${bodies.length}@sb.example`,
          firstname: 'Erika',
          lastname: 'Muster',
        });
      }
      const book = (b: unknown, key: string) =>
        send('POST', `/resources/${resource.uuid}/create_appointment_with_consumer`, b, { 'idempotency-key': key });
      const stateOf = async (placeholder: string) =>
        (
          await sql<{ state: string; appointment_id: string }>(
            p.primary.url,
            'SELECT state, appointment_id FROM participations WHERE placeholder_id = $1',
            [placeholder],
          )
        ).map((r) => r.state);

      // 1. the booking's own transaction waits at COMMIT: its key was claimed while the standby was there,
      //    then the booking is held at its first statement until the standby is gone
      const { answer: pending } = await heldUntilStandbyGone(p, () => book(bodies[0], 'K1'));
      const atCommit = await pending;
      expect503(atCommit, 'A3 whose COMMIT waited');
      // the deadline's cancel ended the wait at COMMIT (unless the lock wait took the whole deadline):
      // committed locally, told so only by a WARNING, answered as unknown, never as a success
      const firstTruth = await stateOf(bodies[0].placeholder_id);
      console.info(`standby absent: the booking waiting at COMMIT is ${JSON.stringify(firstTruth)} on the primary`);
      if (firstTruth.includes('BOOKED')) expect(atCommit.body).toMatch(/may or may not have been saved/);

      // 2. the standby was already gone: the claim of the key is the first COMMIT that waits
      const atClaim = await book(bodies[1], 'K2');
      expect503(atClaim, 'A3 whose claim waited');
      expect(atClaim.body).toMatch(/may or may not have been saved/);
      expect(await stateOf(bodies[1].placeholder_id), 'the booking never ran: still the hold').toEqual(['RESERVED']);

      // 3. a statement that waits (here for a lock, behind the operator's LOCK) is cancelled: 57014, 503
      const locker = new pg.Client({ connectionString: p.primary.url });
      locker.on('error', () => undefined);
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE resources IN ACCESS EXCLUSIVE MODE');
      const read = await send('GET', `/crms/${crmId}/provider/${encodeURIComponent('prov@fo')}/resources`, undefined, {
        'x-service-client-id': apiKey,
      });
      await locker.query('ROLLBACK');
      await locker.end();
      expect503(read, 'a read behind a lock');
      console.info(
        `standby absent, deadline ${timeoutMs} ms: answered 503 after ${[atCommit, atClaim, read]
          .map((a) => Math.round(a.ms))
          .join(', ')} ms (A3 at COMMIT, A3 at its claim, a read behind a lock)`,
      );
      expect(read.body).toMatch(/the database is unavailable/);

      // the operator lets the primary commit without its standby; the consumers retry with their keys,
      // waiting Retry-After while a key is still in use
      await sql(p.primary.url, `ALTER SYSTEM SET synchronous_standby_names = ''`);
      await sql(p.primary.url, 'SELECT pg_reload_conf()');
      const retry = async (b: unknown, key: string) => {
        for (let i = 0; ; i++) {
          const a = await book(b, key);
          if (a.status !== 409 || !/IDEMPOTENCY_KEY_IN_USE/.test(a.body) || i >= 10) return a;
          await new Promise((r) => setTimeout(r, Number(a.retryAfter ?? 1) * 1000));
        }
      };
      const booked = async (placeholder: string) => {
        const rows = await sql<{ id: string; state: string; appointment_id: string }>(
          p.primary.url,
          'SELECT id, state, appointment_id FROM participations WHERE placeholder_id = $1',
          [placeholder],
        );
        expect(rows, 'one participation per hold: never doubled').toHaveLength(1);
        expect(rows[0].state).toBe('BOOKED');
        return rows[0];
      };
      for (const [i, key] of ['K1', 'K2'].entries()) {
        const again = await retry(bodies[i], key);
        expect(again.status, `${key}: ${again.body}`).toBe(201);
        const row = await booked(bodies[i].placeholder_id);
        expect(JSON.parse(again.body).createdAppointment.appointment_uuid).toBe(row.appointment_id);
        // committed before the 503: its answer, stored with it, is replayed; else the retry booked now
        const committed = i === 0 ? firstTruth.includes('BOOKED') : false;
        expect(again.replayed, `${key} replayed`).toBe(committed ? 'true' : null);
      }
      const appointments = await sql<{ n: number }>(
        p.primary.url,
        `SELECT count(*)::int AS n FROM participations WHERE state = 'BOOKED'`,
      );
      expect(appointments[0].n, 'two consumers, two bookings').toBe(2);
    } finally {
      service?.child.kill('SIGKILL');
      await service?.exited;
      await p.stop();
      pair = undefined;
    }
  }, 120_000);

  it.skipIf(skipWithoutAutoFailover())(
    'pg_auto_failover (a monitor, two nodes) promotes the standby by itself; nothing acknowledged is lost',
    async () => {
      const started = Date.now();
      managed = await startAutoFailover();
      const m = managed;
      const setUpMs = Date.now() - started;
      let crashedAt = 0;
      let promotedMs = 0;
      const figures = await runOutage({
        databaseUrl: m.url,
        checkUrl: m.node2Url,
        breakDb: async () => {
          await m.crashPrimary();
          crashedAt = Date.now();
        },
        healDb: async () => {
          await m.secondIsPrimary();
          promotedMs = Date.now() - crashedAt;
        },
      });
      console.info(
        `pg_auto_failover: set up in ${setUpMs} ms, node2 promoted ${promotedMs} ms after the crash; ` +
          `the whole test ${Date.now() - started} ms: ${JSON.stringify(figures)}`,
      );
      expectSurvived(figures);
      await m.stop();
      managed = undefined;
    },
    240_000,
  );
});
