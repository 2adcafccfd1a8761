import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/** The Redis the fleet tests use (CI: the local server, started by .ci/run). */
export const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

function redisAnswersPing(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/**
 * Whether the Redis tests are skipped: only where no Redis answers and CI is not set (there they
 * run and fail, like the browser tests without Chromium).
 */
export async function skipWithoutRedis(): Promise<boolean> {
  if (await redisAnswersPing(REDIS_URL)) return false;
  if (process.env.CI) return false;
  console.warn(
    `\n*** No Redis answers at ${REDIS_URL}: the shared-limit (REDIS_URL) tests are SKIPPED. ` +
      `Start one with: redis-server --daemonize yes ***\n`,
  );
  return true;
}

/** A key prefix of the test's own, so test files and backends running at once never share counters. */
export function uniquePrefix(): string {
  return `booking-test-${randomBytes(4).toString('hex')}:`;
}

/**
 * A TCP relay in front of Redis that a test can cut (every connection dropped, new ones refused)
 * and restore on the same port: a Redis outage without stopping the shared Redis server.
 */
export class RedisRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  static async start(target = REDIS_URL): Promise<RedisRelay> {
    const relay = new RedisRelay(target);
    await relay.listen();
    return relay;
  }

  private constructor(private readonly target: string) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private listen(): Promise<void> {
    const { hostname, port } = new URL(this.target);
    const server = createServer((client) => {
      const upstream = createConnection({ host: hostname, port: Number(port || 6379) });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.server = server;
    return new Promise((resolve) =>
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port;
        resolve();
      }),
    );
  }

  /** Redis is gone: open connections drop, new ones are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((r) => server.close(r));
  }

  async restore(): Promise<void> {
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
