/**
 * npm run bench:compare -- <commit> [workloads...] [--runs N]
 *
 * The bench of this checkout against the build of another commit, back to back: builds <commit> in
 * a temporary git worktree (its node_modules copied from here when package-lock.json is the same,
 * else `npm ci --prefer-offline`), builds this checkout, then runs the chosen workloads (default
 * W1-CACHED) alternately against the two builds, the other commit first, N times each (default 2),
 * and prints every figure per run, the medians and new/old of the medians.
 *
 * Both builds are driven by this checkout's bench (BENCH_SERVICE_DIR names the build to start):
 * W1-CACHED seeds over HTTP, so any commit compares; the other workloads seed in-process with this
 * checkout's code, so where the two commits' migrations differ they run each checkout's own bench
 * instead (said in the output). Runs back to back on a shared machine still vary: compare medians,
 * and the CPU and statement figures, which depend least on the machine's phase.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from './stats.js';

const HERE = resolve(import.meta.dirname, '..');
/** workloads that seed over HTTP: they measure any commit's build */
const PORTABLE = new Set(['W1-CACHED']);

const git = (...args: string[]) => execFileSync('git', args, { cwd: HERE, encoding: 'utf8' }).trim();
const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });

function parseArgs(argv: string[]) {
  const rest: string[] = [];
  let runs = 2;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') runs = Number(argv[++i]);
    else rest.push(argv[i]);
  }
  const [commit, ...workloads] = rest;
  if (!commit || !(runs >= 1)) {
    console.error('usage: npm run bench:compare -- <commit> [workloads...] [--runs N]');
    process.exit(2);
  }
  return { commit, workloads: workloads.length ? workloads : ['W1-CACHED'], runs };
}

/**
 * A worktree of `hash` with its build, made once per commit
 * and kept in the temporary directory for the next comparison.
 */
function buildOther(hash: string): string {
  const dir = join(tmpdir(), `bench-compare-${hash.slice(0, 12)}`);
  const built = () =>
    existsSync(join(dir, 'dist', 'main.js')) || (existsSync(join(dir, 'node_modules')) && !hasBuild(dir));
  if (existsSync(dir) && built()) {
    console.log(`# ${hash.slice(0, 12)}: reusing the build in ${dir}`);
    return dir;
  }
  if (existsSync(dir)) git('worktree', 'remove', '--force', dir);
  git('worktree', 'add', '--detach', dir, hash);
  if (sameLockFile(hash) && existsSync(join(HERE, 'node_modules'))) {
    console.log(`# ${hash.slice(0, 12)}: package-lock.json as here: copying node_modules`);
    cpSync(join(HERE, 'node_modules'), join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  } else {
    console.log(`# ${hash.slice(0, 12)}: npm ci --prefer-offline`);
    run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], dir); // its prepare script builds
  }
  // before the compiled build (9267d17) the service ran from its sources through tsx
  if (!built()) run('npm', ['run', 'build'], dir);
  return dir;
}

function hasBuild(dir: string): boolean {
  return Boolean(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts?.build);
}

