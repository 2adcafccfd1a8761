/**
 * Webhook subscriptions (docs/webhooks.md): create with a secret shown once, list, read, change,
 * delete, rotate; validation names the field; another crm's id is 404; destinations in private
 * networks are refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS; the OpenAPI document describes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, type TestApp } from '../helpers/app.js';
import { EVENT_TYPES } from '../../src/webhooks/events.js';

let t: TestApp;
let strict: TestApp;
beforeAll(async () => {
  [t, strict] = await Promise.all([
    startTestApp({ webhookAllowPrivateNetworks: true }),
    startTestApp({ webhookAllowPrivateNetworks: false }),
  ]);
});
afterAll(() => Promise.all([t.close(), strict.close()]));

const hook = {
  url: 'http://127.0.0.1:9/hook',
  events: ['participation.booked', 'participation.canceled'],
  description: 'CRM sync',
};

describe('webhook subscriptions', () => {
  it('creates a subscription with a whsec_ secret shown only at creation and on rotation', async () => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/webhooks', hook);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().webhook;
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: hook.url,
      events: hook.events,
      description: 'CRM sync',
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);

    const read = await p.call('GET', `/webhooks/${created.id}`);
    expect(read.statusCode).toBe(200);
    const { secret, ...withoutSecret } = created;
    expect(read.json().webhook).toEqual(withoutSecret);
    const list = await p.call('GET', '/webhooks');
    expect(list.json().webhooks).toEqual([withoutSecret]);

    const rotated = await p.call('POST', `/webhooks/${created.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().webhook.secret).toMatch(/^whsec_/);
    expect(rotated.json().webhook.secret).not.toBe(secret);
  });

  it('takes every event type when events is omitted, and changes only the given fields on PUT', async () => {
    const p = await newPartner(t);
    const created = (await p.call('POST', '/webhooks', { url: 'https://hooks.example/a' })).json().webhook;
    expect(created.events).toEqual([...EVENT_TYPES]);
    expect(created.description).toBeNull();

    const put = await p.call('PUT', `/webhooks/${created.id}`, { enabled: false, events: ['appointment.created'] });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().webhook).toMatchObject({
      url: 'https://hooks.example/a',
      enabled: false,
      events: ['appointment.created'],
      description: null,
    });
    const back = await p.call('PUT', `/webhooks/${created.id}`, {
      events: null,
      description: 'all again',
      url: 'https://hooks.example/b',
    });
    expect(back.json().webhook).toMatchObject({
      url: 'https://hooks.example/b',
      enabled: false,
      events: [...EVENT_TYPES],
      description: 'all again',
    });
    expect(back.json().webhook.secret).toBeUndefined();

    expect((await p.call('DELETE', `/webhooks/${created.id}`)).statusCode).toBe(204);
    expect((await p.call('GET', `/webhooks/${created.id}`)).statusCode).toBe(404);
    expect((await p.call('DELETE', `/webhooks/${created.id}`)).statusCode).toBe(404);
  });

  it('answers 400 naming the field for bad input', async () => {
    const p = await newPartner(t);
    const cases: [object, RegExp][] = [
      [{ url: 'http://127.0.0.1/x', events: ['participation.exploded'] }, /body\.events\.0 must be one of/],
      [{ url: 'http://127.0.0.1/x', events: [] }, /body\.events/],
      [{ url: 'ftp://127.0.0.1/x' }, /body\.url must be an absolute http or https URL/],
      [{ url: 'not a url' }, /body\.url/],
      [{}, /body\.url is required/],
      [{ url: 'http://127.0.0.1/x', secret: 'mine' }, /body\.secret is not allowed/],
    ];
    for (const [body, message] of cases) {
      const res = await p.call('POST', '/webhooks', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'VALIDATION', message: expect.stringMatching(message) });
    }
    const created = (await p.call('POST', '/webhooks', { url: 'http://127.0.0.1/x' })).json().webhook;
    const put = await p.call('PUT', `/webhooks/${created.id}`, { events: [] });
    expect(put.statusCode).toBe(400);
    expect((await p.call('PUT', `/webhooks/${created.id}`, { enabled: 'yes' })).statusCode).toBe(400);
  });

  it("keeps every crm's subscriptions to itself: another crm's id is 404 everywhere", async () => {
    const [a, b] = await Promise.all([newPartner(t), newPartner(t)]);
    const mine = (await a.call('POST', '/webhooks', hook)).json().webhook;
    expect((await b.call('GET', '/webhooks')).json().webhooks).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/webhooks/${mine.id}`],
      ['PUT', `/webhooks/${mine.id}`, { enabled: false }],
      ['DELETE', `/webhooks/${mine.id}`],
      ['POST', `/webhooks/${mine.id}/rotate-secret`],
      ['POST', `/webhooks/${mine.id}/test`],
      ['GET', `/webhooks/${mine.id}/deliveries`],
      ['POST', `/webhooks/${mine.id}/deliveries/${mine.id}/retry`],
    ] as const) {
      const res = await b.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
    expect((await a.call('GET', `/webhooks/${mine.id}`)).json().webhook.enabled).toBe(true);
    expect((await a.call('GET', '/webhooks/not-a-uuid')).statusCode).toBe(404);
    const wrongKey = await t.app.inject({
      method: 'GET',
      url: `/crms/${a.crmId}/webhooks`,
      headers: { 'x-service-client-id': b.key },
    });
    expect(wrongKey.statusCode).toBe(403);
  });
});

describe('destinations in private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset)', () => {
  it('refuses loopback, private, link-local and multicast addresses, also behind a name, with 400', async () => {
    const p = await newPartner(strict);
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://172.16.5.4/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://224.0.0.1/hook',
      'http://[::1]/hook',
      'http://[fe80::1]/hook',
      'http://[fd00::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
    ]) {
      const res = await p.call('POST', '/webhooks', { url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().errors[0].message, url).toMatch(/body\.url is refused/);
    }
    // a host that is a bare number (127.0.0.1 to a URL parser) is no host-name form: the schema refuses it first
    const numeric = await p.call('POST', '/webhooks', { url: 'http://2130706433/hook' });
    expect(numeric.statusCode).toBe(400);
    expect(numeric.json().errors[0].message).toMatch(/^body\.url must be an absolute http or https URL/);
    const created = (await p.call('POST', '/webhooks', { url: 'https://203.0.113.7/hook' })).json().webhook;
    expect(created.url).toBe('https://203.0.113.7/hook');
    expect((await p.call('POST', '/webhooks', { url: 'https://hooks.example.com/crm' })).statusCode).toBe(201);
    expect((await p.call('PUT', `/webhooks/${created.id}`, { url: 'http://10.0.0.1/' })).statusCode).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('is an OpenAPI 3.1 document with the webhook endpoints and a webhooks entry (body schema) per event', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const schema = doc.webhooks[type].post.requestBody.content['application/json'].schema;
      expect(schema.properties.type.const).toBe(type);
      expect(schema.required).toEqual(expect.arrayContaining(['type', 'timestamp', 'data']));
    }
    const booked =
      doc.webhooks['participation.booked'].post.requestBody.content['application/json'].schema.properties.data;
    expect(Object.keys(booked.properties)).toEqual([
      'crmId',
      'providerReference',
      'poolReference',
      'source',
      'participation',
      'appointment',
      'customer',
    ]);
    for (const path of [
      '/crms/{crmId}/webhooks',
      '/crms/{crmId}/webhooks/{id}',
      '/crms/{crmId}/webhooks/{id}/rotate-secret',
      '/crms/{crmId}/webhooks/{id}/test',
      '/crms/{crmId}/webhooks/{id}/deliveries',
      '/crms/{crmId}/webhooks/{id}/deliveries/{eventId}/retry',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
