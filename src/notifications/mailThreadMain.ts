/**
 * The mail worker's thread (mailThread.ts starts it): a MailWorker on a pool of its own, with its
 * own event loop. Its logs and counts go to the main thread as messages; the main thread's nudges
 * (outbox rows written) and its stop arrive as messages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../storage/db.js';
import { transportFor } from './transport.js';
import { MailWorker, type MailCounters, type WorkerLog } from './worker.js';
import type { MailThreadSettings, ToMain } from './mailThread.js';

const port = parentPort!;
const settings = workerData as MailThreadSettings;
const post = (message: ToMain) => port.postMessage(message);

const log: WorkerLog = {
  info: (obj, msg) => post({ t: 'log', level: 'info', obj, msg }),
  warn: (obj, msg) => post({ t: 'log', level: 'warn', obj, msg }),
  error: (obj, msg) => post({ t: 'log', level: 'error', obj, msg }),
};
const metrics: MailCounters = {
  sent: { inc: (labels) => post({ t: 'count', counter: 'sent', labels }) },
  attemptFailures: { inc: (labels) => post({ t: 'count', counter: 'attemptFailures', labels }) },
  failed: { inc: (labels) => post({ t: 'count', counter: 'failed', labels }) },
};

const db = await openDb({
  databaseUrl: settings.databaseUrl,
  dataDir: settings.dataDir,
  poolSize: settings.poolSize,
  preparedStatements: settings.preparedStatements,
  keepConnections: true,
  name: 'mail',
});
const worker = new MailWorker(
  { db, transport: transportFor(settings), log, mailFrom: settings.mailFrom, metrics },
  { pollMs: settings.mailPollMs },
);
port.on('message', async (message: 'nudge' | 'stop') => {
  if (message === 'nudge') return worker.nudge();
  await worker.stop();
  await db.close();
  post({ t: 'stopped' });
  port.close();
});
worker.start();
post({ t: 'ready' });
