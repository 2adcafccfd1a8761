/** Bench processes: the service under test and the ceiling server, each its own node process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Child {
  url: string;
  child: ChildProcess;
}

/** Starts a node process (args as given) and resolves with the address it prints as `LISTENING <url>`. */
export function startChild(args: string[], env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /LISTENING (\S+)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The resident set size of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Samples a process's RSS every 100 ms until the returned function is called; that returns the peak. */
export function sampleRss(pid: number): () => number {
  let peak = rssMiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMiB(pid));
  };
}

/**
 * The node flags `npm start` gives the service in the checkout `dir` (package.json's start script,
 * e.g. `exec node --max-semi-space-size=8 dist/main.js`), so that the bench runs it as deployed.
 */
export function startFlags(dir: string): string[] {
  const start =
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts?.start ??
    '';
  const m = /\bnode\s+(.*?)\s*dist\/main\.js/.exec(start);
  return m ? m[1].split(/\s+/).filter((arg) => arg.startsWith('--')) : [];
}
