/**
 * The service as main.ts runs it (config from the environment, PostgreSQL pool), minus the
 * background jobs: the bench measures requests, not mail delivery. Prints its address on stdout.
 */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb } from '../src/storage/db.js';

const config = loadConfig();
// main.ts's pool size unless BENCH_POOL_SIZE says otherwise
const poolSize = process.env.BENCH_POOL_SIZE ? Number(process.env.BENCH_POOL_SIZE) : undefined;
const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize });
const app = await buildApp({ config, db, logger: false });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await db.close();
  process.exit(0);
});
