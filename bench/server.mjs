// The compiled service as `npm start` runs it (config from the environment, its instance pools:
// requests, listing reads and jobs each on connections of their own), with the background jobs
// that keep the booking core tidy (hold sweeper, listing compactor) but not the mail worker: the
// bench measures requests, not mail delivery. Prints its address on stdout.
import { buildApp } from '../dist/app.js';
import { startHoldSweeper } from '../dist/booking/holdSweeper.js';
import { startListingCompactor } from '../dist/listing/listingCompactor.js';
import { loadConfig } from '../dist/config.js';
import { openInstanceDbs } from '../dist/storage/db.js';

const config = loadConfig();
const dbs = await openInstanceDbs(config);
const db = dbs.db;
const app = await buildApp({ config, db, logger: false });
const log = { error: (obj, msg) => console.error(msg, obj) };
const jobs = [startHoldSweeper(dbs.jobsDb, log, config.holdSweepMs), startListingCompactor(dbs.jobsDb, log, config.listingCompactMs)];
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await Promise.all(jobs.map((j) => j.stop()));
  await dbs.close();
  process.exit(0);
});
