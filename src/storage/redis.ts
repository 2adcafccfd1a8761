/**
 * The Redis connection (REDIS_URL) that carries the counters every instance shares: the per-client
 * rate limits. Nothing in it must survive; a lost Redis costs the shared limits, never a request.
 */
import { Redis } from 'ioredis';
import { Gauge, register } from 'prom-client';

export class RedisUnavailableError extends Error {}

const reachableGauge = () =>
  (register.getSingleMetric('booking_redis_reachable') as Gauge | undefined) ??
  new Gauge({
    name: 'booking_redis_reachable',
    help: '1 while the Redis of the shared per-client limits (REDIS_URL) answers, 0 during an outage',
  });

export interface SharedCountersLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SharedCounters {
  readonly client: Redis;
  /** prefix of every key this service writes (REDIS_KEY_PREFIX) */
  readonly keyPrefix: string;
  /** Asks Redis now; a failure also counts as the start of an outage. */
  check(): Promise<boolean>;
  /** Where outages and recoveries are logged from now on (the app's logger). */
  reportTo(log: SharedCountersLog): void;
  close(): Promise<void>;
}

/** The URL without its password, fit for a log line or an error message. */
function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/**
 * Connects and pings once: a bad URL or a Redis that is down stops start-up with a message naming
 * REDIS_URL. Later on commands fail at once while the connection is lost (no offline queue, so a
 * request never waits for Redis), ioredis reconnects in the background, and one warning is logged
 * per outage.
 */
export async function connectRedis(url: string, keyPrefix: string): Promise<SharedCounters> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: 500,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  let firstError: Error | undefined;
  const noteFirst = (err: Error) => {
    firstError ??= err;
  };
  client.on('error', noteFirst);
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    throw new RedisUnavailableError(
      `REDIS_URL: cannot reach Redis at ${redacted(url)} (${(firstError ?? (err as Error)).message})`,
    );
  }
  client.off('error', noteFirst);

  let log: SharedCountersLog = { info: () => undefined, warn: () => undefined };
  let up = true;
  let closing = false;
  const gauge = reachableGauge();
  gauge.set(1);
  const down = (reason: string) => {
    if (!up || closing) return;
    up = false;
    gauge.set(0);
    log.warn(
      { redis: redacted(url), reason },
      'Redis (REDIS_URL) unreachable: requests are served without the shared per-client limits until it is back',
    );
  };
  client.on('error', (err: Error) => down(err.message));
  client.on('close', () => down('connection closed'));
  client.on('ready', () => {
    if (up) return;
    up = true;
    gauge.set(1);
    log.info({ redis: redacted(url) }, 'Redis (REDIS_URL) reachable again: shared per-client limits apply');
  });

  return {
    client,
    keyPrefix,
    async check() {
      try {
        await client.ping();
        return true;
      } catch (err) {
        down((err as Error).message);
        return false;
      }
    },
    reportTo(target) {
      log = target;
    },
    async close() {
      closing = true;
      await client.quit().catch(() => client.disconnect());
    },
  };
}
