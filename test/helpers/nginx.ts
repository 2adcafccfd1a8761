/**
 * The shipped edge recipe (deploy/nginx.conf) running: Debian's nginx in front of a service, on a
 * free port, with its own prefix, cache and temporary directories, so it needs no root and leaves
 * nothing behind. Used by test/integration/edge-nginx.test.ts and the bench's EDGE phase. Where
 * nginx is missing the test is skipped with a warning, unless CI is set (.ci/run installs it):
 * there it runs and fails.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

export const NGINX = '/usr/sbin/nginx';
export const NGINX_CONF = fileURLToPath(new URL('../../deploy/nginx.conf', import.meta.url));

export function skipWithoutNginx(): boolean {
  if (existsSync(NGINX) || process.env.CI) return false;
  console.warn(
    `\n*** ${NGINX} is missing: the edge (nginx) tests are SKIPPED. Install it with: apt-get install -y nginx ***\n`,
  );
  return true;
}

/** The recipe's placeholders: what `envsubst '$BOOKING_UPSTREAM $EDGE_LISTEN $EDGE_CACHE_DIR'` fills. */
export interface EdgeValues {
  BOOKING_UPSTREAM: string;
  EDGE_LISTEN: string;
  EDGE_CACHE_DIR: string;
}

/**
 * The recipe with its placeholders filled; a placeholder left without a value is an error, nginx's own $variables stay.
 */
export function renderEdgeConf(template: string, values: EdgeValues): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => {
    const value = (values as unknown as Record<string, string | undefined>)[name];
    if (value === undefined) throw new Error(`deploy/nginx.conf: no value for \${${name}}`);
    return value;
  });
}

export interface Edge {
  /** http://127.0.0.1:PORT */
  url: string;
  pid: number;
  /** nginx's error log so far */
  log(): string;
  close(): Promise<void>;
}

/**
 * Starts nginx with deploy/nginx.conf in front of `upstream`
 * (http://host:port), in the foreground, as a child of this process.
 */
export async function startEdge(upstream: string): Promise<Edge> {
  // nginx makes its cache and temporary directories in it, for its workers' user (nobody) when we
  // are root: they must be able to reach them
  const dir = mkdtempSync(join(tmpdir(), 'edge-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  const target = new URL(upstream);
  writeFileSync(
    conf,
    renderEdgeConf(readFileSync(NGINX_CONF, 'utf8'), {
      BOOKING_UPSTREAM: target.host,
      EDGE_LISTEN: `127.0.0.1:${port}`,
      EDGE_CACHE_DIR: join(dir, 'cache'),
    }),
  );
  const errorLog = join(dir, 'error.log');
  const log = () => (existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '');
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-e', errorLog, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.on('error', (err) => (stderr += String(err)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > until) {
        child.kill('SIGKILL');
        throw new Error(`nginx did not start on ${url}: ${stderr.trim() || log().trim() || `exit ${child.exitCode}`}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    pid: child.pid!,
    log,
    async close() {
      // SIGQUIT: nginx's graceful stop (its workers finish what they serve)
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
