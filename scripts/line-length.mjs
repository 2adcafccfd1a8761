// Fails when a TypeScript or JavaScript line is longer than the formatter's width (biome.json, 120),
// comments and strings included: the formatter breaks code, never a comment or a string.
//   node scripts/line-length.mjs   (npm run lint runs it after biome check)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAX = 120;
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'widget', 'clients/typescript/src'];
const SOURCE = /\.[cm]?[jt]s$/;
const SKIP = new Set(['node_modules', 'dist', 'fixtures']);

function* sources(dir, deep) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (deep) yield* sources(path, deep);
    } else if (SOURCE.test(entry.name)) yield path;
  }
}

const long = [];
for (const path of [...sources('.', false), ...FOLDERS.flatMap((folder) => [...sources(folder, true)])]) {
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const length = [...line].length;
      if (length > MAX) long.push(`${path}:${i + 1}: ${length} characters`);
    });
}
if (long.length > 0) {
  console.error(`${long.length} lines longer than ${MAX} characters:\n${long.join('\n')}`);
  process.exit(1);
}
