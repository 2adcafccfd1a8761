/**
 * A primary with a synchronous standby (DESIGN.md §7.13), two private PostgreSQL clusters from
 * Debian's binaries under one temporary directory, on free ports: initdb, `pg_basebackup -R`, the
 * standby named in `synchronous_standby_names` by ALTER SYSTEM before the base backup (so the
 * standby inherits it, as a real one does). The test can kill -9 the primary (postmaster and
 * backends at once, as a power cut), promote the standby, and must clear the inherited setting:
 * otherwise every commit on the new primary waits for ever. Run as root (CI), the clusters belong
 * to the `postgres` user. `stop()` kills whatever still runs and removes the directory.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

export const pgBinDir = (): string | undefined => {
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((dir) => existsSync(join(dir, 'initdb')));
};

const asRoot = userInfo().uid === 0;
/** a command as the clusters' owner: the `postgres` user when the test runs as root */
export const asOwner = (command: string, args: string[]): [string, string[]] =>
  asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];

export async function accepts(url: string, timeoutMs = 1000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** One statement on a fresh connection. */
export async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface Node {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** kill -9 of postmaster and backends (one process group); resolves once nothing answers */
  crash(): Promise<void>;
}

export interface PostgresPair {
  primary: Node;
  standby: Node;
  /** libpq's multi-host URL naming both, primary first, with target_session_attrs=read-write */
  url: string;
  /** pg_promote() on the standby, then clears the synchronous_standby_names it inherited */
  promoteStandby(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a cluster's postmaster in a process group of its own; resolves once it accepts connections. */
async function startNode(
  bin: string,
  dir: string,
  data: string,
  port: number,
): Promise<Node & { child: ChildProcess }> {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const [command, args] = asOwner(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=on',
  ]);
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const until = Date.now() + 60_000;
  while (!(await accepts(url))) {
    if (exited || Date.now() > until) throw new Error(`PostgreSQL on ${port} did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const crash = async () => {
    if (exited || !child.pid) return;
    const gone = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      return;
    }
    await gone;
    while (await accepts(url, 300)) await new Promise((r) => setTimeout(r, 50));
  };
  return { port, url, crash, child };
}

export async function startPostgresPair(): Promise<PostgresPair> {
  const bin = pgBinDir();
  if (!bin)
    throw new Error(
      'PostgreSQL server binaries (/usr/lib/postgresql/*/bin) are missing: apt-get install -y postgresql',
    );
  const dir = mkdtempSync(join(tmpdir(), 'pg-pair-'));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const nodes: (Node & { child: ChildProcess })[] = [];
  const stop = async () => {
    for (const n of nodes) await n.crash();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primaryData = join(dir, 'primary');
    const standbyData = join(dir, 'standby');
    execFileSync(
      ...asOwner(join(bin, 'initdb'), ['-D', primaryData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']),
      { stdio: 'ignore' },
    );
    const [p1, p2] = [await freePort(), await freePort()];
    const primary = await startNode(bin, dir, primaryData, p1);
    nodes.push(primary);
    await sql(primary.url, `ALTER SYSTEM SET synchronous_standby_names = 'standby1'`);
    await sql(primary.url, `SELECT pg_reload_conf()`);
    execFileSync(
      ...asOwner(join(bin, 'pg_basebackup'), [
        '-d',
        `host=127.0.0.1 port=${p1} user=postgres application_name=standby1`,
        '-D',
        standbyData,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ]),
      { stdio: 'ignore' },
    );
    // the name the primary waits for (pg_basebackup -R writes the connection it used, without application_name)
    appendFileSync(
      join(standbyData, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${p1} user=postgres application_name=standby1'\n`,
    );
    const standby = await startNode(bin, dir, standbyData, p2);
    nodes.push(standby);
    const until = Date.now() + 30_000;
    while (
      (
        await sql<{ n: number }>(
          primary.url,
          `SELECT count(*)::int AS n FROM pg_stat_replication WHERE sync_state = 'sync'`,
        )
      )[0].n !== 1
    ) {
      if (Date.now() > until) throw new Error('the standby did not become synchronous within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    return {
      primary,
      standby,
      url: `postgres://postgres@127.0.0.1:${p1},127.0.0.1:${p2}/postgres?target_session_attrs=read-write`,
      promoteStandby: async () => {
        await sql(standby.url, 'SELECT pg_promote(true, 30)');
        await sql(standby.url, `ALTER SYSTEM SET synchronous_standby_names = ''`);
        await sql(standby.url, 'SELECT pg_reload_conf()');
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
