/**
 * Vitest global setup: tests that run the service as its own process start the compiled service
 * (dist/main.js), as `npm start` does; build it first when any source is newer than the build.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync('dist/main.js').mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  if (newestMtime('src') <= builtAt()) return;
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
}
