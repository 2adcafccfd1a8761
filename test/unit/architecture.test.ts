/**
 * Dependencies point one way (README, Architecture): http -> domain modules -> notifications ->
 * storage. This reads every import of src/ and fails when one points the wrong way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = 'src';

/** module (first folder under src/) -> modules it must never import */
const FORBIDDEN: Record<string, string[]> = {
  storage: ['http', 'partners', 'offerings', 'scheduling', 'booking', 'notifications'],
  notifications: ['http', 'partners', 'offerings', 'scheduling', 'booking'],
  partners: ['http'],
  offerings: ['http'],
  scheduling: ['http'],
  booking: ['http'],
};

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
      if (FORBIDDEN[from]?.includes(to)) out.push(`src/${path} imports ${spec} (${from} must not depend on ${to})`);
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

  it('point one way: notifications imports no domain module, storage nothing above it, no domain module http', () => {
    expect(violations(files)).toEqual([]);
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
    ];
    expect(violations(bad)).toHaveLength(bad.length);
    const fine = [
      { path: 'notifications/a.ts', source: "import { x } from './outbox.js';\nimport type { Queryable } from '../storage/db.js';\nimport { DateTime } from 'luxon';" },
      { path: 'booking/b.ts', source: "import { y } from '../notifications/compose.js';\nimport { z } from '../scheduling/capacity.js';" },
    ];
    expect(violations(fine)).toEqual([]);
  });
});
