/**
 * The typed TypeScript client (clients/typescript) from the service's own OpenAPI document:
 *   tsx scripts/client.ts generate   writes openapi.json and src/schema.ts
 *   tsx scripts/client.ts check      exits 1 when the committed files differ from what the routes give now
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { openDb } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrate.js';

const DIR = 'clients/typescript';
/** the formatter's line width (biome.json); scripts/line-length.mjs holds comments to it too */
const WIDTH = 120;

async function generated(): Promise<Record<string, string>> {
  // The document needs only the routes: nothing is read from this (empty) database.
  const db = await openDb({ databaseUrl: 'memory://', dataDir: '' });
  await migrate(db); // building the app reads settings (reminder defaults)
  const app = await buildApp({ config: testConfig(), db, logger: false });
  await app.ready();
  const doc = app.swagger() as Record<string, unknown>;
  await app.close();
  await db.close();
  const schema =
    COMMENT_HEADER + astToString(await openapiTS(doc as never, { alphabetize: true, defaultNonNullable: false }));
  return {
    'openapi.json': `${JSON.stringify(doc, null, 2)}\n`,
    'src/schema.ts': wrapComments(formatted(join(DIR, 'src/schema.ts'), schema)),
  };
}

/** `text` as the repository's formatter (Biome, biome.json) writes the file at `path`. */
function formatted(path: string, text: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${path}`], {
    input: text,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * Doc comment lines longer than WIDTH broken at spaces (the descriptions come from the route schemas):
 * a one-line comment becomes a block, a ` * ` line several. A line is never begun with an `@` word.
 */
function wrapComments(text: string): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= WIDTH) return [line];
      const single = /^(\s*)\/\*\* (.*) \*\/$/.exec(line);
      if (single) return [`${single[1]}/**`, ...wrapWords(single[2], `${single[1]} * `), `${single[1]} */`];
      const star = /^(\s*\* )(.*)$/.exec(line);
      return star ? wrapWords(star[2], star[1]) : [line];
    })
    .join('\n');
}

function wrapWords(text: string, prefix: string): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    const fits = prefix.length + current.length + 1 + word.length <= WIDTH;
    if (current !== '' && !fits && !word.startsWith('@')) {
      lines.push(prefix + current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  lines.push(prefix + current);
  return lines;
}

async function main(mode: string | undefined): Promise<number> {
  const files = await generated();
  if (mode === 'generate') {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(DIR, name), text);
    console.log(
      `client: wrote ${Object.keys(files)
        .map((f) => join(DIR, f))
        .join(', ')}`,
    );
    return 0;
  }
  if (mode === 'check') {
    const stale = Object.entries(files).filter(([name, text]) => {
      try {
        return readFileSync(join(DIR, name), 'utf8') !== text;
      } catch {
        return true;
      }
    });
    if (stale.length === 0) {
      console.log('client: up to date with the routes');
      return 0;
    }
    console.error(
      `client: ${stale.map(([n]) => join(DIR, n)).join(', ')} differ from what the routes generate; ` +
        `run npm run client:generate and commit`,
    );
    return 1;
  }
  console.error('usage: tsx scripts/client.ts generate|check');
  return 2;
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
