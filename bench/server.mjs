// The compiled service as `npm start` runs it (src/main.ts): config from the environment, its
// instance pools (requests, listing reads and jobs each on connections of their own), and every
// background job (startBackgroundJobs: the mail worker to SMTP_URL, the webhook worker, the hold
// sweeper, the listing compactor, reminders, calendars, retention when PERSONAL_DATA_RETENTION_DAYS
// is set ...). Since issue 55 the mail and webhook workers run in every phase; figures measured
// before were without them (docs/performance.md). Errors and warnings go to stderr, nothing else is
// logged. Prints its address on stdout.
// BENCH_SERVICE_DIR names the checkout whose build runs (default: this one; bench/compare.ts): it
// first brings the database to its own migrations and SQL definitions, as `npm start` does.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = (file) =>
  import(
    pathToFileURL(join(resolve(process.env.BENCH_SERVICE_DIR ?? join(import.meta.dirname, '..')), 'dist', file)).href
  );
const { buildApp } = await dist('app.js');
const { startBackgroundJobs } = await dist('jobs.js');
const { loadConfig } = await dist('config.js');
const { openInstanceDbs } = await dist('storage/db.js');
const { migrate } = await dist('storage/migrate.js');

const config = loadConfig();
const dbs = await openInstanceDbs(config);
await migrate(dbs.db);
const app = await buildApp({ config, db: dbs.db, listingDb: dbs.listingDb, logger: false });
// as main.ts: the request pools' deadline from here on (a build from before issue 56 has none)
dbs.limitRequests?.();
const report = (level) => (obj, msg) => console.error(`${level}: ${msg ?? ''}`, typeof obj === 'string' ? '' : obj);
const quiet = () => undefined;
const log = {
  level: 'warn',
  fatal: report('fatal'),
  error: report('error'),
  warn: report('warn'),
  info: quiet,
  debug: quiet,
  trace: quiet,
  silent: quiet,
  child: () => log,
};
const jobs = startBackgroundJobs({ config, db: dbs.jobsDb, log, mailThread: true });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await jobs.stop();
  await dbs.close();
  process.exit(0);
});
