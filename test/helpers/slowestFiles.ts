import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the 20 slowest test files after a run (wall time of each file in its worker: setup,
 * import, hooks and tests), to see where the suite's time goes. SLOWEST_FILES_JSON=<path> also
 * writes every file's figures there.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules.map((m) => {
      const d = m.diagnostic();
      const overhead = d.environmentSetupDuration + d.prepareDuration + d.setupDuration;
      return {
        file: relative(process.cwd(), m.moduleId),
        project: m.project.name,
        totalMs: Math.round(overhead + d.collectDuration + d.duration),
        importMs: Math.round(d.collectDuration),
        runMs: Math.round(d.duration),
        tests: [...m.children.allTests()].length,
      };
    });
    rows.sort((a, b) => b.totalMs - a.totalMs);
    if (process.env.SLOWEST_FILES_JSON) writeFileSync(process.env.SLOWEST_FILES_JSON, JSON.stringify(rows, null, 1));
    if (rows.length < 2) return;
    const sum = rows.reduce((s, r) => s + r.totalMs, 0);
    const lines = rows
      .slice(0, 20)
      .map(
        (r) =>
          `${(r.totalMs / 1000).toFixed(1).padStart(7)} s ${(r.importMs / 1000).toFixed(1).padStart(6)} s ` +
          `${String(r.tests).padStart(5)}  ${r.project.padEnd(9)} ${r.file}`,
      );
    console.log(
      `\nThe ${Math.min(20, rows.length)} slowest of ${rows.length} test files (${(sum / 1000).toFixed(0)} s in all)` +
        '\n  total  import tests  project   file\n' +
        lines.join('\n'),
    );
  }
}
