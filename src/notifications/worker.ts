import type { Config } from '../config.js';
import type { Db } from '../storage/db.js';
import { mailMetrics } from './metrics.js';
import { onMailEnqueued } from './outbox.js';
import { claimDue, markAttemptFailed, markSentAndReread, release, renewLease, type OutboxRow } from './queue.js';
import { RenderError, renderMail } from './render.js';
import { transportFor, type MailTransport, type OutgoingMail, type PreparedMail } from './transport.js';

type Ready = { mail: OutgoingMail; built: PreparedMail | null } | { error: unknown };

/** The same mail: what a reread row says is what the mail was made ready from. */
const sameMail = (a: OutboxRow, b: OutboxRow) =>
  a.template === b.template &&
  a.recipient === b.recipient &&
  a.locale === b.locale &&
  JSON.stringify(a.payload) === JSON.stringify(b.payload);

/** The mail counters the worker increments (mailMetrics' shape). */
export interface MailCounters {
  sent: { inc(labels: { template: string; transport: string }): void };
  attemptFailures: { inc(labels: { template: string; reason: string }): void };
  failed: { inc(labels: { template: string }): void };
}

/** What the worker logs through (pino-compatible); never handed recipients or content. */
export interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface MailWorkerOptions {
  pollMs: number;
  batchSize: number;
  /** how long a claimed row is this worker's unless renewed: what a crash delays its mails by.
   * The worker renews the lease of the rows it still holds every third of it while it sends. */
  leaseMs: number;
  /** attempts before a row becomes FAILED */
  maxAttempts: number;
  /** retry after base * 2^attempts, at most max */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** after an enqueue signal the worker looks at once, then after this, 10x and 40x this (the
   * writing transaction commits a moment after the signal; PGlite queues the look behind it anyway) */
  nudgeDelayMs: number;
}

export const DEFAULT_WORKER_OPTIONS: Omit<MailWorkerOptions, 'pollMs'> = {
  batchSize: 50,
  leaseMs: 30_000,
  maxAttempts: 15,
  backoffBaseMs: 1000,
  backoffMaxMs: 60 * 60_000,
  nudgeDelayMs: 25,
};

/** 2 s, 4 s, 8 s ... capped: about 4 hours of retries with the defaults before a row is FAILED. */
export function backoffMs(
  attempts: number,
  options: Pick<MailWorkerOptions, 'backoffBaseMs' | 'backoffMaxMs'>,
): number {
  return Math.min(options.backoffBaseMs * 2 ** attempts, options.backoffMaxMs);
}

/** Error facts safe to log: codes, never the message (SMTP replies quote addresses). */
function errorFacts(err: unknown): { code?: string; responseCode?: number } {
  const e = err as { code?: unknown; responseCode?: unknown };
  return {
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.responseCode === 'number' ? { responseCode: e.responseCode } : {}),
  };
}

function errorText(err: unknown): string {
  const facts = errorFacts(err);
  return [facts.code, facts.responseCode, err instanceof Error ? err.message : String(err)].filter(Boolean).join(' ');
}

/**
 * Delivers outbox rows: claims a batch, sends each outside any transaction (PGlite has one session
 * and would stall every request), and records the outcome. Delivery is at-least-once only when a
 * worker dies between the SMTP answer and the status update; the stable Message-ID
 * `<{row id}@booking-service>` lets a receiver recognize such a repeat.
 */
export class MailWorker {
  private readonly options: MailWorkerOptions;
  private loop: Promise<void> | null = null;
  private stopping = false;
  /** extra looks after a nudge, in ms: the enqueuing transaction may commit a little later */
  private followUps: number[] = [];
  private wake: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;

  private readonly metrics: MailCounters;

  constructor(
    private readonly deps: {
      db: Db;
      transport: MailTransport;
      log: WorkerLog;
      mailFrom: string;
      /** where the counts go (default: this process's metrics; a mail thread's go to the main thread's) */
      metrics?: MailCounters;
    },
    options: Partial<MailWorkerOptions> & Pick<MailWorkerOptions, 'pollMs'>,
  ) {
    this.options = { ...DEFAULT_WORKER_OPTIONS, ...options };
    this.metrics = deps.metrics ?? mailMetrics;
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.unsubscribe = onMailEnqueued(() => this.nudge());
    this.loop = this.run();
  }

  /** Stops polling, lets the mail in hand finish (the rest of the batch goes back), closes the transport. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    this.loop = null;
    this.deps.transport.close();
  }

  /** Makes the worker look at the outbox soon instead of at the next poll. */
  nudge(): void {
    const d = this.options.nudgeDelayMs;
    this.followUps = [d, d * 10, d * 40];
    this.wake?.();
  }

