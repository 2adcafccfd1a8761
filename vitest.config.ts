import { defineConfig } from 'vitest/config';

const pgUrl = process.env.TEST_DATABASE_URL;
if (!pgUrl && process.env.CI) {
  // under CI a missing database URL must not silently drop the PostgreSQL project (~800 runs)
  throw new Error(
    'CI is set but TEST_DATABASE_URL is not: the PostgreSQL-backed integration tests cannot run. ' +
      'Set TEST_DATABASE_URL (see .ci/run).',
  );
}
if (!pgUrl) {
  console.warn(
    '\n*** TEST_DATABASE_URL is not set: the PostgreSQL-backed integration tests are SKIPPED (PGlite only). ***\n',
  );
}

// ceilings, not expectations: a file's app and database start in ~2 s, but on two shared, busy cores
// PGlite's first start was seen to take over a minute
const shared = { testTimeout: 30_000, hookTimeout: 180_000 };
// each file's database is a copy of one this run migrated once (test/helpers/migratedTemplate.ts)
const migrated = { globalSetup: ['test/helpers/migratedTemplate.ts'] };
// Files of a project run one after another in the same worker process (isolate: false): a new
// process per file cost ~1 s of CPU and 2-3 s of wall time to start and to load the app's modules,
// more than most files' tests. Files share no state but the module cache: each starts its own app
// and database, and restores what it changes (process.env.TZ, spies).
const reuse = { isolate: false };

export default defineConfig({
  test: {
    // the 20 slowest files after every run (test/helpers/slowestFiles.ts)
    reporters: ['default', './test/helpers/slowestFiles.ts'],
    globalSetup: ['test/helpers/buildDist.ts'],
    projects: [
      { test: { ...shared, ...reuse, name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          ...shared,
          ...migrated,
          ...reuse,
          name: 'pglite',
          include: ['test/integration/**/*.test.ts'],
          env: { TEST_BACKEND: 'pglite' },
        },
      },
      ...(pgUrl
        ? [
            {
              test: {
                ...shared,
                ...migrated,
                ...reuse,
                name: 'postgres',
                include: ['test/integration/**/*.test.ts'],
                env: { TEST_BACKEND: 'postgres' },
              },
            },
          ]
        : []),
      {
        test: { ...shared, ...migrated, name: 'e2e', include: ['test/e2e/**/*.test.ts'], fileParallelism: false },
      },
    ],
  },
});
