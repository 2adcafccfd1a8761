/**
 * The mail worker in a thread of its own (issue 55). The worker delivers one mail at a time, so
 * that a crash (kill -9) can send at most the one mail in flight twice; each mail is several waits
 * (the SMTP conversation, the SENT mark), and on the main thread every wait also queued behind the
 * requests' work on its event loop: under a rush of bookings the worker sent a few mails a second
 * and the confirmations lagged half a minute. In its own thread its waits are its own, and its CPU
 * (rendering, MIME) runs beside the requests' instead of between them.
 * PostgreSQL only: PGlite is one session inside the main thread, so there the worker stays in it.
 */
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import { mailMetrics } from './metrics.js';
import { onMailEnqueued } from './outbox.js';
import type { WorkerLog } from './worker.js';

/** What the thread needs of the configuration (plain values: they cross to the thread by copy). */
export type MailThreadSettings = Pick<
  Config,
  'databaseUrl' | 'dataDir' | 'preparedStatements' | 'smtpUrl' | 'mailFrom' | 'mailPollMs'
> & {
  /** connections of the thread's pool: the worker's statements and its lease renewals */
  poolSize: number;
};

/** Messages from the thread. */
export type ToMain =
  | { t: 'ready' }
  | { t: 'stopped' }
  | { t: 'log'; level: 'info' | 'warn' | 'error'; obj: object; msg: string }
  | { t: 'count'; counter: 'sent'; labels: { template: string; transport: string } }
  | { t: 'count'; counter: 'attemptFailures'; labels: { template: string; reason: string } }
  | { t: 'count'; counter: 'failed'; labels: { template: string } };

/** The thread's pool: one statement at a time, and a lease renewal beside it. */
export const MAIL_THREAD_POOL_SIZE = 2;
/**
 * The thread's heap, bounded: a mail is a few KiB and the worker holds one batch, while the
 * service's memory target counts the whole process (docs/performance.md). Past the bound the
 * thread ends and is started again; its claimed mails wait for their lease.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 };
/** how long after an unexpected end the thread is started again: doubling up to the cap, reset once it runs */
const RESTART_MS = 1000;
const RESTART_CAP_MS = 60_000;

/**
 * Whether this is the compiled service, which has the thread's entry as JavaScript: under tsx (`npm
 * run dev`) a worker thread cannot load TypeScript, and the mail worker stays on the main thread.
 */
export const mailThreadBuilt = (): boolean => !import.meta.url.endsWith('.ts');

export interface MailThread {
  stop(): Promise<void>;
}

/** Starts the mail worker's thread (from the compiled service: dist/notifications/mailThreadMain.js). */
export function startMailThread({ config, log }: { config: Config; log: WorkerLog }): MailThread {
  const settings: MailThreadSettings = {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    preparedStatements: config.preparedStatements,
    smtpUrl: config.smtpUrl,
    mailFrom: config.mailFrom,
    mailPollMs: config.mailPollMs,
    poolSize: MAIL_THREAD_POOL_SIZE,
  };
  const entry = new URL('./mailThreadMain.js', import.meta.url);
  let thread: Worker | null = null;
  let stopping = false;
  let stopped: () => void = () => undefined;
  let restartMs = RESTART_MS;
  const start = () => {
    const t = new Worker(entry, { workerData: settings, resourceLimits: THREAD_LIMITS });
    thread = t;
    t.on('message', (m: ToMain) => {
      if (m.t === 'ready') restartMs = RESTART_MS;
      else if (m.t === 'log') log[m.level](m.obj, m.msg);
      else if (m.t === 'count') (mailMetrics[m.counter].inc as (labels: object) => void)(m.labels);
      else if (m.t === 'stopped') stopped();
    });
    t.on('error', (err) => log.error({ err: String(err) }, 'mail thread failed'));
    t.on('exit', () => {
      if (thread === t) thread = null;
      if (stopping) return stopped();
      log.error({ restartInMs: restartMs }, 'mail thread ended: starting it again');
      setTimeout(() => !stopping && start(), restartMs).unref();
      restartMs = Math.min(2 * restartMs, RESTART_CAP_MS);
    });
  };
  start();
  const unsubscribe = onMailEnqueued(() => thread?.postMessage('nudge'));
  log.info({ transport: config.smtpUrl ? 'smtp' : 'file' }, 'mail worker started in its own thread');
  return {
    async stop() {
      stopping = true;
      unsubscribe();
      const t = thread;
      if (!t) return;
      await new Promise<void>((resolve) => {
        stopped = resolve;
        t.postMessage('stop');
      });
      await t.terminate();
    },
  };
}
