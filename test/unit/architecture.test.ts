/**
 * Dependencies point one way. The modules (folders under src/), from the top, are LAYERS below: the
 * one place the order is written (README's Architecture section quotes it, and this test holds the
 * quote to it).
 *
 * A module depends only on modules below it (modules on one line know nothing of each other), and
 * that holds for everything that moves data between them:
 * - TypeScript imports (static, type-only, side-effect and dynamic);
 * - SQL: each SQL function or trigger function belongs to the module whose folder holds its
 *   repeatable definition (src/<module>/<name>.sql); a call of it from another definition or from
 *   a TypeScript file's SQL text is a dependency on that module.
 * The files at src/'s root are of two kinds: the composition root (app.ts, main.ts, jobs.ts) may
 * depend on any module and no module on it; the shared basics (config, context, errors, metrics,
 * periodic, lifecycle) depend on no module but storage, and every module may use them.
 * No file takes part in an import cycle, type-only imports included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = 'src';

/** The modules from the top down; a layer's modules may depend on those of every later layer. */
const LAYERS: string[][] = [
  ['cli', 'http'],
  ['listing'],
  ['booking', 'feeds', 'privacy'],
  ['availability', 'pools'],
  ['calendars'],
  ['scheduling'],
  ['offerings'],
  ['partners'],
  ['webhooks'],
  ['notifications'],
  ['storage', 'net'],
];
/** The order as one line, as README quotes it. */
const LAYER_LINE = LAYERS.map((layer) => layer.join(', ')).join(' -> ');
const COMPOSITION_ROOT = new Set(['app.ts', 'main.ts', 'jobs.ts']);
const BASICS_MAY_USE = new Set(['storage']);

const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

/** A file, by its path under src/ (`notifications/compose.ts`, `app.ts`). */
interface Place {
  module: string;
  file: string;
}
const placeOf = (pathInSrc: string): Place => ({
  module: pathInSrc.includes('/') ? pathInSrc.split('/')[0] : '',
  file: pathInSrc,
});

/** Whether `from` may depend on `to`. */
function allowed(from: Place, to: Place): boolean {
  if (to.module === '')
    return !COMPOSITION_ROOT.has(to.file) || (from.module === '' && COMPOSITION_ROOT.has(from.file));
  if (to.module === from.module) return true;
  if (from.module === '') return COMPOSITION_ROOT.has(from.file) || BASICS_MAY_USE.has(to.module);
  return layerOf(to.module) > layerOf(from.module);
}

const IMPORT = new RegExp(
  [
    /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/.source, // static import or re-export
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/.source, // dynamic import
    /^\s*import\s*['"]([^'"]+)['"]/.source, // side-effect import
  ].join('|'),
  'gm',
);

/** The relative specifiers a TypeScript source imports or re-exports (static, side-effect or dynamic). */
function importsOf(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]).filter((s) => s.startsWith('.'));
}

/** A source file under src/: TypeScript, or a repeatable SQL definition. */
interface Source {
  path: string;
  source: string;
}

/** The SQL functions defined in repeatable definitions, each with the file that defines it. */
function sqlFunctions(sources: Source[]): Map<string, string> {
  const defined = new Map<string, string>();
  for (const { path, source } of sources.filter((s) => s.path.endsWith('.sql'))) {
    for (const m of source.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)/gi))
      defined.set(m[1].toLowerCase(), path);
  }
  return defined;
}

/**
 * The SQL functions a source calls (in SQL text, or in a TypeScript file's SQL strings), less those it defines itself.
 */
function sqlCallsOf(source: Source, functions: Map<string, string>): string[] {
  const called = new Set<string>();
  for (const m of source.source.matchAll(/\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*\(/gi)) {
    const name = m[1].toLowerCase();
    if (functions.has(name) && functions.get(name) !== source.path) called.add(name);
  }
  return [...called];
}

function violations(sources: Source[]): string[] {
  const out: string[] = [];
  const functions = sqlFunctions(sources);
  for (const s of sources) {
    const from = placeOf(s.path);
    if (s.path.endsWith('.ts')) {
      for (const spec of importsOf(s.source)) {
        const to = placeOf(posix.normalize(posix.join(posix.dirname(s.path), spec)).replace(/\.js$/, '.ts'));
        if (!allowed(from, to))
          out.push(
            `src/${s.path} imports ${spec} (${from.module || s.path} must not depend on ${to.module || to.file})`,
          );
      }
    }
    for (const name of sqlCallsOf(s, functions)) {
      const to = placeOf(functions.get(name)!);
      if (!allowed(from, to))
        out.push(
          `src/${s.path} calls ${name}() of src/${to.file} (${from.module || s.path} must not depend on ${to.module})`,
        );
    }
  }
  return out;
}

/** Import cycles among TypeScript files (strongly connected components of more than one file). */
function importCycles(sources: Source[]): string[][] {
  const files = new Set(sources.filter((s) => s.path.endsWith('.ts')).map((s) => s.path));
  const edges = new Map<string, string[]>();
  for (const s of sources.filter((x) => files.has(x.path))) {
    const targets = importsOf(s.source).map((spec) =>
      posix.normalize(posix.join(posix.dirname(s.path), spec)).replace(/\.js$/, '.ts'),
    );
    edges.set(
      s.path,
      targets.filter((t) => files.has(t)),
    );
  }
  // Tarjan's algorithm
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

function sourcesUnder(dir: string): Source[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    const path = relative(SRC, full).split(/[\\/]/).join('/');
    if (entry.isDirectory()) return path === 'storage/migrations' ? [] : sourcesUnder(full);
    if (!entry.name.endsWith('.ts') && !entry.name.endsWith('.sql')) return [];
    return [{ path, source: readFileSync(full, 'utf8') }];
  });
}

