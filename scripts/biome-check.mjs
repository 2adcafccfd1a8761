// `biome check .` with no finding at all: errors, warnings and infos alike (Biome itself fails on
// errors, with --error-on-warnings on warnings, never on infos). On a finding it prints Biome's report.
//   node scripts/biome-check.mjs   (npm run lint runs it before scripts/line-length.mjs)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
const run = (...args) => spawnSync(process.execPath, [biome, 'check', ...args, '.'], { encoding: 'utf8' });

const { stdout, status } = run('--reporter=json');
let summary;
try {
  ({ summary } = JSON.parse(stdout));
} catch {
  summary = undefined; // no report: Biome could not run; its own output below says why
}
const findings = summary ? summary.errors + summary.warnings + summary.infos : Number.NaN;
if (status === 0 && findings === 0) process.exit(0);
const report = run('--error-on-warnings', '--max-diagnostics=200');
process.stdout.write(report.stdout);
process.stderr.write(report.stderr);
if (summary) console.error(`biome: ${summary.errors} errors, ${summary.warnings} warnings, ${summary.infos} infos`);
console.error('npx biome check --write . formats and applies the safe fixes');
process.exit(1);
