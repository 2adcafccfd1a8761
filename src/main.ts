import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDb } from './storage/db.js';
import { DataDirLockedError } from './storage/lockfile.js';
import { migrate } from './storage/migrate.js';
import { ensureKey } from './partners/apiKeys.js';
import { startBackgroundJobs } from './jobs.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(db);
  for (const { crmId, key } of config.apiKeys) await ensureKey(db, crmId, key);

  const app = await buildApp({ config, db });
  const jobs = startBackgroundJobs({ config, db, log: app.log });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close(); // stops accepting and waits for in-flight requests
    await jobs.stop(); // lets the mail worker finish its batch
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(`Cannot start: ${err.message}`);
  } else {
    console.error('Cannot start:', err);
  }
  process.exit(1);
});
