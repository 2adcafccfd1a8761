/**
 * A PostgreSQL server of the test's own (Debian's binaries, a temporary cluster on a free port) that
 * the test may crash: kill -9 of the postmaster and every backend at once, as a power cut would,
 * so the WAL still in shared memory is gone; started again it recovers from what reached the disk.
 * Run as root (CI), the cluster belongs to the `postgres` user (initdb refuses root). Where the
 * binaries are missing the tests are skipped with a warning, unless CI is set: there they fail.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { accepts, asOwner, pgBinDir } from './postgresPair.js';
import { freePort } from './ports.js';

export function skipWithoutPostgresBinaries(): boolean {
  if (pgBinDir() || process.env.CI) return false;
  console.warn(
    '\n*** PostgreSQL server binaries (/usr/lib/postgresql/*/bin) not found: the crash test is SKIPPED. ' +
      'Install them with: apt-get install -y postgresql ***\n',
  );
  return true;
}

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** kill -9 of the whole server (postmaster and backends, one process group); resolves once it is gone */
  crash(): Promise<void>;
  /** starts it again on the same port and data (crash recovery first); resolves once it accepts connections */
  start(): Promise<void>;
  close(): Promise<void>;
}

const asRoot = userInfo().uid === 0;

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = pgBinDir();
  if (!bin)
    throw new Error(
      'PostgreSQL server binaries (/usr/lib/postgresql/*/bin) are missing: apt-get install -y postgresql',
    );
  const dir = mkdtempSync(join(tmpdir(), 'pg-crash-'));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const data = join(dir, 'data');
  execFileSync(
    ...asOwner(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']),
    { stdio: 'ignore' },
  );
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server: ChildProcess | undefined;

  let log = '';
  /** spawns the server; resolves true once it accepts connections, false when it exited first */
  const spawnServer = async (until: number) => {
    // its own process group (detached), so that one kill reaches the postmaster and all its backends
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
      '-c',
      'synchronous_commit=on',
    ]);
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
    let exited = false;
    child.once('exit', () => (exited = true));
    server = child;
    while (!(await accepts(url))) {
      if (exited) return false;
      if (Date.now() > until) throw new Error(`the private PostgreSQL did not start within 60 s: ${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return true;
  };
  // after a crash the dead backends' shared memory may linger
  // a moment: the server refuses to start, and is started again
  const start = async () => {
    const until = Date.now() + 60_000;
    while (!(await spawnServer(until))) {
      if (Date.now() > until) throw new Error(`the private PostgreSQL did not start within 60 s: ${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  const crash = async () => {
    const group = server?.pid;
    if (!group) return;
    const gone = new Promise((r) => server!.once('exit', r));
    process.kill(-group, 'SIGKILL');
    await gone;
    // the backends are in the same group and died with it; wait until none answers on the port
    while (await accepts(url)) await new Promise((r) => setTimeout(r, 50));
    server = undefined;
  };

  await start();
  return {
    url,
    crash,
    start,
    close: async () => {
      await crash();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
