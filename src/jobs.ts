import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './storage/db.js';
import { startMailWorker } from './notifications/worker.js';
import { startHoldSweeper } from './booking/holdSweeper.js';
import { startListingCompactor } from './booking/listingCompactor.js';
import { startWebhookWorker } from './webhooks/worker.js';

export interface BackgroundJobs {
  stop(): Promise<void>;
}

/** Starts the process's background work (hold sweeper, listing compactor, mail and webhook workers) and returns how to stop it. */
export function startBackgroundJobs(deps: { config: Config; db: Db; log: FastifyBaseLogger }): BackgroundJobs {
  const stops: (() => Promise<void>)[] = [];
  const mailWorker = startMailWorker(deps);
  stops.push(() => mailWorker.stop());
  const webhookWorker = startWebhookWorker(deps);
  stops.push(() => webhookWorker.stop());
  const holdSweeper = startHoldSweeper(deps.db, deps.log);
  stops.push(() => holdSweeper.stop());
  const compactor = startListingCompactor(deps.db, deps.log);
  stops.push(() => compactor.stop());
  return {
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
