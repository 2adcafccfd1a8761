/**
 * Vitest global setup of the projects whose files each start on a migrated database (pglite,
 * postgres, e2e): the migrations run once per run, here, and every file copies the result instead
 * of migrating a database of its own (test/helpers/db.ts).
 * - PGlite: one migrated in-memory database's data directory, dumped to a tarball in the temp
 *   directory; each file opens a PGlite from it (`loadDataDir`), which also skips initdb.
 * - PostgreSQL: one migrated database on TEST_DATABASE_URL's server, never connected to again;
 *   each file's database is `CREATE DATABASE ... TEMPLATE` of it.
 * Names are this run's own, so that runs on one server at once never share or drop each other's.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { dumpDataDir, openDb } from '../../src/storage/db.js';
import { migrate } from '../../src/storage/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** path of a migrated PGlite data directory's tarball */
    pgliteSnapshot: string;
    /** name of a migrated database on TEST_DATABASE_URL's server, to copy */
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (project.config.env?.TEST_BACKEND === 'postgres') {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error('TEST_DATABASE_URL is required for the postgres project');
    const name = `booking_template_${suffix}`;
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const db = await openDb({ databaseUrl: url.toString(), dataDir: '', poolSize: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    project.provide('postgresTemplate', name);
    return () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const db = await openDb({ databaseUrl: 'memory://', dataDir: '' });
  const path = join(tmpdir(), `booking-pglite-migrated-${suffix}.tar`);
  try {
    await migrate(db);
    writeFileSync(path, Buffer.from(await (await dumpDataDir(db)).arrayBuffer()));
  } finally {
    await db.close();
  }
  project.provide('pgliteSnapshot', path);
  return async () => rmSync(path, { force: true });
}
