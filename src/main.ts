import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { drain, Lifecycle } from './lifecycle.js';
import { openInstanceDbs } from './storage/db.js';
import { DataDirLockedError } from './storage/lockfile.js';
import { migrate } from './storage/migrate.js';
import { connectRedis, RedisUnavailableError } from './storage/redis.js';
import { ensureKey } from './partners/apiKeys.js';
import { startBackgroundJobs } from './jobs.js';

/** Drain (docs/deploy.md): everything after SIGTERM happens within 10 s; past this the process is ended anyway. */
const DRAIN_DEADLINE_MS = 9_500;

async function main(): Promise<void> {
  const config = loadConfig();
  const counters = config.redisUrl ? await connectRedis(config.redisUrl, config.redisKeyPrefix) : undefined;
  const dbs = await openInstanceDbs(config);
  await migrate(dbs.db);
  for (const { crmId, key } of config.apiKeys) await ensureKey(dbs.db, crmId, key);

  const lifecycle = new Lifecycle();
  const app = await buildApp({ config, db: dbs.db, listingDb: dbs.listingDb, counters, lifecycle });
  // the start-up work above (migrations, settings) may take long; a request's statements may not
  dbs.limitRequests();
  const jobs = startBackgroundJobs({ config, db: dbs.jobsDb, log: app.log, mailThread: true });

  const shutdown = (signal: string) => {
    if (lifecycle.draining) return;
    app.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      app.log.error({ deadlineMs: DRAIN_DEADLINE_MS }, 'drain did not finish in time: exiting anyway');
      process.exit(1);
    }, DRAIN_DEADLINE_MS).unref();
    drain({
      lifecycle,
      graceMs: config.shutdownGraceMs,
      closeServer: () => app.close(),
      stopJobs: () => jobs.stop(),
      closeConnections: async () => void (await Promise.all([dbs.close(), counters?.close()])),
      log: app.log,
    }).then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'drain failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof RedisUnavailableError) {
    console.error(`Cannot start: ${err.message}`);
  } else {
    console.error('Cannot start:', err);
  }
  process.exit(1);
});
