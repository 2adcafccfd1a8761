import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/storage/db.js';
import { listDefinitions, listMigrations, migrate } from '../../src/storage/migrate.js';
import { createPostgresDatabase, currentBackend } from '../helpers/db.js';
import { startServiceProcess } from '../helpers/process.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.runIf(currentBackend() === 'postgres')('migrations on PostgreSQL', () => {
  it('migrates once when two instances start together on one database', async () => {
    const { url, drop } = await createPostgresDatabase();
    const [a, b] = await Promise.all([
      openDb({ databaseUrl: url, dataDir: '' }),
      openDb({ databaseUrl: url, dataDir: '' }),
    ]);
    try {
      const [ranA, ranB] = await Promise.all([migrate(a), migrate(b)]);
      const all = listMigrations().map((m) => m.version);
      const definitions = listDefinitions().map((d) => d.name);
      const [first, second] = [ranA, ranB].sort((x, y) => y.applied.length - x.applied.length);
      expect(first).toEqual({ applied: all, defined: definitions });
      expect(second).toEqual({ applied: [], defined: [] });
      const rows = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(rows[0].n).toBe(all.length);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await drop();
    }
  }, 120_000);
});

describe.runIf(currentBackend() === 'pglite')('the service process on PGlite', () => {
  it('refuses a second process on its data directory, keeps data over restarts, stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'booking-data-'));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, API_KEYS: 'crm1:key-one' };

    const first = startServiceProcess(env);
    const base = await first.listening;
    const created = await fetch(`${base}/crms/crm1/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-client-id': 'key-one' },
      body: JSON.stringify({ reference: 'u1@crm', email: 'u1@example.com', username: 'u1', lastName: 'L' }),
    });
    expect(created.status).toBe(201);

    const second = startServiceProcess(env);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain('data directory is in use');

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const third = startServiceProcess(env);
    const base3 = await third.listening;
    const read = await fetch(`${base3}/crms/crm1/user/u1@crm`, { headers: { 'x-service-client-id': 'key-one' } });
    expect(read.status).toBe(200);
    third.child.kill('SIGINT');
    expect(await third.exited).toBe(0);
  }, 120_000);

  it('creates, lists and revokes API keys with the keys CLI, and a created key works', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'booking-keys-'));
    dirs.push(dataDir);
    const keys = (...args: string[]) =>
      execFileSync(process.execPath, ['dist/cli/keys.js', ...args], {
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
        encoding: 'utf8',
      });
    const out = keys('create', '--crm', 'crmX', '--label', 'test');
    const key = out.split('\n')[1].trim();
    expect(key.length).toBeGreaterThan(20);
    expect(keys('list', '--crm', 'crmX')).toMatch(/crm=crmX\s+label=test .* active/);

    const svc = startServiceProcess({ DATA_DIR: dataDir });
    const base = await svc.listening;
    expect((await fetch(`${base}/crms/crmX/user/none@crm`, { headers: { 'x-service-client-id': key } })).status).toBe(
      404,
    );
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);

    expect(keys('revoke', '--crm', 'crmX')).toContain('revoked 1 key(s)');
    expect(keys('list')).toContain('REVOKED');
  }, 120_000);

  it('stops at start with a message naming a bad variable', async () => {
    const bad = startServiceProcess({ DATABASE_URL: 'memory://', RESERVATION_HOLD_SECONDS: 'soon' });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toContain('RESERVATION_HOLD_SECONDS');
  }, 120_000);
});
