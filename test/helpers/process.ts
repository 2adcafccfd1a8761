import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPostgresDatabase, currentBackend } from './db.js';

export interface ServiceProcess {
  child: ChildProcess;
  stderr: () => string;
  /** resolves with the base URL once the service listens, rejects if it exits first */
  listening: Promise<string>;
  exited: Promise<number | null>;
}

/**
 * Runs the compiled service (`dist/main.js`, as `npm start`) as its own process with the given
 * environment (PORT=0 picks a free port; no drain grace unless asked). `viaNpm`: through `npm start`
 * itself, so signals go to npm.
 */
export function startServiceProcess(env: Record<string, string>, options: { viaNpm?: boolean } = {}): ServiceProcess {
  const [command, args] = options.viaNpm
    ? ['npm', ['start', '--silent']]
    : [process.execPath, [resolve('dist/main.js')]];
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const listening = new Promise<string>((resolveUrl, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolveUrl(match[1]);
    });
    void exited.then((code) => reject(new Error(`service exited with ${code}: ${err}`)));
  });
  listening.catch(() => undefined);
  return { child, stderr: () => err, listening, exited };
}

/**
 * The storage settings of a service process on the backend under test: a fresh PostgreSQL database
 * of its own, or a fresh PGlite data directory. What is made is undone by a function added to `cleanups`.
 */
export async function serviceStorageEnv(cleanups: (() => unknown)[]): Promise<Record<string, string>> {
  if (currentBackend() === 'postgres') {
    const { url, drop } = await createPostgresDatabase();
    cleanups.push(drop);
    return { DATABASE_URL: url };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'booking-service-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return { DATA_DIR: dataDir };
}
