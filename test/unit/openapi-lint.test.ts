/**
 * The OpenAPI document lints clean with Redocly's recommended rules (redocly.yaml): 0 errors and
 * 0 warnings. It lints clients/typescript/openapi.json, which `npm run client:check` (part of
 * npm test) holds equal to what the routes generate. The problems .redocly.lint-ignore.yaml leaves
 * are exactly the operations without a 4XX, and each takes no input that could be refused.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

describe('the OpenAPI document', () => {
  it('passes @redocly/cli lint (recommended rules) with 0 errors and 0 warnings', () => {
    const run = spawnSync(
      'node_modules/.bin/redocly',
      ['lint', '--config', 'redocly.yaml', '--format=json', 'clients/typescript/openapi.json'],
      {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as LintReport;
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    const doc = JSON.parse(readFileSync('clients/typescript/openapi.json', 'utf8')) as {
      paths: Record<string, Record<string, { responses: object; parameters?: unknown[]; requestBody?: unknown }>>;
    };
    const without4xx = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).filter((op) => !Object.keys(op.responses).some((s) => s.startsWith('4'))),
    );
    expect(report.totals.ignored).toBe(without4xx.length);
    for (const op of without4xx) expect([op.parameters ?? [], op.requestBody]).toEqual([[], undefined]);
  });
});
