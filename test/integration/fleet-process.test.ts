/**
 * The service as its own process (dist/main.js, as `npm start`): the drain after SIGTERM, several
 * instances starting at once on an empty database, and a REDIS_URL that cannot be reached.
 */
import { request, get } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/storage/db.js';
import { listMigrations } from '../../src/storage/migrate.js';
import { currentBackend } from '../helpers/db.js';
import { serviceStorageEnv, startServiceProcess } from '../helpers/process.js';
import { REDIS_URL, skipWithoutRedis, uniquePrefix } from '../helpers/redis.js';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const KEY = { 'x-service-client-id': 'key-one' };

/** GET on a connection of its own (no keep-alive pool): the status, or the connection error's code. */
function statusOf(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

describe('drain on SIGTERM', () => {
  it('on SIGTERM: /readyz 503, serves through the grace, refuses new connections, ends the last, exits 0', async () => {
    // a grace long enough that a busy machine still sees the 503 and a served /healthz inside it
    const graceMs = 8000;
    const svc = startServiceProcess({
      ...(await serviceStorageEnv(cleanups)),
      API_KEYS: 'crm1:key-one',
      SHUTDOWN_GRACE_MS: String(graceMs),
    });
    const base = await svc.listening;
    expect(await statusOf(`${base}/readyz`)).toBe(200);

    // A request in flight across the whole drain: its body arrives in two parts, the second after the grace.
    const body = JSON.stringify({ reference: 'late@crm', email: 'late@example.com', username: 'late', lastName: 'L' });
    const inFlight = request(`${base}/crms/crm1/user`, {
      method: 'POST',
      agent: false,
      headers: { ...KEY, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      inFlight.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      inFlight.on('error', reject);
    });
    inFlight.write(body.slice(0, 20));
    await expect
      .poll(() => inFlight.socket !== null && !inFlight.socket.connecting, { timeout: 20_000, interval: 20 })
      .toBe(true);

    const sigterm = Date.now();
    svc.child.kill('SIGTERM');
    await expect.poll(() => statusOf(`${base}/readyz`), { timeout: graceMs / 2, interval: 20 }).toBe(503);
    expect(await statusOf(`${base}/healthz`)).toBe(200); // still serving while the proxy notices

    // then, once the grace is over, no longer accepting: waited for, not slept
    await expect
      .poll(() => statusOf(`${base}/healthz`), { timeout: graceMs + 30_000, interval: 50 })
      .toBe('ECONNREFUSED');
    expect(Date.now() - sigterm, 'served through the whole grace').toBeGreaterThanOrEqual(graceMs);

    inFlight.end(body.slice(20));
    const done = await answer;
    expect(done.status, done.body).toBe(201);
    expect(await svc.exited).toBe(0);
    const drainMs = Date.now() - sigterm;
    console.log(
      `[fleet] drain on ${currentBackend()}: SIGTERM to exit ${drainMs} ms (grace ${graceMs} ms, ` +
        `request in flight until the grace was over)`,
    );
  }, 90_000);
});

describe.runIf(currentBackend() === 'pglite')('npm start', () => {
  it('hands SIGTERM to the service, which drains and exits 0, and npm with it', async () => {
    const svc = startServiceProcess({ DATABASE_URL: 'memory://', SHUTDOWN_GRACE_MS: '300' }, { viaNpm: true });
    const base = await svc.listening;
    const stdout: string[] = [];
    svc.child.stdout!.on('data', (d) => stdout.push(String(d)));
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
    expect(stdout.join('')).toContain('"msg":"drained"');
    expect(await statusOf(`${base}/healthz`)).toBe('ECONNREFUSED');
  }, 120_000);
});

describe.runIf(currentBackend() === 'pglite')('start-up with REDIS_URL', () => {
  it('stops with a message naming REDIS_URL when Redis cannot be reached or the URL is not one', async () => {
    for (const url of ['redis://127.0.0.1:1', 'http://127.0.0.1:6379']) {
      const svc = startServiceProcess({ DATABASE_URL: 'memory://', REDIS_URL: url });
      expect(await svc.exited).toBe(1);
      expect(svc.stderr()).toMatch(/^Cannot start: REDIS_URL/m);
    }
  }, 120_000);
});

const skipRedis = await skipWithoutRedis();

describe.runIf(currentBackend() === 'postgres' && !skipRedis)('several instances starting at once', () => {
  it('migrates an empty database once while four instances start together; all four get ready', async () => {
    const env: Record<string, string> = {
      ...(await serviceStorageEnv(cleanups)),
      API_KEYS: 'crm1:key-one',
      REDIS_URL,
      REDIS_KEY_PREFIX: uniquePrefix(),
      SHUTDOWN_GRACE_MS: '0',
    };
    const fleet = Array.from({ length: 4 }, () => startServiceProcess(env));
    try {
      const bases = await Promise.all(fleet.map((s) => s.listening));
      for (const base of bases) {
        const ready = await fetch(`${base}/readyz`);
        expect(await ready.json()).toEqual({ status: 'ok', database: 'postgres', redis: 'ok' });
        expect((await fetch(`${base}/crms/crm1/user/nobody@crm`, { headers: KEY })).status).toBe(404);
      }
      const db = await openDb({ databaseUrl: env.DATABASE_URL, dataDir: '' });
      try {
        const rows = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows.map((r) => r.version)).toEqual(listMigrations().map((m) => m.version));
        const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
        expect(n).toBe(1);
      } finally {
        await db.close();
      }
    } finally {
      for (const s of fleet) s.child.kill('SIGTERM');
      expect(await Promise.all(fleet.map((s) => s.exited))).toEqual([0, 0, 0, 0]);
    }
  }, 90_000);
});
