/**
 * Delivers webhook events. Each turn claims due deliveries for the subscriptions it is not
 * already sending to (at most CLAIM_ROUNDS x perEndpoint each, sent perEndpoint at a time, so one
 * slow receiver holds at most perEndpoint requests and never the others' turn), sends them outside
 * any transaction and records each outcome. Safe with any number of instances: claims are disjoint
 * (SKIP LOCKED) and leased, so a crash delays a delivery by one lease and the same webhook-id and
 * body go out again.
 */
import type { Config } from '../config.js';
import type { Db } from '../storage/db.js';
import type { WorkerLog } from '../notifications/worker.js';
import { onEventsWritten } from './events.js';
import { webhookMetrics } from './metrics.js';
import { claimDue, markFailed, markSucceeded, oldestPendingSeconds, release, type DueDelivery } from './queue.js';
import { MAX_ATTEMPTS, retryDelayMs } from './schedule.js';
import { postWebhook } from './sender.js';
import { signedHeaders } from './signing.js';

export interface WebhookWorkerOptions {
  pollMs: number;
  retryBaseMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
  /** subscriptions served at once */
  endpoints: number;
  /** concurrent requests to one subscription */
  perEndpoint: number;
  /** how long a stopping worker lets requests in flight finish before it aborts them and hands them back */
  stopGraceMs: number;
  /** attempts before a delivery is FAILED */
  maxAttempts: number;
}

/**
 * Deliveries claimed per subscription in one statement, in multiples of perEndpoint: with one busy
 * subscription, a claim (a synchronous commit) per perEndpoint deliveries was most of the worker's
 * database time and bounded it to a few hundred deliveries a second (issue 55).
 */
const CLAIM_ROUNDS = 4;

/**
 * A claim follows the one before at least this long after: each costs PostgreSQL about a
 * millisecond of planning whatever it takes, and claiming each booking's few deliveries on its own
 * nudge cost more database time than the deliveries themselves (issue 55). Deliveries wait at most
 * this much longer.
 */
const MIN_CLAIM_INTERVAL_MS = 25;

export const DEFAULT_WEBHOOK_WORKER_OPTIONS = {
  endpoints: 16,
  perEndpoint: 4,
  stopGraceMs: 2000,
  maxAttempts: MAX_ATTEMPTS,
};

export class WebhookWorker {
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private woken = false;
  /** extra looks after a nudge, in ms: the transaction that wrote the events commits a little later */
  private followUps: number[] = [];
  private unsubscribe: (() => void) | null = null;
  /** subscription id -> its deliveries in flight */
  private readonly groups = new Map<string, Promise<void>>();
  private abort = new AbortController();

  constructor(
    private readonly deps: { db: Db; log: WorkerLog },
    private readonly options: WebhookWorkerOptions,
  ) {}

  /**
   * A claim's lease: a subscription's claimed deliveries go out perEndpoint at a time, in at most
   * CLAIM_ROUNDS rounds, each within the request's time limit; plus room to record the outcomes.
   */
  private get leaseMs(): number {
    return CLAIM_ROUNDS * this.options.timeoutMs + 5000;
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.abort = new AbortController();
    this.unsubscribe = onEventsWritten(() => this.nudge());
    this.loop = this.run();
  }

