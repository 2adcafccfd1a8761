/**
 * Delivery behaviour against a real receiver (docs/webhooks.md): retries after 500s, a closed port and
 * a timeout with the same webhook-id and body; FAILED after the last attempt and sent again on
 * request; no redirect followed; both signatures while a rotated secret is valid; the test event;
 * one slow receiver does not hold up another; metrics; private destinations refused at delivery.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, uniqueId } from '../helpers/app.js';
import { createAppointment, createCustomer, participate, setupScheduling } from '../helpers/schedulingFixtures.js';
import {
  deliveriesOf,
  startWebhookTest,
  subscribe,
  waitForDeliveries,
  type WebhookTest,
} from '../helpers/webhookFixtures.js';
import { startReceiver, verify } from '../helpers/webhookReceiver.js';

let t: WebhookTest;
beforeAll(async () => {
  t = await startWebhookTest({}, { maxAttempts: 4 });
});
afterAll(() => t.close());

const path = () => `/${uniqueId('hook')}`;
const requestsAt = (p: string) => t.receiver.received.filter((r) => r.path === p);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function testEvent(p: Awaited<ReturnType<typeof newPartner>>, id: string): Promise<string> {
  const res = await p.call('POST', `/webhooks/${id}/test`);
  expect(res.statusCode, res.body).toBe(202);
  return res.json().eventId;
}

describe('retries', () => {
  it('retries after 500s with the same webhook-id and body until a 2xx, and logs each outcome', async () => {
    const p = await newPartner(t);
    const at = path();
    let calls = 0;
    const respond = t.receiver.respond;
    t.receiver.respond = (r, i) => (r.path === at ? (++calls <= 2 ? 500 : 204) : respond(r, i));
    const sub = await subscribe(p, `${t.receiver.url}${at}`);
    const eventId = await testEvent(p, sub.id);
    const [row] = await waitForDeliveries(p, sub.id, (rows) => rows[0]?.status === 'SUCCEEDED');
    expect(row).toEqual({
      eventId,
      type: 'webhook.test',
      attempt: 3,
      status: 'SUCCEEDED',
      responseStatus: 204,
      error: null,
      at: expect.any(String),
      nextAttemptAt: null,
    });
    const attempts = requestsAt(at);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    for (const r of attempts) verify(sub.secret, r);
    expect(JSON.parse(attempts[0].body)).toMatchObject({
      type: 'webhook.test',
      data: { crmId: p.crmId, webhookId: sub.id },
    });
  });

  it('retries while the port is closed and delivers the same event once the receiver is there', async () => {
    const p = await newPartner(t);
    const port = await closedPort();
    const sub = await subscribe(p, `http://127.0.0.1:${port}/hook`);
    const eventId = await testEvent(p, sub.id);
    const [failing] = await waitForDeliveries(p, sub.id, (rows) => rows[0]?.attempt >= 2);
    expect(failing).toMatchObject({
      eventId,
      status: 'PENDING',
      responseStatus: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    const at = path();
    expect((await p.call('PUT', `/webhooks/${sub.id}`, { url: `${t.receiver.url}${at}` })).statusCode).toBe(200);
    await waitForDeliveries(p, sub.id, (rows) => rows[0]?.status === 'SUCCEEDED' || rows[0]?.status === 'FAILED');
    // it may have used up its attempts before the URL changed; then a manual retry sends it
    if ((await deliveriesOf(p, sub.id))[0].status === 'FAILED') {
      expect((await p.call('POST', `/webhooks/${sub.id}/deliveries/${eventId}/retry`)).statusCode).toBe(202);
      await waitForDeliveries(p, sub.id, (rows) => rows[0]?.status === 'SUCCEEDED');
    }
    expect(requestsAt(at).map((r) => r.headers['webhook-id'])).toEqual([eventId]);
  });

  it('gives up a receiver that does not answer in time and tries again', async () => {
    const p = await newPartner(t);
    const at = path();
    let calls = 0;
    const respond = t.receiver.respond;
    t.receiver.respond = (r, i) => (r.path === at ? (++calls === 1 ? 'hang' : 200) : respond(r, i));
    const sub = await subscribe(p, `${t.receiver.url}${at}`);
    await testEvent(p, sub.id);
    const [row] = await waitForDeliveries(p, sub.id, (rows) => rows[0]?.status === 'SUCCEEDED');
    expect(row.attempt).toBe(2);
    const [first, second] = requestsAt(at);
    // the sender gave up on the first (closed it unanswered) and only then tried again
    expect(first.closedAt, 'the unanswered request was closed by the sender').toBeDefined();
    expect(second.at).toBeGreaterThanOrEqual(first.closedAt!);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
  });

  it('does not follow a redirect: it counts as a failure', async () => {
    const p = await newPartner(t);
    const at = path();
    const respond = t.receiver.respond;
    t.receiver.respond = (r, i) => (r.path === at ? 302 : respond(r, i));
    const sub = await subscribe(p, `${t.receiver.url}${at}`);
    await testEvent(p, sub.id);
    const [row] = await waitForDeliveries(p, sub.id, (rows) => rows[0]?.attempt >= 2);
    expect(row).toMatchObject({ responseStatus: 302, error: expect.stringMatching(/redirect/) });
    expect(t.receiver.received.filter((r) => r.path === '/elsewhere')).toEqual([]);
  });

  it('marks a delivery FAILED after its last attempt and sends it once more on request', async () => {
    const p = await newPartner(t);
    const at = path();
    let healthy = false;
    const respond = t.receiver.respond;
    t.receiver.respond = (r, i) => (r.path === at ? (healthy ? 200 : 503) : respond(r, i));
    const sub = await subscribe(p, `${t.receiver.url}${at}`);
    const eventId = await testEvent(p, sub.id);
    const [failed] = await waitForDeliveries(p, sub.id, (rows) => rows[0]?.status === 'FAILED');
    expect(failed).toMatchObject({
      attempt: 4,
      responseStatus: 503,
      nextAttemptAt: null,
      error: expect.stringMatching(/503/),
    });
    expect(requestsAt(at)).toHaveLength(4);

    healthy = true;
    const retried = await p.call('POST', `/webhooks/${sub.id}/deliveries/${eventId}/retry`);
    expect(retried.statusCode).toBe(202);
    const [done] = await waitForDeliveries(p, sub.id, (rows) => rows[0]?.status === 'SUCCEEDED');
    expect(done).toMatchObject({ attempt: 5, responseStatus: 200 });
    expect(requestsAt(at).map((r) => r.body)).toEqual(Array(5).fill(requestsAt(at)[0].body));

    const again = await p.call('POST', `/webhooks/${sub.id}/deliveries/${eventId}/retry`);
    expect(again.statusCode).toBe(409);
    expect((await p.call('POST', `/webhooks/${sub.id}/deliveries/${sub.id}/retry`)).statusCode).toBe(404);
  });
});

describe('secrets and the test event', () => {
  it('signs with the old and the new secret after a rotation, each verifiable alone', async () => {
    const p = await newPartner(t);
    const at = path();
    const sub = await subscribe(p, `${t.receiver.url}${at}`, { events: ['participation.booked'] });
    await testEvent(p, sub.id); // delivered whatever the filter says
    await t.receiver.waitFor(() => requestsAt(at).length === 1);
    expect(String(requestsAt(at)[0].headers['webhook-signature']).split(' ')).toHaveLength(1);

    const rotated = (await p.call('POST', `/webhooks/${sub.id}/rotate-secret`)).json().webhook;
    await testEvent(p, sub.id);
    await t.receiver.waitFor(() => requestsAt(at).length === 2);
    const after = requestsAt(at)[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(sub.secret, after)).toMatchObject({ type: 'webhook.test' });
    expect(verify(rotated.secret, after)).toMatchObject({ type: 'webhook.test' });

    // once the 24 h are over only the new secret signs
    await t.db.query(
      `UPDATE webhook_subscriptions SET previous_secret_until = now() - interval '1 second' WHERE id = $1`,
      [sub.id],
    );
    await testEvent(p, sub.id);
    await t.receiver.waitFor(() => requestsAt(at).length === 3);
    expect(String(requestsAt(at)[2].headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verify(sub.secret, requestsAt(at)[2])).toThrow();
    verify(rotated.secret, requestsAt(at)[2]);
  });
});

describe('fairness and observability', () => {
  it('keeps a hanging receiver to a few requests at once while another receiver is served', async () => {
    const p = await newPartner(t);
    const slow = await startReceiver();
    slow.respond = () => 'hang';
    try {
      const slowSub = await subscribe(p, `${slow.url}/slow`);
      const at = path();
      const fastSub = await subscribe(p, `${t.receiver.url}${at}`);
      for (let i = 0; i < 10; i++) await testEvent(p, slowSub.id);
      await slow.waitFor((r) => r.filter((x) => x.closedAt === undefined).length >= 4);
      const hanging = slow.received.filter((x) => x.closedAt === undefined);
      for (let i = 0; i < 3; i++) await testEvent(p, fastSub.id);
      await t.receiver.waitFor(() => requestsAt(at).length === 3, 25_000);
      // served while the slow receiver's requests were all still hanging (none given up yet)
      expect(hanging.filter((r) => r.closedAt !== undefined)).toEqual([]);
      expect(slow.maxConcurrent()).toBeLessThanOrEqual(4);
    } finally {
      await slow.close();
    }
  });

  it('exposes deliveries by outcome and event type, and the oldest pending age, at /metrics', async () => {
    const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const value = (text: string, line: RegExp) => Number(text.match(line)?.[1] ?? 0);
    // an event type no other test of this file delivers, so the counters' moves are this test's alone
    const succeeded =
      /^booking_webhook_deliveries_total\{outcome="succeeded",event_type="participation\.booked"\} (\d+)$/m;
    const retrying =
      /^booking_webhook_deliveries_total\{outcome="retrying",event_type="participation\.booked"\} (\d+)$/m;
    const before = await metrics();
    const s = await setupScheduling(t);
    const at = path();
    // one attempt refused with 500, then one that succeeds: exactly +1 retrying and +1 succeeded
    const respond = t.receiver.respond;
    let calls = 0;
    t.receiver.respond = (r, i) => (r.path === at ? (++calls === 1 ? 500 : 200) : respond(r, i));
    const sub = await subscribe(s.p, `${t.receiver.url}${at}`, { events: ['participation.booked'] });
    const apt = await createAppointment(s);
    const customer = await createCustomer(s);
    expect(
      (
        await participate(
          s,
          { appointmentReference: apt.reference, customerReference: customer.customerReference },
          { sendMails: 'false' },
        )
      ).statusCode,
    ).toBe(201);
    await waitForDeliveries(s.p, sub.id, (rows) => rows[0]?.status === 'SUCCEEDED');
    // the counters move after the delivery row is written: wait for them, then compare exactly
    await expect
      .poll(async () => value(await metrics(), succeeded), { timeout: 20_000 })
      .toBe(value(before, succeeded) + 1);
    const after = await metrics();
    expect(value(after, retrying)).toBe(value(before, retrying) + 1);
    expect(value(after, succeeded)).toBe(value(before, succeeded) + 1);
    expect(requestsAt(at)).toHaveLength(2);
    const oldest = after.match(/^booking_webhook_oldest_pending_seconds (\S+)$/m);
    expect(oldest, 'the oldest-pending gauge is exposed').not.toBeNull();
    expect(Number(oldest![1])).toBeGreaterThanOrEqual(0);
  });
});

describe('private destinations at delivery', () => {
  // an app of its own, started in a hook (its ceiling is the hooks'; a busy machine took 20 s)
  let strict: WebhookTest;
  beforeAll(async () => {
    strict = await startWebhookTest({}, { allowPrivate: false, maxAttempts: 2 });
  });
  afterAll(() => strict?.close());

  it('refuses to send to a loopback address when private networks are not allowed, and logs why', async () => {
    const p = await newPartner(strict);
    // registered while allowed (the app's setting), delivered by a worker that is not
    const sub = await subscribe(p, `${strict.receiver.url}/never`);
    await testEvent(p, sub.id);
    const [row] = await waitForDeliveries(p, sub.id, (rows) => rows[0]?.status === 'FAILED');
    expect(row.error).toMatch(/destination refused: 127\.0\.0\.1 lies in a loopback network/);
    expect(strict.receiver.received).toEqual([]);
  });
});
