// Fails when a TypeScript or JavaScript line is longer than the formatter's width (biome.json, 120),
// comments and strings included: the formatter cannot break those, so this check holds them to it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MAX = 120;
const ROOTS = ['src', 'test', 'bench', 'scripts', 'widget', 'clients/typescript/src'];
const SOURCE = /\.(?:[cm]?[jt]s)$/;
const SKIP = new Set(['node_modules', 'dist', 'fixtures']);

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

const long = [];
for (const root of ROOTS) {
  for (const path of sources(root)) {
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if ([...line].length > MAX) long.push(`${path}:${i + 1}: ${[...line].length} characters`);
      });
  }
}
if (long.length > 0) {
  console.error(`${long.length} lines longer than ${MAX} characters:\n${long.join('\n')}`);
  process.exit(1);
}
