/**
 * A service instance's pools open every connection at start and keep them while idle
 * (openInstanceDbs): a rush after a quiet spell finds its connections ready instead of starting
 * PostgreSQL backends while it waits.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { openInstanceDbs, type InstanceDbs } from '../../src/storage/db.js';
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
});
