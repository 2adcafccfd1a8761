/**
 * The widget as built (npm run build, run by the test setup): one bundle of small modules, within
 * its size budget (gzipped as the service serves it), with the place the hold length goes.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const gzipped = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('widget bundle', () => {
  it('stays within 20 KB gzipped together with its styles and frame script', () => {
    const total = gzipped('dist/widget/widget.js') + gzipped('widget/widget.css') + gzipped('widget/frame.js');
    expect(total).toBeLessThanOrEqual(20 * 1024);
  });

  it('is built from modules of at most 300 lines, no framework', () => {
    const sources = filesUnder('widget/src').filter((f) => f.endsWith('.js'));
    expect(sources.length).toBeGreaterThanOrEqual(10);
    for (const file of sources) {
      const source = readFileSync(file, 'utf8');
      expect(source.split('\n').length, file).toBeLessThanOrEqual(300);
      for (const [, spec] of source.matchAll(/\bfrom\s*'([^']+)'/g))
        expect(spec, `${file} imports only its own modules`).toMatch(/^\.\.?\//);
    }
  });

  it('has the one placeholder the service fills with its hold length, and mounts from its script tag', () => {
    const bundle = readFileSync('dist/widget/widget.js', 'utf8');
    expect(bundle.split('__HOLD_SECONDS__')).toHaveLength(2);
    expect(bundle).toContain('document.currentScript');
    expect(bundle).toContain('BookingWidget');
  });
});
