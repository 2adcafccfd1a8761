import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CANCEL_GRACE_MS } from '../../src/storage/db.js';

const load = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'memory://', ...env });

describe('fleet configuration', () => {
  it('defaults to in-process counters, 7 + 2 connections, named statements, 15 s hold sweep, 2 s grace', () => {
    expect(load({})).toMatchObject({
      redisUrl: undefined,
      databasePoolSize: 7,
      jobPoolSize: 2,
      preparedStatements: true,
      holdSweepMs: 15_000,
      listingCompactMs: 2000,
      listingCacheBytes: 16 * 1024 * 1024,
      shutdownGraceMs: 2000,
    });
  });

  it("bounds a request's statement so that it answers within 10 s, the cancel's grace included", () => {
    const { databaseStatementTimeoutMs } = load({});
    expect(databaseStatementTimeoutMs).toBe(8000);
    expect(databaseStatementTimeoutMs + CANCEL_GRACE_MS).toBeLessThan(10_000);
    expect(load({ DATABASE_STATEMENT_TIMEOUT_MS: '2000' }).databaseStatementTimeoutMs).toBe(2000);
    expect(() => load({ DATABASE_STATEMENT_TIMEOUT_MS: '0' })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
  });

  it('reads REDIS_URL, the pool sizes, the statement switch and the intervals', () => {
    expect(
      load({
        REDIS_URL: 'redis://:pw@cache:6380/2',
        DATABASE_POOL_SIZE: '4',
        JOB_POOL_SIZE: '1',
        DATABASE_PREPARED_STATEMENTS: 'false',
        HOLD_SWEEP_SECONDS: '60',
        SHUTDOWN_GRACE_MS: '0',
        LISTING_CACHE_MIB: '4',
      }),
    ).toMatchObject({
      redisUrl: 'redis://:pw@cache:6380/2',
      databasePoolSize: 4,
      jobPoolSize: 1,
      preparedStatements: false,
      holdSweepMs: 60_000,
      shutdownGraceMs: 0,
      listingCacheBytes: 4 * 1024 * 1024,
    });
  });

  it.each([
    ['REDIS_URL', 'http://cache:6379'],
    ['REDIS_URL', 'cache:6379'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_PREPARED_STATEMENTS', 'no'],
    ['HOLD_SWEEP_SECONDS', '0.5'],
    ['SHUTDOWN_GRACE_MS', '9000'],
    ['LISTING_CACHE_MIB', '0'],
    ['LISTING_CACHE_MIB', '1.5'],
    ['LISTING_CACHE_MIB', '16MB'],
  ])('stops on a bad %s (%s) with a message naming it', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(name);
  });
});
