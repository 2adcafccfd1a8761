/**
 * The typed TypeScript client (clients/typescript) from the service's own OpenAPI document:
 *   tsx scripts/client.ts generate   writes openapi.json and src/schema.ts
 *   tsx scripts/client.ts check      exits 1 when the committed files differ from what the routes give now
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { openDb } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrate.js';

const DIR = 'clients/typescript';

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
  return { 'openapi.json': `${JSON.stringify(doc, null, 2)}\n`, 'src/schema.ts': schema };
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
      `client: ${stale.map(([n]) => join(DIR, n)).join(', ')} differ from what the routes generate; run npm run client:generate and commit`,
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
