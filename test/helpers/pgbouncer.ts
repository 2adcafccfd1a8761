import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * The PgBouncer test needs Debian's pgbouncer (.ci/run installs it). Without it the test is skipped
 * with a warning; with CI set it runs and fails instead.
 */
export function skipWithoutPgbouncer(): boolean {
  if (existsSync(PGBOUNCER) || process.env.CI) return false;
  console.warn(
    `\n*** ${PGBOUNCER} not found: the PgBouncer (transaction pooling) test is SKIPPED. Install it with: ` +
      `apt-get install -y pgbouncer ***\n`,
  );
  return true;
}

export interface Pgbouncer {
  /** `serverUrl` with host and port replaced by PgBouncer's */
  urlFor(serverUrl: string): string;
  close(): Promise<void>;
}

/**
 * PgBouncer in transaction pooling in front of the test server, with few server connections so
 * consecutive transactions of one client connection land on different server connections.
 */
export async function startPgbouncer(serverUrl: string, serverConnections = 2): Promise<Pgbouncer> {
  const server = new URL(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o755); // it runs as the postgres user when we are root
  const port = await freePort();
  const user = decodeURIComponent(server.username || 'postgres');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    `${[
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      `listen_addr = 127.0.0.1`,
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 200',
      'ignore_startup_parameters = extra_float_digits,options',
    ].join('\n')}\n`,
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));

  const urlFor = (url: string) => {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: urlFor(serverUrl) });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (attempt > 50 || child.exitCode !== null)
        throw new Error(`PgBouncer did not come up: ${(err as Error).message}\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    urlFor,
    async close() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
