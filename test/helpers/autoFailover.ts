/**
 * pg_auto_failover (Debian's postgresql-N-auto-failover, `pg_autoctl`) as docs/deploy.md sets it
 * up: a monitor and two nodes, the second a synchronous standby of the first, each run by its own
 * `pg_autoctl ... --run` in a process group of its own, everything under one temporary directory
 * (data, pg_autoctl's configuration and state through XDG_*), on free ports of 127.0.0.1. The
 * monitor's health checks are shortened (docs/deploy.md says which) so a failover takes seconds,
 * not the default half minute. `crashPrimary()` kills the first node's keeper and PostgreSQL at
 * once (kill -9 of the group); the monitor promotes the second. `stop()` ends everything.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { asOwner, accepts, pgBinDir, sql } from './postgresPair.js';
import { freePort } from './ports.js';

export const PG_AUTOCTL = '/usr/bin/pg_autoctl';

export function skipWithoutAutoFailover(): boolean {
  if ((existsSync(PG_AUTOCTL) && pgBinDir()) || process.env.CI) return false;
  console.warn(
    '\n*** pg_autoctl (Debian package postgresql-15-auto-failover) not found: the pg_auto_failover test is ' +
      'SKIPPED. Install it with: apt-get install -y postgresql-15-auto-failover ***\n',
  );
  return true;
}

/** The monitor's settings for a quick failover (defaults: 5 s checks, 20 s unhealthy, 30 s demote timeout). */
export const QUICK_FAILOVER_SETTINGS: Record<string, number> = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.node_considered_unhealthy_timeout': 2000,
  'pgautofailover.primary_demote_timeout': 2000,
};

export interface AutoFailover {
  /** libpq's multi-host URL of the two nodes, with target_session_attrs=read-write */
  url: string;
  node1Url: string;
  node2Url: string;
  /** kill -9 of the first node's pg_autoctl and PostgreSQL */
  crashPrimary(): Promise<void>;
  /** resolves once the monitor reports the second node as the primary (wait_primary or primary) */
  secondIsPrimary(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startAutoFailover(): Promise<AutoFailover> {
  const bin = pgBinDir();
  if (!bin || !existsSync(PG_AUTOCTL))
    throw new Error('pg_autoctl is missing: apt-get install -y postgresql-15-auto-failover');
  const dir = mkdtempSync(join(tmpdir(), 'pg-autofailover-'));
  if (userInfo().uid === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const children: ChildProcess[] = [];
  const logs: string[] = [];
  const run = (name: string, args: string[]) => {
    const [command, argv] = asOwner('env', [
      `PATH=${bin}:/usr/bin:/bin`,
      `XDG_CONFIG_HOME=${join(dir, 'config')}`,
      `XDG_DATA_HOME=${join(dir, 'share')}`,
      `XDG_RUNTIME_DIR=${join(dir, 'run')}`,
      PG_AUTOCTL,
      ...args,
    ]);
    const child = spawn(command, argv, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    const i = logs.push('') - 1;
    child.stderr!.on('data', (d) => (logs[i] = (logs[i] + d).slice(-3000)));
    children.push(child);
    void name;
    return child;
  };
  const kill = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
    const gone = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      return;
    }
    await gone;
  };
  const stop = async () => {
    for (const c of children) await kill(c);
    // PostgreSQL of a node may have outlived its keeper for a moment: wait until the ports are free
    rmSync(dir, { recursive: true, force: true });
  };
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs: number) => {
    const end = Date.now() + timeoutMs;
    while (!(await check().catch(() => false))) {
      if (Date.now() > end)
        throw new Error(`pg_auto_failover: ${what} within ${timeoutMs} ms:\n${logs.join('\n---\n')}`);
      await wait(250);
    }
  };
  try {
    const [pm, p1, p2] = [await freePort(), await freePort(), await freePort()];
    const common = ['--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--run'];
    run('monitor', ['create', 'monitor', '--pgdata', join(dir, 'monitor'), '--pgport', String(pm), ...common]);
    const monitorAdmin = `postgres://postgres@127.0.0.1:${pm}/pg_auto_failover`;
    await until(
      'the monitor did not start',
      () => accepts(`postgres://autoctl_node@127.0.0.1:${pm}/pg_auto_failover`),
      60_000,
    );
    for (const [name, value] of Object.entries(QUICK_FAILOVER_SETTINGS))
      await sql(monitorAdmin, `ALTER SYSTEM SET ${name} = ${value}`);
    await sql(monitorAdmin, 'SELECT pg_reload_conf()');
    const monitor = `postgres://autoctl_node@127.0.0.1:${pm}/pg_auto_failover?sslmode=disable`;
    const state = async (node: string) =>
      (
        await sql<{ s: string }>(
          monitorAdmin,
          'SELECT reportedstate::text AS s FROM pgautofailover.node WHERE nodename = $1',
          [node],
        )
      )[0]?.s;
    const node = (name: string, port: number) =>
      run(name, [
        'create',
        'postgres',
        '--pgdata',
        join(dir, name),
        '--pgport',
        String(port),
        '--name',
        name,
        '--listen',
        '127.0.0.1',
        '--monitor',
        monitor,
        ...common,
      ]);
    const node1 = node('node1', p1);
    await until('node1 did not become single', async () => (await state('node1')) === 'single', 90_000);
    node('node2', p2);
    await until('node2 did not become a secondary', async () => (await state('node2')) === 'secondary', 120_000);
    return {
      url: `postgres://postgres@127.0.0.1:${p1},127.0.0.1:${p2}/postgres?target_session_attrs=read-write`,
      node1Url: `postgres://postgres@127.0.0.1:${p1}/postgres`,
      node2Url: `postgres://postgres@127.0.0.1:${p2}/postgres`,
      crashPrimary: async () => {
        await kill(node1);
        await until(
          'node1 did not go away',
          async () => !(await accepts(`postgres://postgres@127.0.0.1:${p1}/postgres`, 300)),
          10_000,
        );
      },
      secondIsPrimary: (timeoutMs = 60_000) =>
        until(
          'node2 was not promoted',
          async () => ['wait_primary', 'primary'].includes((await state('node2')) ?? ''),
          timeoutMs,
        ),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