  /** Stops claiming; requests in flight get stopGraceMs to finish, then are aborted and handed back. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.nudge();
    await this.loop;
    const grace = setTimeout(() => this.abort.abort(), this.options.stopGraceMs);
    await Promise.all(this.groups.values());
    clearTimeout(grace);
    this.loop = null;
  }

  nudge(): void {
    this.woken = true;
    this.followUps = [20, 100, 400];
    this.wake?.();
  }

  /** One turn: claims what is due for idle subscriptions and starts sending it; returns how many it claimed. */
  async claimTurn(): Promise<number> {
    const free = this.options.endpoints - this.groups.size;
    if (free <= 0) return 0;
    const rows = await claimDue(this.deps.db, {
      endpoints: free,
      perEndpoint: CLAIM_ROUNDS * this.options.perEndpoint,
      leaseMs: this.leaseMs,
      busy: [...this.groups.keys()],
    });
    const bySubscription = new Map<string, DueDelivery[]>();
    for (const row of rows)
      bySubscription.set(row.subscription_id, [...(bySubscription.get(row.subscription_id) ?? []), row]);
    for (const [id, list] of bySubscription) {
      // perEndpoint lanes take the claimed deliveries in order: at most that many requests at once;
      // the successes are recorded together when the claim's deliveries are done (a failure at once)
      let next = 0;
      const succeeded: { delivery: DueDelivery; status: number }[] = [];
      const lane = async () => {
        while (next < list.length) {
          const d = list[next++];
          // stopping: the rest handed back
          await (this.stopping ? release(this.deps.db, d) : this.deliver(d, succeeded));
        }
      };
      const lanes = Math.min(this.options.perEndpoint, list.length);
      const group = Promise.all(Array.from({ length: lanes }, lane))
        .finally(() => markSucceeded(this.deps.db, succeeded))
        .then(
          () => undefined,
          (err) => this.deps.log.error({ err: String(err) }, 'webhook worker: could not record an outcome'),
        );
      this.groups.set(
        id,
        group.finally(() => {
          this.groups.delete(id);
          this.nudge(); // the subscription may have more due
        }),
      );
    }
    return rows.length;
  }

  private async run(): Promise<void> {
    let lastGauge = 0;
    let lastClaim = 0;
    while (!this.stopping) {
      const gather = lastClaim + MIN_CLAIM_INTERVAL_MS - Date.now();
      if (gather > 0) await new Promise((resolve) => setTimeout(resolve, gather));
      if (this.stopping) break;
      this.woken = false;
      lastClaim = Date.now();
      try {
        await this.claimTurn();
        if (Date.now() - lastGauge >= this.options.pollMs) {
          webhookMetrics.oldestPending.set(await oldestPendingSeconds(this.deps.db));
          lastGauge = Date.now();
        }
      } catch (err) {
        this.deps.log.error({ err: String(err) }, 'webhook worker: could not read the deliveries');
      }
      if (!this.stopping && !this.woken) await this.pause();
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, Math.min(this.followUps.shift() ?? Infinity, this.options.pollMs));
      this.wake = done;
    });
  }

  /** Sends one delivery; a success is added to `succeeded` (recorded by the caller), a failure recorded at once. */
  private async deliver(d: DueDelivery, succeeded: { delivery: DueDelivery; status: number }[]): Promise<void> {
    const { db, log } = this.deps;
    const headers = signedHeaders(d.secrets, d.event_id, new Date(), d.body);
    const result = await postWebhook(d.url, { ...headers }, d.body, {
      timeoutMs: this.options.timeoutMs,
      allowPrivate: this.options.allowPrivate,
      signal: this.abort.signal,
    });
    if (result.aborted) return release(db, d);
    if (result.ok) {
      succeeded.push({ delivery: d, status: result.status! });
      webhookMetrics.attempts.inc({ outcome: 'succeeded', event_type: d.type });
      return;
    }
    const giveUp = d.last_chance || d.attempts >= this.options.maxAttempts;
    const retryInMs = giveUp ? 0 : retryDelayMs(d.attempts, this.options.retryBaseMs);
    await markFailed(db, d, { status: result.status, error: result.error ?? 'failed', giveUp, retryInMs });
    webhookMetrics.attempts.inc({ outcome: giveUp ? 'failed' : 'retrying', event_type: d.type });
    const facts = {
      subscription: d.subscription_id,
      eventId: d.event_id,
      type: d.type,
      attempt: d.attempts,
      status: result.status,
    };
    if (giveUp) log.warn(facts, 'webhook delivery given up; kept as FAILED');
  }
}

/** The process's webhook worker, configured from the environment. */
export function startWebhookWorker(
  { config, db, log }: { config: Config; db: Db; log: WorkerLog },
  options: Partial<WebhookWorkerOptions> = {},
): WebhookWorker {
  const worker = new WebhookWorker(
    { db, log },
    {
      ...DEFAULT_WEBHOOK_WORKER_OPTIONS,
      pollMs: config.webhookPollMs,
      retryBaseMs: config.webhookRetryBaseMs,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivateNetworks,
      ...options,
    },
  );
  worker.start();
  return worker;
}
