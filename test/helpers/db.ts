import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { openDb, type Db } from '../../src/storage/db.js';
import { migrate } from '../../src/storage/migrate.js';

export type Backend = 'pglite' | 'postgres';

/** request connections of each PostgreSQL pool a test database opens (PGlite has one session) */
export const TEST_POOL_SIZE = 20;

export function currentBackend(): Backend {
  return process.env.TEST_BACKEND === 'postgres' ? 'postgres' : 'pglite';
}

export interface TestDatabase {
  db: Db;
  /** the listing's connections of their own, as a service instance has them (PGlite: db) */
  listingDb: Db;
  /** postgres:// URL of this test's own database (postgres backend only) */
  url?: string;
  /** opens another pool on the same database, as a second service instance would */
  openAnother(): Promise<Db>;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is required for the postgres backend');
  return url;
}

/**
 * A fresh PostgreSQL database of our own on the TEST_DATABASE_URL server: empty, or a copy of
 * `template` (a migrated one: test/helpers/migratedTemplate.ts).
 */
export async function createPostgresDatabase(template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `booking_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** What a database holds before it is migrated (an old version's data: test/fixtures/upgrade). */
export type Prepare = (db: Db) => Promise<void>;

/** The migrated PGlite data directory this run made once (migratedTemplate.ts), read once per file. */
let pgliteSnapshot: Blob | undefined;
function migratedPgliteSnapshot(): Blob | undefined {
  const path = inject('pgliteSnapshot');
  if (path && !pgliteSnapshot) pgliteSnapshot = new Blob([readFileSync(path)]);
  return pgliteSnapshot;
}

/**
 * A migrated database on the backend under test: in-memory PGlite, or a new PostgreSQL database.
 * Without `prepare` it is a copy of the one database this run migrated (migratedTemplate.ts), where
 * the project has one; `prepare` runs on an empty database before the migrations.
 */
export async function createTestDatabase(
  backend: Backend = currentBackend(),
  prepare?: Prepare,
): Promise<TestDatabase> {
  if (backend === 'pglite') {
    const snapshot = prepare ? undefined : migratedPgliteSnapshot();
    const db = await openDb({ databaseUrl: 'memory://', dataDir: '', snapshot });
    await prepare?.(db);
    // a copy of the migrated snapshot has nothing to apply; migrate still checks it as at every start
    await migrate(db);
    return {
      db,
      listingDb: db,
      openAnother: async () => {
        throw new Error('PGlite has a single session; a second instance needs PostgreSQL');
      },
      drop: () => db.close(),
    };
  }
  const created = await createPostgresDatabase(prepare ? undefined : inject('postgresTemplate'));
  const db = await openDb({ databaseUrl: created.url, dataDir: '', poolSize: TEST_POOL_SIZE });
  await prepare?.(db);
  await migrate(db);
  const listingDb = await openDb({ databaseUrl: created.url, dataDir: '', poolSize: 2, name: 'listing' });
  const others: Db[] = [listingDb];
  return {
    db,
    listingDb,
    url: created.url,
    openAnother: async () => {
      const other = await openDb({ databaseUrl: created.url, dataDir: '', poolSize: TEST_POOL_SIZE });
      others.push(other);
      return other;
    },
    drop: async () => {
      await Promise.all([db, ...others].map((d) => d.close()));
      await created.drop();
    },
  };
}
