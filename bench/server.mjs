// The compiled service as `npm start` runs it (config from the environment, its instance pools:
// requests, listing reads and jobs each on connections of their own), with the background jobs
// that keep the booking core tidy (hold sweeper, listing compactor), and the retention job when
// PERSONAL_DATA_RETENTION_DAYS is set (RETENTION), but not the mail worker: the bench measures
// requests, not mail delivery. Prints its address on stdout.
// BENCH_SERVICE_DIR names the checkout whose build runs (default: this one; bench/compare.ts): it
// first brings the database to its own migrations and SQL definitions, as `npm start` does.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = (file) =>
  import(
    pathToFileURL(join(resolve(process.env.BENCH_SERVICE_DIR ?? join(import.meta.dirname, '..')), 'dist', file)).href
  );
const { buildApp } = await dist('app.js');
const { startHoldSweeper } = await dist('booking/holdSweeper.js');
const { startListingCompactor } = await dist('listing/listingCompactor.js');
// a build from before issue 36 (bench:compare) has no retention job
const { startRetentionJob } = await dist('privacy/retention.js').catch(() => ({ startRetentionJob: () => null }));
const { loadConfig } = await dist('config.js');
const { openInstanceDbs } = await dist('storage/db.js');
const { migrate } = await dist('storage/migrate.js');

const config = loadConfig();
const dbs = await openInstanceDbs(config);
const db = dbs.db;
await migrate(db);
const app = await buildApp({ config, db, logger: false });
const log = { error: (obj, msg) => console.error(msg, obj), info: () => {} };
const jobs = [
  startHoldSweeper(dbs.jobsDb, log, config.holdSweepMs),
  startListingCompactor(dbs.jobsDb, log, config.listingCompactMs),
  startRetentionJob({ config, db: dbs.jobsDb, log }),
].filter((j) => j !== null);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await Promise.all(jobs.map((j) => j.stop()));
  await dbs.close();
  process.exit(0);
});
