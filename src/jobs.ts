import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './storage/db.js';
import { startMailWorker } from './notifications/worker.js';
import { mailThreadBuilt, startMailThread } from './notifications/mailThread.js';
import { startHoldSweeper } from './booking/holdSweeper.js';
import { startListingCompactor } from './listing/listingCompactor.js';
import { startWebhookWorker } from './webhooks/worker.js';
import { startReminderJob } from './booking/reminders.js';
import { runEvery } from './periodic.js';
import { startCalendarJobs } from './calendars/calendarJobs.js';
import { systemClock, type Clock } from './context.js';
import { purgeExpiredKeys } from './storage/idempotencyKeys.js';
import { startRetentionJob } from './privacy/retention.js';
import { fillPhoneNumbers } from './partners/phoneNumbers.js';
import { startHorizonJob } from './availability/horizonJob.js';

const KEY_PURGE_INTERVAL_MS = 60_000;
/** Numbers without their E.164 form (migration 023; an older instance's writes): read at start, then this often. */
const PHONE_FILL_INTERVAL_MS = 300_000;

export interface BackgroundJobs {
  /** Each job finishes its current item (a mail, a batch of holds) and stops. */
  stop(): Promise<void>;
}

/**
 * Starts the process's background work (hold sweeper, listing compactor, mail and webhook workers,
 * reminders, calendar reads and write-back, idempotency key purge, personal data retention, stored
 * phone numbers' E.164 form, the availability rules' horizon) and returns how to stop it. Every job
 * is safe with any number of instances on one database: each item is claimed in the database (FOR
 * UPDATE SKIP LOCKED, or an advisory lock the others skip), and work goes in bounded batches. `db`
 * should be a pool of the jobs' own (JOB_POOL_SIZE), so a busy job never takes the connections
 * requests wait for.
 */
export function startBackgroundJobs(deps: {
  config: Config;
  db: Db;
  log: FastifyBaseLogger;
  clock?: Clock;
  /**
   * the mail worker in a thread of its own, on connections of its own (src/main.ts, on PostgreSQL:
   * notifications/mailThread.ts; the compiled service only); else on the main thread with `db`
   */
  mailThread?: boolean;
}): BackgroundJobs {
  const { config, db, log, clock = systemClock } = deps;
  const jobs = [
    deps.mailThread && db.kind === 'postgres' && mailThreadBuilt() ? startMailThread(deps) : startMailWorker(deps),
    startWebhookWorker(deps),
    startHoldSweeper(db, log, config.holdSweepMs),
    startListingCompactor(db, log, config.listingCompactMs),
    startReminderJob(deps),
    startCalendarJobs({ config, db, log, clock }),
    runEvery(
      KEY_PURGE_INTERVAL_MS,
      () => purgeExpiredKeys(db, new Date()),
      (err) => log.error({ err }, 'idempotency key purge failed'),
    ),
    startRetentionJob(deps),
    startHorizonJob({ db, clock, log }),
    runEvery(
      PHONE_FILL_INTERVAL_MS,
      () => fillPhoneNumbers(db),
      (err) => log.error({ err }, 'reading stored phone numbers failed'),
      { immediately: true },
    ),
  ].filter((j) => j !== null);
  return {
    async stop() {
      await Promise.all(jobs.map((j) => j.stop()));
    },
  };
}
