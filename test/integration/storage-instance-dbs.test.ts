/**
 * A service instance's pools open every connection at start and keep them while idle
 * (openInstanceDbs): a rush after a quiet spell finds its connections ready instead of starting
 * PostgreSQL backends while it waits. Once limited (limitRequests), a statement or transaction of
 * the request pools ends at DATABASE_STATEMENT_TIMEOUT_MS, cancelled on the server; the jobs' pool
 * has no limit. (A COMMIT waiting for an absent synchronous standby: storage-failover.test.ts.)
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { openInstanceDbs, type InstanceDbs } from '../../src/storage/db.js';
import { DatabaseTimeoutError } from '../../src/storage/hosts.js';
import { createPostgresDatabase, currentBackend } from '../helpers/db.js';

describe.runIf(currentBackend() === 'postgres')('the connections of a service instance', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let dbs: InstanceDbs | undefined;
  beforeAll(async () => {
    database = await createPostgresDatabase();
  });
  afterAll(async () => {
    await dbs?.close();
    await database.drop();
  });

  async function connectionsTo(url: string): Promise<number> {
    const name = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      return rows[0].n;
    } finally {
      await admin.end();
    }
  }

  it('are all open once the pools are, before any request', async () => {
    dbs = await openInstanceDbs(
      testConfig({ databaseUrl: database.url, databasePoolSize: 4, listingPoolSize: 2, jobPoolSize: 1 }),
    );
    expect(await connectionsTo(database.url)).toBe(4 + 2 + 1);
    // a burst of queries finds them: none opens another
    await Promise.all(Array.from({ length: 12 }, () => dbs!.db.query('SELECT pg_sleep(0.01)')));
    expect(await connectionsTo(database.url)).toBe(7);
  });

  it("end a request's statement or transaction at the deadline, cancelled on the server; not the jobs'", async () => {
    await dbs?.close();
    dbs = await openInstanceDbs(
      testConfig({
        databaseUrl: database.url,
        databasePoolSize: 2,
        listingPoolSize: 1,
        jobPoolSize: 1,
        databaseStatementTimeoutMs: 300,
      }),
    );
    const d = dbs;
    await d.db.exec('CREATE TABLE deadline_rows (id int PRIMARY KEY)');
    await d.db.query('SELECT pg_sleep(0.5)'); // before limitRequests: start-up work has no limit
    d.limitRequests();
    const sleepers = async () =>
      (
        await d.jobsDb.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(5%' AND state = 'active'`,
        )
      )[0].n;
    for (const pool of [d.db, d.listingDb]) {
      const started = performance.now();
      await expect(pool.query('SELECT pg_sleep(5)')).rejects.toBeInstanceOf(DatabaseTimeoutError);
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took, 'ms: cancelled at the deadline, not closed a second later').toBeLessThan(900);
      await expect.poll(sleepers, { timeout: 2000 }).toBe(0); // the server stopped it
    }
    // a transaction: its statements, and the time between them, count; nothing is committed after it
    const slow = d.db.transaction(async (tx) => {
      await tx.query('INSERT INTO deadline_rows VALUES (1)');
      await new Promise((r) => setTimeout(r, 400));
      await tx.query('INSERT INTO deadline_rows VALUES (2)');
    });
    await expect(slow).rejects.toBeInstanceOf(DatabaseTimeoutError);
    expect(await d.jobsDb.query('SELECT id FROM deadline_rows')).toEqual([]);
    // the pools go on: quick work passes, and the jobs' statements may take longer
    await d.db.transaction(async (tx) => void (await tx.query('INSERT INTO deadline_rows VALUES (3)')));
    expect(await d.listingDb.query('SELECT id FROM deadline_rows')).toEqual([{ id: 3 }]);
    await d.jobsDb.query('SELECT pg_sleep(0.5)');
  });

  it('compile no statement with JIT, however costly its plan (docs/decisions.md "No JIT")', async () => {
    await dbs?.close();
    dbs = await openInstanceDbs(
      testConfig({ databaseUrl: database.url, databasePoolSize: 1, listingPoolSize: 1, jobPoolSize: 1 }),
    );
    // estimated at about 150,000, past the default jit_above_cost of 100,000
    const costly = `EXPLAIN (FORMAT JSON)
      SELECT count(*) FROM generate_series(1, 1000) a, generate_series(1, 1000) b, generate_series(1, 10) c`;
    const jitted = (rows: { 'QUERY PLAN': unknown }[]) => 'JIT' in (rows[0]['QUERY PLAN'] as object[])[0];
    const plain = new pg.Client({ connectionString: database.url });
    await plain.connect();
    try {
      expect(jitted((await plain.query(costly)).rows)).toBe(true);
    } finally {
      await plain.end();
    }
    for (const pool of [dbs.db, dbs.listingDb, dbs.jobsDb]) {
      expect(jitted(await pool.query(costly))).toBe(false);
      expect(jitted(await pool.transaction((tx) => tx.query(costly)))).toBe(false);
    }
  });
});