describe('module dependencies', () => {
  const sources = sourcesUnder(SRC);

  it('point one way, down the ordered list of modules, for imports and SQL calls alike', () => {
    expect(violations(sources)).toEqual([]);
  });

  it('form no import cycle', () => {
    expect(importCycles(sources)).toEqual([]);
  });

  it('are known for every module there is: the list names each folder of src/ once', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(LAYERS.flat().sort()).toEqual(folders);
  });

  it('are quoted by README as this list has them', () => {
    expect(readFileSync('README.md', 'utf8')).toContain(`\n${LAYER_LINE}\n`);
  });

  it('are all seen: the scan finds the imports and SQL calls modules do have', () => {
    const compose = sources.find((f) => f.path === 'notifications/compose.ts');
    expect(importsOf(compose!.source)).toEqual(
      expect.arrayContaining(['./outbox.js', '../storage/db.js', '../config.js']),
    );
    const functions = sqlFunctions(sources);
    expect(functions.get('participation_is_live')).toBe('scheduling/participation_is_live.sql');
    expect(sqlCallsOf(sources.find((f) => f.path === 'scheduling/claim_place.sql')!, functions)).toEqual(
      expect.arrayContaining(['busy_at', 'participation_is_live']),
    );
    expect(sqlCallsOf(sources.find((f) => f.path === 'booking/bookHold.ts')!, functions)).toEqual(
      expect.arrayContaining(['book_hold', 'webhook_participation_event']),
    );
  });

  it('catches each way of depending upwards', () => {
    const bad: Source[] = [
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
      { path: 'scheduling/k.ts', source: "import { startBackgroundJobs } from '../jobs.js';" },
      { path: 'errors.ts', source: "import { buildApp } from './app.js';" },
      {
        path: 'scheduling/up_here.sql',
        source: 'CREATE OR REPLACE FUNCTION up_here() RETURNS int LANGUAGE sql AS $$ SELECT listed_here(1) $$;',
      },
      { path: 'webhooks/l.ts', source: 'await tx.query(`SELECT up_here() FROM x`);' },
      {
        path: 'listing/listed_here.sql',
        source: 'CREATE OR REPLACE FUNCTION listed_here(n int) RETURNS int LANGUAGE sql AS $$ SELECT n $$;',
      },
    ];
    expect(violations(bad)).toHaveLength(bad.length - 1);
    const fine: Source[] = [
      {
        path: 'notifications/a.ts',
        source:
          "import { x } from './outbox.js';\nimport type { Queryable } " +
          "from '../storage/db.js';\nimport { DateTime } from 'luxon';",
      },
      {
        path: 'booking/b.ts',
        source: "import { y } from '../notifications/compose.js';\nimport { z } from '../scheduling/capacity.js';",
      },
      {
        path: 'listing/c.ts',
        source:
          "import { y } from '../booking/slotEngine.js';\nimport { z } " +
          "from '../config.js';\nimport type { Clock } from '../context.js';",
      },
      { path: 'app.ts', source: "import { y } from './http/public.js';\nimport { s } from './jobs.js';" },
      { path: 'config.ts', source: "import type { Db } from './storage/db.js';" },
      {
        path: 'booking/d.sql',
        source: 'CREATE OR REPLACE FUNCTION d() RETURNS int LANGUAGE sql AS $$ SELECT low_rule(1) $$;',
      },
      {
        path: 'scheduling/low_rule.sql',
        source: 'CREATE OR REPLACE FUNCTION low_rule(n int) RETURNS int LANGUAGE sql AS $$ SELECT n $$;',
      },
      { path: 'booking/e.ts', source: 'await tx.query(`SELECT low_rule(2)`);' },
    ];
    expect(violations(fine)).toEqual([]);
  });

  it('finds an import cycle, type-only imports included', () => {
    const cycle: Source[] = [
      { path: 'calendars/a.ts', source: "import type { B } from './b.js';" },
      { path: 'calendars/b.ts', source: "import { a } from './a.js';" },
      { path: 'calendars/c.ts', source: "import { a } from './a.js';" },
    ];
    expect(importCycles(cycle)).toEqual([['calendars/a.ts', 'calendars/b.ts']]);
  });
});
