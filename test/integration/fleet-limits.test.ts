/**
 * Fleet (docs/deploy.md): with REDIS_URL the per-client limits are shared by every instance, so N instances
 * allow one address the limit once; a Redis lost later costs the shared limits, never a request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import type { Db } from '../../src/storage/db.js';
import { connectRedis, type SharedCounters } from '../../src/storage/redis.js';
import { createTestDatabase, currentBackend, type TestDatabase } from '../helpers/db.js';
import { REDIS_URL, RedisRelay, skipWithoutRedis, uniquePrefix } from '../helpers/redis.js';

const LIMIT = 5;
const skip = await skipWithoutRedis();

interface Instance {
  app: App;
  url: string;
  counters?: SharedCounters;
}

let database: TestDatabase;
const started: Instance[] = [];
beforeAll(async () => {
  if (!skip) database = await createTestDatabase();
});
afterAll(async () => {
  for (const i of started) {
    await i.app.close();
    await i.counters?.close();
  }
  await database?.drop();
});

/** PostgreSQL: each instance has its own pool on the one database; PGlite: they share its one session. */
async function instanceDb(): Promise<Db> {
  return currentBackend() === 'postgres' && started.length > 0 ? database.openAnother() : database.db;
}

/** A service instance on a real port; with `redisUrl` its limits live in Redis under `prefix`. */
async function startInstance(redis?: { url: string; prefix: string }): Promise<Instance> {
  const counters = redis ? await connectRedis(redis.url, redis.prefix) : undefined;
  const app = await buildApp({
    config: testConfig({ bookingRateLimitPerMinute: LIMIT }),
    db: await instanceDb(),
    logger: false,
    counters,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const instance = { app, url, counters };
  started.push(instance);
  return instance;
}

/** A2 from one client address (127.0.0.1); the limit counts before the body is looked at. */
const reserve = (i: Instance) =>
  fetch(`${i.url}/rest/1/resources/no-such-resource/reserve_appointment`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });

/** Sends `n` requests alternating over the instances; returns the statuses in order. */
async function alternate(instances: Instance[], n: number): Promise<Response[]> {
  const answers: Response[] = [];
  for (let k = 0; k < n; k++) answers.push(await reserve(instances[k % instances.length]));
  return answers;
}

const readyz = async (i: Instance) => (await fetch(`${i.url}/readyz`)).json();

describe.skipIf(skip)('per-client limits across instances', () => {
  it('allows one address the limit once across two instances and one Redis, then 429 on both', async () => {
    const redis = { url: REDIS_URL, prefix: uniquePrefix() };
    const pair = [await startInstance(redis), await startInstance(redis)];
    const answers = await alternate(pair, 2 * LIMIT + 2);
    const statuses = answers.map((r) => r.status);
    expect(
      statuses.slice(0, LIMIT).every((s) => s !== 429),
      statuses.join(),
    ).toBe(true);
    expect(statuses.slice(LIMIT)).toEqual(Array(LIMIT + 2).fill(429));
    const limited = answers[LIMIT];
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await limited.json()).toEqual({
      'api-info': { version: '1' },
      errors: [{ errorCode: 'RATE_LIMITED', message: expect.stringContaining(`at most ${LIMIT} per minute`) }],
    });
    expect(await readyz(pair[0])).toEqual({ status: 'ok', database: currentBackend(), redis: 'ok' });
  });

  it('without Redis each instance counts alone: two instances allow the address the limit twice', async () => {
    const pair = [await startInstance(), await startInstance()];
    const statuses = (await alternate(pair, 2 * LIMIT + 2)).map((r) => r.status);
    expect(statuses.filter((s) => s !== 429)).toHaveLength(2 * LIMIT);
    expect(await readyz(pair[0])).toEqual({ status: 'ok', database: currentBackend(), redis: 'none' });
  });

  it('serves without Redis, warns once per outage, says so on /readyz, shares the limit once it is back', async () => {
    const relay = await RedisRelay.start();
    try {
      const instance = await startInstance({ url: relay.url, prefix: uniquePrefix() });
      const warnings: string[] = [];
      const infos: string[] = [];
      instance.counters!.reportTo({ warn: (_o, msg) => warnings.push(msg), info: (_o, msg) => infos.push(msg) });

      await relay.cut();
      const during = await alternate([instance], 2 * LIMIT);
      expect(during.map((r) => r.status).filter((s) => s === 429 || s >= 500)).toEqual([]);
      expect(await readyz(instance)).toEqual({ status: 'degraded', database: currentBackend(), redis: 'unreachable' });
      await alternate([instance], 3);
      expect(await readyz(instance)).toMatchObject({ redis: 'unreachable' });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('REDIS_URL');
      expect(await (await fetch(`${instance.url}/metrics`)).text()).toMatch(/^booking_redis_reachable 0$/m);

      await relay.restore();
      await expect
        .poll(() => readyz(instance), { timeout: 10_000, interval: 200 })
        .toMatchObject({ status: 'ok', redis: 'ok' });
      expect(infos.some((m) => m.includes('reachable again'))).toBe(true);
      expect(await (await fetch(`${instance.url}/metrics`)).text()).toMatch(/^booking_redis_reachable 1$/m);
      const after = (await alternate([instance], LIMIT + 1)).map((r) => r.status);
      expect(after.at(-1)).toBe(429);

      await relay.cut();
      await alternate([instance], 2);
      expect(warnings).toHaveLength(2); // a new outage, a new warning
    } finally {
      await relay.close();
    }
  });
});
