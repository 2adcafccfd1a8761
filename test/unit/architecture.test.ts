/**
 * Dependencies point one way (README, Architecture). The modules (folders under src/), from the top:
 *
 *   cli, http -> listing -> booking, feeds, privacy -> availability -> calendars -> scheduling -> offerings
 *     -> partners -> webhooks -> notifications -> storage, net
 *
 * A module imports only modules below it (modules on one line with a comma know nothing of each
 * other). The files at src/'s root are of two kinds: the composition root (app.ts, main.ts,
 * jobs.ts, and context.ts, which holds the types of what is composed) may import any module; the
 * shared basics (config, errors, metrics, periodic, lifecycle) import no module but storage.
 * This reads every import of src/ and fails when one points the wrong way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = 'src';

/** The modules from the top down; a layer's modules may import those of every later layer. */
export const LAYERS: string[][] = [
  ['cli', 'http'],
  ['listing'],
  ['booking', 'feeds', 'privacy'],
  ['availability'],
  ['calendars'],
  ['scheduling'],
  ['offerings'],
  ['partners'],
  ['webhooks'],
  ['notifications'],
  ['storage', 'net'],
];
const COMPOSITION_ROOT = new Set(['app.ts', 'main.ts', 'jobs.ts', 'context.ts']);
const BASICS_MAY_IMPORT = new Set(['storage']);

const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

/** Whether a file in `from` (a module, or a root file's name) may import module `to` ('' for a root file). */
function allowed(from: string, fromFile: string, to: string): boolean {
  if (to === '' || to === from) return true;
  if (from === '') return COMPOSITION_ROOT.has(fromFile) || BASICS_MAY_IMPORT.has(to);
  return layerOf(to) > layerOf(from);
}

const IMPORT = /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The relative specifiers a TypeScript source imports or re-exports (static, side-effect or dynamic). */
export function importsOf(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]).filter((s) => s.startsWith('.'));
}

/** The src module of a path relative to src/ (`notifications/compose.ts` -> notifications; root files -> ''). */
const moduleOf = (pathInSrc: string) => (pathInSrc.includes('/') ? pathInSrc.split('/')[0] : '');

export function violations(files: { path: string; source: string }[]): string[] {
  const out: string[] = [];
  for (const { path, source } of files) {
    const from = moduleOf(path);
    for (const spec of importsOf(source)) {
      const target = posix.normalize(posix.join(posix.dirname(path), spec));
      const to = moduleOf(target);
      if (!allowed(from, path, to)) out.push(`src/${path} imports ${spec} (${from || path} must not depend on ${to})`);
    }
  }
  return out;
}

function sourcesUnder(dir: string): { path: string; source: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    if (!entry.name.endsWith('.ts')) return [];
    return [{ path: relative(SRC, full).split(/[\\/]/).join('/'), source: readFileSync(full, 'utf8') }];
  });
}

describe('module dependencies', () => {
  const files = sourcesUnder(SRC);

  it('point one way, down the ordered list of modules', () => {
    expect(violations(files)).toEqual([]);
  });

  it('are known for every module there is: the list names each folder of src/ once', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(LAYERS.flat().sort()).toEqual(folders);
  });

  it('are all seen: the scan finds the imports the notifications module does have', () => {
    const compose = files.find((f) => f.path === 'notifications/compose.ts');
    expect(compose).toBeDefined();
    expect(importsOf(compose!.source)).toEqual(expect.arrayContaining(['./outbox.js', '../storage/db.js', '../config.js']));
    expect(files.filter((f) => moduleOf(f.path) === 'notifications').length).toBeGreaterThan(5);
  });

  it('catches each way of importing upwards', () => {
    const bad = [
      { path: 'notifications/a.ts', source: "import { x } from '../booking/cancelToken.js';" },
      { path: 'notifications/b.ts', source: "import type {\n  ResolvedContact,\n} from '../offerings/contact.js';" },
      { path: 'notifications/c.ts', source: "export { y } from '../scheduling/capacity.js';" },
      { path: 'notifications/templates/d.ts', source: "const m = await import('../../scheduling/views.js');" },
      { path: 'storage/e.ts', source: "import '../notifications/outbox.js';" },
      { path: 'booking/f.ts', source: "import { g } from '../http/errors.js';" },
      { path: 'booking/g.ts', source: "import { h } from '../listing/state.js';" },
      { path: 'booking/h.ts', source: "import { i } from '../feeds/repo.js';" },
      { path: 'webhooks/i.ts', source: "import { j } from '../partners/repo.js';" },
      { path: 'partners/j.ts', source: "import { k } from '../cli/keys.js';" },
      { path: 'config.ts', source: "import { l } from './scheduling/capacity.js';" },
    ];
    expect(violations(bad)).toHaveLength(bad.length);
    const fine = [
      { path: 'notifications/a.ts', source: "import { x } from './outbox.js';\nimport type { Queryable } from '../storage/db.js';\nimport { DateTime } from 'luxon';" },
      { path: 'booking/b.ts', source: "import { y } from '../notifications/compose.js';\nimport { z } from '../scheduling/capacity.js';" },
      { path: 'listing/c.ts', source: "import { y } from '../booking/slotEngine.js';\nimport { z } from '../config.js';" },
      { path: 'app.ts', source: "import { y } from './http/public.js';" },
      { path: 'config.ts', source: "import type { Db } from './storage/db.js';" },
    ];
    expect(violations(fine)).toEqual([]);
  });
});