  /**
   * Claims and delivers one batch; returns how many rows it claimed. While it sends, the rows it
   * still holds stay leased to it (renewed every third of the lease), so a slow SMTP server never
   * lets another worker send them too, and a crash delays them by at most one lease. When the
   * worker is stopping it finishes the mail in hand and hands the rest back at once.
   */
  async runOnce(): Promise<number> {
    const { db, log } = this.deps;
    const { batchSize, leaseMs } = this.options;
    const rows = await claimDue(db, batchSize, leaseMs);
    if (rows.length === 0) return 0;
    const held = new Set(rows.map((r) => r.id));
    const renewal = setInterval(() => {
      renewLease(db, [...held], leaseMs).catch((err) =>
        log.warn(errorFacts(err), 'mail worker: could not renew its lease'),
      );
    }, leaseMs / 3);
    try {
      // Each mail is made ready (rendered, its message built) from the row as last read, then the row
      // is read again right before it is handed to SMTP, in the statement that marks the previous
      // mail SENT (one round trip per mail); a row changed meanwhile (an erasure scrubbed it) is made
      // ready again, one erased is skipped.
      let unmarked: OutboxRow | null = null; // sent, its SENT mark still to be written
      const mark = async (nextId: string | null) => {
        const sent = unmarked;
        unmarked = null;
        const row = await markSentAndReread(db, sent?.id ?? null, nextId);
        if (sent) this.metrics.sent.inc({ template: sent.template, transport: this.deps.transport.kind });
        return row;
      };
      // The next mail is made ready while this one's SMTP answer is awaited (CPU during the wait; still one
      // mail in flight, so a kill -9 sends at most one twice).
      let next: Promise<Ready> | null = rows.length > 0 ? this.ready(rows[0]) : null;
      for (const [i, claimed] of rows.entries()) {
        if (this.stopping) break;
        let ready = await next!;
        next = null;
        const row = await mark(claimed.id);
        if (!row) {
          held.delete(claimed.id); // erased meanwhile
          if (i + 1 < rows.length) next = this.ready(rows[i + 1]);
          continue;
        }
        if (!sameMail(row, claimed)) ready = await this.ready(row);
        const sending = this.send(ready);
        if (i + 1 < rows.length && !this.stopping) next = this.ready(rows[i + 1]);
        const failure = await sending;
        held.delete(row.id); // no longer renewed: the outcome sets when it is due again
        if (failure === null) unmarked = row;
        else await this.record(row, failure);
      }
      if (unmarked) await mark(null);
      await release(db, [...held]);
    } finally {
      clearInterval(renewal);
    }
    return rows.length;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let claimed = 0;
      try {
        claimed = await this.runOnce();
      } catch (err) {
        this.deps.log.error(errorFacts(err), 'mail worker: could not read the outbox');
      }
      if (!this.stopping && claimed < this.options.batchSize) await this.pause();
    }
  }

  /** Sleeps pollMs (or the next follow-up look after a nudge); a nudge or stop() ends it at once. */
  private pause(): Promise<void> {
    const next = this.followUps.shift();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, Math.min(next ?? Infinity, this.options.pollMs));
      this.wake = done;
    });
  }

  /** A row's mail rendered and, where the transport can, built ahead; or why it cannot be. */
  private async ready(row: OutboxRow): Promise<Ready> {
    const { transport, mailFrom } = this.deps;
    try {
      const mail: OutgoingMail = {
        id: row.id,
        createdAt: row.created_at,
        messageId: `<${row.id}@booking-service>`,
        from: mailFrom,
        to: row.recipient,
        content: renderMail(row, { mailFrom }),
      };
      return { mail, built: transport.prepare ? await transport.prepare(mail) : null };
    } catch (err) {
      return { error: err ?? new Error('render failed') };
    }
  }

  /** Sends a ready mail; the error when it failed. No database write: the lease covers the send. */
  private async send(ready: Ready): Promise<unknown> {
    if ('error' in ready) return ready.error;
    const { transport } = this.deps;
    try {
      if (ready.built && transport.sendPrepared) await transport.sendPrepared(ready.built);
      else await transport.send(ready.mail);
      return null;
    } catch (err) {
      return err ?? new Error('send failed');
    }
  }

  /** Records a failed send: due again after a backoff, or FAILED. */
  private async record(row: OutboxRow, err: unknown): Promise<void> {
    const { db, log } = this.deps;
    const facts = { outboxId: row.id, template: row.template, attempt: row.attempts };
    const giveUp = err instanceof RenderError || row.attempts >= this.options.maxAttempts;
    const retryInMs = backoffMs(row.attempts, this.options);
    await markAttemptFailed(db, row.id, errorText(err), { giveUp, retryInMs });
    this.metrics.attemptFailures.inc({
      template: row.template,
      reason: err instanceof RenderError ? 'render' : 'transport',
    });
    if (giveUp) {
      this.metrics.failed.inc({ template: row.template });
      log.error({ ...facts, ...errorFacts(err) }, 'mail given up; kept in the outbox as FAILED');
    } else {
      log.warn({ ...facts, ...errorFacts(err), retryInMs }, 'mail delivery failed; will retry');
    }
  }
}

/** The process's mail worker: SMTP_URL, else .eml files; polls every MAIL_POLL_MS. */
export function startMailWorker(
  { config, db, log }: { config: Config; db: Db; log: WorkerLog },
  options: Partial<MailWorkerOptions> = {},
): MailWorker {
  const transport = transportFor(config);
  const worker = new MailWorker(
    { db, transport, log, mailFrom: config.mailFrom },
    { pollMs: config.mailPollMs, ...options },
  );
  worker.start();
  log.info({ transport: transport.kind }, 'mail worker started');
  return worker;
}
