/**
 * The schema's history and the database core's current definitions, applied at start.
 *
 * Versioned migrations (storage/migrations/NNN_name.sql) are history: each runs once, its checksum
 * is recorded, and start-up refuses, naming the file, when an applied file has changed since.
 * Repeatable definitions (every other .sql file under src/: one SQL function or trigger each,
 * beside the TypeScript that calls it) are applied after the migrations whenever their checksum
 * differs from the one recorded, as Flyway's repeatable migrations are. All of it runs in one
 * transaction under an advisory lock, so instances starting together on one database wait for the
 * first instead of applying anything twice.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db, Queryable } from './db.js';

const SRC_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MIGRATIONS_DIR = join(SRC_ROOT, 'storage', 'migrations');
// Any fixed number: instances starting together on one database wait here instead of both migrating.
const MIGRATION_LOCK = 727_001;

export interface SqlFile {
  /** a migration's version (its file name without .sql), or a definition's path under src/ */
  name: string;
  sql: string;
  checksum: string;
}

const checksumOf = (sql: string) => createHash('sha256').update(sql).digest('hex');
const sqlFile = (name: string, path: string): SqlFile => {
  const sql = readFileSync(path, 'utf8');
  return { name, sql, checksum: checksumOf(sql) };
};

/** The versioned migrations, in the order they apply. */
export function listMigrations(): (SqlFile & { version: string })[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ ...sqlFile(f.replace(/\.sql$/, ''), join(MIGRATIONS_DIR, f)), version: f.replace(/\.sql$/, '') }));
}

/** The repeatable definitions: every .sql file under src/ outside storage/migrations, by path. */
export function listDefinitions(): SqlFile[] {
  const found: SqlFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (full !== MIGRATIONS_DIR) walk(full);
      } else if (entry.name.endsWith('.sql')) {
        found.push(sqlFile(relative(SRC_ROOT, full).split(sep).join('/'), full));
      }
    }
  };
  walk(SRC_ROOT);
  return found.sort((a, b) => (a.name < b.name ? -1 : 1));
}

export class ChangedMigration extends Error {
  constructor(readonly file: string) {
    super(
      `migration ${file}.sql has changed since it was applied to this database (its checksum differs): ` +
        'a migration never changes once applied; restore the file and put the change into a new migration',
    );
  }
}

export interface MigrationResult {
  /** migrations applied now, by version */
  applied: string[];
  /** repeatable definitions (re)applied now, by path */
  defined: string[];
}

/** Applies pending migrations, then the definitions that changed, in one transaction. */
export async function migrate(db: Db): Promise<MigrationResult> {
  const migrations = listMigrations();
  const definitions = listDefinitions();
  return db.transaction(async (tx) => {
    // Transaction-scoped advisory lock: released at COMMIT, also if the process dies.
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const applied = await applyMigrations(tx, migrations);
    const defined = await applyDefinitions(tx, definitions);
    return { applied, defined };
  });
}

async function applyMigrations(tx: Queryable, migrations: (SqlFile & { version: string })[]): Promise<string[]> {
  await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
                   version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
                 ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text`);
  const recorded = new Map(
    (
      await tx.query<{ version: string; checksum: string | null }>('SELECT version, checksum FROM schema_migrations')
    ).map((r) => [r.version, r.checksum]),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (!recorded.has(m.version)) {
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)', [m.version, m.checksum]);
      applied.push(m.version);
      continue;
    }
    const checksum = recorded.get(m.version);
    // Databases migrated before checksums were recorded take the files as they are now.
    if (checksum === null)
      await tx.query('UPDATE schema_migrations SET checksum = $2 WHERE version = $1', [m.version, m.checksum]);
    else if (checksum !== m.checksum) throw new ChangedMigration(m.version);
  }
  return applied;
}

async function applyDefinitions(tx: Queryable, definitions: SqlFile[]): Promise<string[]> {
  await tx.exec(`CREATE TABLE IF NOT EXISTS schema_definitions (
                   name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const recorded = new Map(
    (await tx.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_definitions')).map((r) => [
      r.name,
      r.checksum,
    ]),
  );
  const changed = definitions.filter((d) => recorded.get(d.name) !== d.checksum);
  if (changed.length > 0) {
    // A definition may call one defined in another file: bodies are checked when called, not here.
    await tx.query('SET LOCAL check_function_bodies = off');
    for (const d of changed) {
      await tx.exec(d.sql);
      await tx.query(
        `INSERT INTO schema_definitions (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [d.name, d.checksum],
      );
    }
    await tx.query('SET LOCAL check_function_bodies = on');
  }
  const gone = [...recorded.keys()].filter((name) => !definitions.some((d) => d.name === name));
  if (gone.length > 0) await tx.query('DELETE FROM schema_definitions WHERE name = ANY($1::text[])', [gone]);
  return changed.map((d) => d.name);
}
