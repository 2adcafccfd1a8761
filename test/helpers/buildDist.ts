/**
 * Vitest global setup: tests that run the service as its own process start the compiled service
 * (dist/main.js), as `npm start` does, and every app serves the bundled widget (dist/widget/);
 * build both first when any source of the service or the widget is newer than the build.
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

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const stale =
    newestMtime('src') > mtime('dist/main.js') || newestMtime('widget/src') > mtime('dist/widget/widget.js');
  if (stale) execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
}