function sameLockFile(hash: string): boolean {
  try {
    execFileSync('git', ['diff', '--quiet', hash, 'HEAD', '--', 'package-lock.json'], { cwd: HERE, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function sameMigrations(hash: string): boolean {
  try {
    execFileSync('git', ['diff', '--quiet', hash, 'HEAD', '--', 'src/storage/migrations'], {
      cwd: HERE,
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

/** One bench run; resolves with its output. */
function bench(harness: string, serviceDir: string, workloads: string[], log: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('npx', ['tsx', 'bench/run.ts', ...workloads], {
      cwd: harness,
      env: { ...process.env, BENCH_SERVICE_DIR: serviceDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      writeFileSync(log, out);
      if (code === 0) done(out);
      else fail(new Error(`bench run failed (exit ${code}); its output: ${log}`));
    });
  });
}

const UNIT = new RegExp(
  [
    /(?:\b(p50|p90|p99|longest|service|PostgreSQL|bench client|CPU)\s+)?/.source, // the figure's label, if any
    /(\d[\d,]*(?:\.\d+)?)\s*/.source, // the number
    /(ms|req\/s|bookings\/s|µs per request|statements per request|of the ceiling|bytes per answer|MiB)/.source,
  ].join(''),
  'g',
);

/**
 * The figures of a bench output, by name: `<workload> <line label> <figure>`, e.g.
 * `RUSH A1 p99 ms`, `W1-CACHED identity service req/s`.
 */
export function figuresOf(output: string): Map<string, number> {
  const figures = new Map<string, number>();
  let workload = '';
  for (const line of output.split('\n')) {
    const header = /^([A-Z][\w-]*\d?[\w-]*)\s{2}/.exec(line);
    if (header) {
      workload = header[1];
      continue;
    }
    const labelled = /^\s+([^:]+?)\s*:\s*(.*)$/.exec(line);
    // targets repeat the figures and name the thresholds
    if (!workload || !labelled || labelled[1] === 'targets') continue;
    for (const m of labelled[2].matchAll(UNIT)) {
      let name = `${workload} ${labelled[1]} ${m[1] ? `${m[1]} ` : ''}${m[3]}`;
      for (let i = 2; figures.has(name); i++) name = `${name.replace(/ #\d+$/, '')} #${i}`;
      figures.set(name, Number(m[2].replace(/,/g, '')));
    }
  }
  return figures;
}

const fmt = (n: number | undefined) =>
  n === undefined || Number.isNaN(n)
    ? '-'
    : Math.abs(n) >= 100
      ? n.toFixed(0)
      : Math.abs(n) >= 1
        ? n.toFixed(1)
        : n.toFixed(3);

async function main(): Promise<void> {
  const { commit, workloads, runs } = parseArgs(process.argv.slice(2));
  const oldHash = git('rev-parse', '--verify', `${commit}^{commit}`);
  const newHash = git('rev-parse', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  console.log(
    `# old: ${oldHash.slice(0, 12)} (${commit}); new: this checkout, ` +
      `${newHash.slice(0, 12)}${dirty ? ' with uncommitted changes' : ''}`,
  );
  const other = buildOther(oldHash);
  console.log('# building this checkout');
  run('npm', ['run', 'build'], HERE);
  // workloads seeded in-process need the other commit's schema: its own bench when the migrations differ
  const ownHarness = !sameMigrations(oldHash) && workloads.some((w) => !PORTABLE.has(w));
  if (ownHarness)
    console.log(
      `# the migrations differ: ${workloads.filter((w) => !PORTABLE.has(w)).join(', ')} ` +
        `run with each checkout's own bench`,
    );
  const groups = ownHarness
    ? [workloads.filter((w) => PORTABLE.has(w)), workloads.filter((w) => !PORTABLE.has(w))].filter((g) => g.length)
    : [workloads];
  const logs = join(tmpdir(), `bench-compare-logs-${Date.now()}`);
  mkdirSync(logs);
  console.log(`# ${workloads.join(' ')}: ${runs} runs each, alternating old, new; full outputs in ${logs}`);

  const results: Record<'old' | 'new', Map<string, number>[]> = { old: [], new: [] };
  for (let i = 1; i <= runs; i++) {
    for (const side of ['old', 'new'] as const) {
      const serviceDir = side === 'old' ? other : HERE;
      const figures = new Map<string, number>();
      for (const group of groups) {
        const harness = ownHarness && !group.some((w) => PORTABLE.has(w)) ? serviceDir : HERE;
        const started = Date.now();
        const out = await bench(harness, serviceDir, group, join(logs, `${side}-${i}-${group.join('+')}.txt`));
        for (const [k, v] of figuresOf(out)) figures.set(k, v);
        console.log(
          `# run ${i} ${side}: ${group.join(' ')} in ${((Date.now() - started) / 1000).toFixed(0)} s, ` +
            `load average ${loadavg()
              .map((l) => l.toFixed(1))
              .join(' ')}`,
        );
      }
      results[side].push(figures);
    }
  }

  const names = [...new Set([...results.old, ...results.new].flatMap((m) => [...m.keys()]))];
  const width = Math.max(...names.map((n) => n.length));
  const head = [
    ...Array.from({ length: runs }, (_, i) => `old ${i + 1}`),
    ...Array.from({ length: runs }, (_, i) => `new ${i + 1}`),
    'old med',
    'new med',
    'new/old',
  ];
  console.log(`\n${'figure'.padEnd(width)}  ${head.map((h) => h.padStart(9)).join(' ')}`);
  for (const name of names) {
    const olds = results.old.map((m) => m.get(name));
    const news = results.new.map((m) => m.get(name));
    const o = olds.every((v) => v !== undefined) ? median(olds as number[]) : undefined;
    const n = news.every((v) => v !== undefined) ? median(news as number[]) : undefined;
    const ratio = o !== undefined && n !== undefined && o !== 0 ? (n / o).toFixed(2) : '-';
    console.log(
      `${name.padEnd(width)}  ${[...olds, ...news, o, n].map((v) => fmt(v).padStart(9)).join(' ')} ` +
        `${ratio.padStart(9)}`,
    );
  }
  console.log(
    '\nms, µs and MiB: lower is better; /s and "of the ceiling": higher is better. The machine is shared: ' +
      'medians of alternating runs.',
  );
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
