// The compiled service as `npm start` runs it (config from the environment, PostgreSQL pool), with
// the background jobs that keep the booking core tidy (hold sweeper, listing compactor) but not the
// mail worker: the bench measures requests, not mail delivery. Prints its address on stdout.
import { buildApp } from '../dist/app.js';
import { startHoldSweeper } from '../dist/booking/holdSweeper.js';
import { startListingCompactor } from '../dist/booking/listingCompactor.js';
import { loadConfig } from '../dist/config.js';
import { openDb } from '../dist/storage/db.js';

const config = loadConfig();
const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, listingPoolSize: config.listingPoolSize, keepConnections: true });
const app = await buildApp({ config, db, logger: false });
const log = { error: (obj, msg) => console.error(msg, obj) };
const jobs = [startHoldSweeper(db, log, config.holdSweepMs), startListingCompactor(db, log, config.listingCompactMs)];
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await Promise.all(jobs.map((j) => j.stop()));
  await db.close();
  process.exit(0);
});
