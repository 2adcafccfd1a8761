/**
 * Behind PgBouncer in transaction pooling (here 1.18, before max_prepared_statements) one client
 * connection's transactions run on changing server connections, so a named prepared statement
 * made on one is missing or doubled on another. DATABASE_PREPARED_STATEMENTS=false is the switch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { ensureKey } from '../../src/partners/apiKeys.js';
import { openDb, type Db } from '../../src/storage/db.js';
import { migrate } from '../../src/storage/migrate.js';
import { createPostgresDatabase, currentBackend } from '../helpers/db.js';
import { skipWithoutPgbouncer, startPgbouncer, type Pgbouncer } from '../helpers/pgbouncer.js';

const run = currentBackend() === 'postgres' && !skipWithoutPgbouncer();

let bouncer: Pgbouncer;
let database: { url: string; drop: () => Promise<void> };
const opened: Db[] = [];
beforeAll(async () => {
  if (!run) return;
  database = await createPostgresDatabase();
  bouncer = await startPgbouncer(database.url);
});
afterAll(async () => {
  await Promise.all(opened.map((d) => d.close()));
  await bouncer?.close();
  await database?.drop();
});

async function throughBouncer(preparedStatements: boolean): Promise<Db> {
  const db = await openDb({ databaseUrl: bouncer.urlFor(database.url), dataDir: '', poolSize: 10, preparedStatements });
  opened.push(db);
  return db;
}

/** Statements and transactions from ten client connections at once, over the two server connections. */
async function concurrentWork(db: Db): Promise<PromiseSettledResult<unknown>[]> {
  return Promise.allSettled(
    Array.from({ length: 60 }, (_, i) =>
      i % 2
        ? db.query('SELECT $1::int + 1 AS n', [i])
        : db.transaction(async (tx) =>
            tx.query('SELECT count(*)::int AS n FROM schema_migrations WHERE version <> $1', [String(i)]),
          ),
    ),
  );
}

describe.runIf(run)('PostgreSQL behind PgBouncer in transaction pooling', () => {
  it('DATABASE_PREPARED_STATEMENTS=false: migrates, runs concurrent statements and transactions, serves', async () => {
    const db = await throughBouncer(false);
    await migrate(db);
    const results = await concurrentWork(db);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

    let app: App | undefined;
    try {
      app = await buildApp({ config: testConfig({ preparedStatements: false }), db, logger: false });
      await ensureKey(db, 'crm-bouncer', 'key-bouncer');
      const headers = { 'x-service-client-id': 'key-bouncer' };
      const created = await app.inject({
        method: 'POST',
        url: '/crms/crm-bouncer/user',
        headers,
        payload: { reference: 'u1@crm', email: 'u1@example.com', username: 'u1', lastName: 'L' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const reads = await Promise.all(
        Array.from({ length: 20 }, () => app!.inject({ method: 'GET', url: '/crms/crm-bouncer/user/u1@crm', headers })),
      );
      expect(reads.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    } finally {
      await app?.close();
    }
  });

  it('with named prepared statements (the default) the same work fails: the switch is what makes it work', async () => {
    const results = await concurrentWork(await throughBouncer(true));
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/prepared statement "q\d+g\d+" (already exists|does not exist)/);
  });
});
