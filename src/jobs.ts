import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './storage/db.js';
import { startMailWorker } from './notifications/worker.js';
import { startHoldSweeper } from './booking/holdSweeper.js';
import { startListingCompactor } from './booking/listingCompactor.js';
import { startReminderJob } from './booking/reminders.js';
import { runEvery } from './periodic.js';
import { purgeExpiredKeys } from './storage/idempotencyKeys.js';

const KEY_PURGE_INTERVAL_MS = 60_000;

export interface BackgroundJobs {
  stop(): Promise<void>;
}

/** Starts the process's background work (hold sweeper, listing compactor, mail worker, reminders, idempotency key purge) and returns how to stop it. */
export function startBackgroundJobs(deps: { config: Config; db: Db; log: FastifyBaseLogger }): BackgroundJobs {
  const stops: (() => Promise<void>)[] = [];
  const mailWorker = startMailWorker(deps);
  stops.push(() => mailWorker.stop());
  const holdSweeper = startHoldSweeper(deps.db, deps.log);
  stops.push(() => holdSweeper.stop());
  const compactor = startListingCompactor(deps.db, deps.log);
  stops.push(() => compactor.stop());
  const reminders = startReminderJob(deps);
  stops.push(() => reminders.stop());
  const purge = runEvery(KEY_PURGE_INTERVAL_MS, () => purgeExpiredKeys(deps.db, new Date()), (err) => deps.log.error({ err }, 'idempotency key purge failed'));
  stops.push(() => purge.stop());
  return {
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
