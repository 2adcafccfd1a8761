/**
 * A real CalDAV server for the calendar tests: Debian's radicale (STACK.md), one per test file, on a
 * free port with its own temporary storage, checking a real password (htpasswd, plain). It can be
 * stopped and started again on the same port with the same data ("the calendar was down, then
 * came back"). Where radicale is missing the tests are skipped with a warning, unless CI is set
 * (.ci/run installs it): there they run and fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export const RADICALE = '/usr/bin/radicale';

export function skipWithoutRadicale(): boolean {
  if (existsSync(RADICALE) || process.env.CI) return false;
  console.warn(
    `\n*** ${RADICALE} is missing: the CalDAV tests are SKIPPED. Install it with: apt-get install -y radicale ***\n`,
  );
  return true;
}

export interface Radicale {
  /** http://127.0.0.1:PORT (the same across stop and start) */
  base: string;
  username: string;
  password: string;
  /** makes a calendar collection of the user (MKCALENDAR) and gives its URL, ending in '/' */
  makeCalendar(name: string): Promise<string>;
  /** the server's process is gone: connections are refused */
  stop(): Promise<void>;
  /** starts again on the same port with the same data */
  start(): Promise<void>;
  /** stops it and removes its data */
  close(): Promise<void>;
}

async function answers(base: string): Promise<boolean> {
  try {
    await fetch(base, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

export async function startRadicale(username = 'provider', password = 'correct horse'): Promise<Radicale> {
  const dir = await mkdtemp(join(tmpdir(), 'radicale-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await writeFile(join(dir, 'users'), `${username}:${password}\n`);
  await writeFile(
    join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${join(dir, 'collections')}`,
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  let child: ChildProcess | null = null;
  let output = '';

  const radicale: Radicale = {
    base,
    username,
    password,
    async start() {
      if (child) return;
      output = '';
      const started = spawn(RADICALE, ['--config', join(dir, 'config')], { stdio: ['ignore', 'pipe', 'pipe'] });
      started.stdout!.on('data', (d) => (output += d));
      started.stderr!.on('data', (d) => (output += d));
      started.on('error', (err) => (output += String(err)));
      child = started;
      const until = Date.now() + 30_000;
      while (!(await answers(base))) {
        if (started.exitCode !== null || Date.now() > until) {
          child = null;
          started.kill('SIGKILL');
          throw new Error(`radicale did not start on ${base}: ${output.trim() || `exit ${started.exitCode}`}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      const running = child;
      if (!running) return;
      child = null;
      if (running.exitCode === null) {
        await new Promise<void>((resolve) => {
          running.once('exit', () => resolve());
          running.kill('SIGTERM');
        });
      }
    },
    async close() {
      await radicale.stop();
      await rm(dir, { recursive: true, force: true });
    },
    async makeCalendar(name) {
      const url = `${base}/${encodeURIComponent(username)}/${encodeURIComponent(name)}/`;
      const response = await fetch(url, { method: 'MKCALENDAR', headers: { authorization } });
      if (response.status !== 201) throw new Error(`MKCALENDAR ${url}: ${response.status} ${await response.text()}`);
      return url;
    },
  };
  await radicale.start();
  return radicale;
}
