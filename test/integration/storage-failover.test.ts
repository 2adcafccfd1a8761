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
 * answered 503 and retried with its Idempotency-Key gets an answer that agrees with the database;
 * every acknowledged booking's confirmation mail arrives.
 * And a commit whose outcome is unknown (its wait for the synchronous standby cancelled, which
 * PostgreSQL reports only as a WARNING; its connection lost at COMMIT) is a CommitUnknownError.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/storage/db.js';
import { CommitUnknownError } from '../../src/storage/hosts.js';
import { type AutoFailover, skipWithoutAutoFailover, startAutoFailover } from '../helpers/autoFailover.js';
import { currentBackend } from '../helpers/db.js';
import { runOutage, type OutageFigures } from '../helpers/failoverLoad.js';
import { sql, startPostgresPair, type PostgresPair } from '../helpers/postgresPair.js';
import { skipWithoutPostgresBinaries, startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.js';

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
  // a retry's answer agrees with the database: 201 only when it is booked now; otherwise it was not booked
  // by the first try either, or the answer says the consumer is booked already (409)
  for (const r of f.retries) {
    if (r.status === 201) expect(r.booked).toBe(true);
    else expect([409, 412], JSON.stringify(r)).toContain(r.status);
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
