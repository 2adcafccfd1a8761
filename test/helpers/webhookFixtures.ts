import { expect } from 'vitest';
import type { Config } from '../../src/config.js';
import { startWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from '../../src/webhooks/worker.js';
import { startTestApp, TestClock, type Partner, type TestApp } from './app.js';
import { startReceiver, type Receiver } from './webhookReceiver.js';

export const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface WebhookTest extends TestApp {
  worker: WebhookWorker;
  receiver: Receiver;
}

/**
 * The app with its webhook worker and a real receiver. The clock is the real time (event bodies
 * count live holds by the database's clock); the retry base is tiny and private networks allowed
 * (the receiver listens on 127.0.0.1). The time limit (10 s) is far beyond any answer of the
 * receiver even on a busy machine; tests that provoke it check order, never durations.
 */
export async function startWebhookTest(
  config: Partial<Config> = {},
  worker: Partial<WebhookWorkerOptions> = {},
): Promise<WebhookTest> {
  const t = await startTestApp(
    {
      webhookAllowPrivateNetworks: true,
      webhookRetryBaseMs: 5,
      webhookTimeoutMs: 10_000,
      bookingRateLimitPerMinute: 10_000,
      maxHoldsPerIp: 1000,
      ...config,
    },
    new TestClock(new Date()),
  );
  const receiver = await startReceiver();
  const w = startWebhookWorker({ config: t.config, db: t.db, log: quietLog }, { pollMs: 25, ...worker });
  return {
    ...t,
    worker: w,
    receiver,
    close: async () => {
      await w.stop();
      await receiver.close();
      await t.close();
    },
  };
}

export interface Subscription {
  id: string;
  secret: string;
  url: string;
}

/** POST /webhooks, 201 expected. */
export async function subscribe(p: Partner, url: string, more: object = {}): Promise<Subscription> {
  const res = await p.call('POST', '/webhooks', { url, ...more });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().webhook;
}

export interface DeliveryRow {
  eventId: string;
  type: string;
  attempt: number;
  status: string;
  responseStatus: number | null;
  error: string | null;
  at: string;
  nextAttemptAt: string | null;
}

export async function deliveriesOf(p: Partner, id: string): Promise<DeliveryRow[]> {
  const res = await p.call('GET', `/webhooks/${id}/deliveries`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().deliveries;
}

/** Polls the deliveries log until `predicate` holds. */
export async function waitForDeliveries(
  p: Partner,
  id: string,
  predicate: (rows: DeliveryRow[]) => boolean,
  timeoutMs = 25_000,
): Promise<DeliveryRow[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await deliveriesOf(p, id);
    if (predicate(rows)) return rows;
    if (Date.now() > until)
      throw new Error(`deliveries not as expected within ${timeoutMs} ms: ${JSON.stringify(rows)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}
