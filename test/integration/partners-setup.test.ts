import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function user(p: Partner) {
  const id = uniqueId('u');
  const res = await p.call('POST', '/user', {
    reference: `${id}@crm`,
    email: `${id}@example.com`,
    username: id,
    lastName: 'L',
  });
  expect(res.statusCode).toBe(201);
  return `${id}@crm`;
}

describe('C3 and C4 accounts', () => {
  it('creates an account (201), returns it unchanged for a known reference (200) and reads it', async () => {
    const p = await newPartner(t);
    const owner = await user(p);
    const body = {
      accountReference: 'acc1@crm',
      ownerReference: owner,
      branch: 'handyman',
      invoiceAddress: { city: 'Berlin', countryCode: 'DE', street: 'Hauptstr.', number: '1', zip: '10115' },
      invoiceCompanyName: 'Acme GmbH',
      invoiceTaxId: 'DE123',
      email: 'billing@acme.example',
    };
    const created = await p.call('POST', '/account', body);
    expect(created.statusCode).toBe(201);
    expect(created.json().account).toMatchObject({
      accountReference: 'acc1@crm',
      ownerReference: owner,
      branch: 'handyman',
      invoiceCompanyName: 'Acme GmbH',
    });
    const again = await p.call('POST', '/account', { ...body, branch: 'misc', invoiceCompanyName: 'Other' });
    expect(again.statusCode).toBe(200);
    expect(again.json().account).toMatchObject({ branch: 'handyman', invoiceCompanyName: 'Acme GmbH' });
    const read = await p.call('GET', '/account/acc1%40crm');
    expect(read.statusCode).toBe(200);
    expect(read.json().account.invoiceAddress).toEqual(body.invoiceAddress);
    expect((await p.call('GET', '/account/none@crm')).statusCode).toBe(404);
  });

  it('answers the spec 404 messages for an unknown owner, an invalid branch and an unparsable reference', async () => {
    const p = await newPartner(t);
    const owner = await user(p);
    const noOwner = await p.call('POST', '/account', {
      accountReference: 'a@crm',
      ownerReference: 'ghost@crm',
      branch: 'misc',
    });
    expect(noOwner.statusCode).toBe(404);
    expect(noOwner.json().errors[0].message).toBe('no user found for ownerReference');
    const badBranch = await p.call('POST', '/account', {
      accountReference: 'a@crm',
      ownerReference: owner,
      branch: 'banking',
    });
    expect(badBranch.statusCode).toBe(404);
    expect(badBranch.json().errors[0].message).toMatch(/^Unable to find specified branch\. Was banking/);
    const badRef = await p.call('POST', '/account', {
      accountReference: 'no-platform',
      ownerReference: owner,
      branch: 'misc',
    });
    expect(badRef.statusCode).toBe(404);
    expect(badRef.json().errors[0].message).toMatch(/^Unable to parse account reference\. Was no-platform/);
  });

  it('requires every invoice address member when an invoice address is given', async () => {
    const p = await newPartner(t);
    const owner = await user(p);
    const res = await p.call('POST', '/account', {
      accountReference: 'a@crm',
      ownerReference: owner,
      branch: 'misc',
      invoiceAddress: { city: 'Berlin', street: 'X', number: '1', zip: '1' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('body.invoiceAddress.countryCode');
  });

  it('updates the given account fields only through PUT', async () => {
    const p = await newPartner(t);
    const owner = await user(p);
    await p.call('POST', '/account', {
      accountReference: 'a@crm',
      ownerReference: owner,
      branch: 'misc',
      invoiceTaxId: 'T1',
    });
    const res = await p.call('PUT', '/account/a@crm', { branch: 'facilities' });
    expect(res.statusCode).toBe(200);
    expect(res.json().account).toMatchObject({ branch: 'facilities', invoiceTaxId: 'T1' });
  });
});

describe('optional fields sent as null', () => {
  it('accepts null for optional user, account and provider fields, and PUT with null clears a field', async () => {
    const p = await newPartner(t);
    const id = uniqueId('u');
    const created = await p.call('POST', '/user', {
      reference: `${id}@crm`,
      email: `${id}@example.com`,
      username: id,
      lastName: 'L',
      firstName: null,
      phone: null,
      mobile: null,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().user).toMatchObject({ firstName: null, phone: null, mobile: null });
    await p.call('POST', '/account', {
      accountReference: 'a@crm',
      ownerReference: `${id}@crm`,
      branch: 'misc',
      invoiceTaxId: 'T1',
      email: null,
    });
    const cleared = await p.call('PUT', '/account/a@crm', { invoiceTaxId: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().account.invoiceTaxId).toBeNull();
    const provider = await p.call('POST', '/provider', {
      reference: 'p@crm',
      ownerReference: `${id}@crm`,
      accountReference: 'a@crm',
      name: 'P',
      impressum: null,
      email: null,
    });
    expect(provider.statusCode).toBe(201);
  });
});

describe('C5 and C6 providers', () => {
  it('creates a provider with uuid and all fields, reads it and 404s an unknown one', async () => {
    const p = await newPartner(t);
    const f = await setupProvider(p);
    const read = await p.call('GET', `/provider/${encodeURIComponent(f.providerRef)}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()['api-info']).toEqual({ version: '1' });
    expect(read.json().provider).toMatchObject({
      uuid: f.providerUuid,
      reference: f.providerRef,
      name: 'Acme Estates',
      timeZone: 'Europe/Berlin',
      impressum: null,
      branch: null,
      subbranch: null,
    });
    expect((await p.call('GET', '/provider/ghost@crm')).statusCode).toBe(404);
  });

  it('404s a provider with an unknown owner or account and 400s a bad time zone', async () => {
    const p = await newPartner(t);
    const owner = await user(p);
    await p.call('POST', '/account', { accountReference: 'a@crm', ownerReference: owner, branch: 'misc' });
    const base = { reference: 'p@crm', ownerReference: owner, accountReference: 'a@crm', name: 'P' };
    expect((await p.call('POST', '/provider', { ...base, ownerReference: 'ghost@crm' })).statusCode).toBe(404);
    expect((await p.call('POST', '/provider', { ...base, accountReference: 'ghost@crm' })).statusCode).toBe(404);
    const tz = await p.call('POST', '/provider', { ...base, timeZone: 'Nowhere/Town' });
    expect(tz.statusCode).toBe(400);
    expect(tz.json().errors[0].message).toContain('timeZone');
  });

  it('updates given provider fields through PUT', async () => {
    const p = await newPartner(t);
    const f = await setupProvider(p);
    const res = await p.call('PUT', `/provider/${f.providerRef}`, {
      impressum: 'Acme GmbH, Berlin',
      timeZone: 'Europe/Zurich',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().provider).toMatchObject({
      impressum: 'Acme GmbH, Berlin',
      timeZone: 'Europe/Zurich',
      name: 'Acme Estates',
    });
  });
});

describe('C7 staff', () => {
  it('lists the owner as staff in a bare array, adds (201, then 200) and removes staff (204)', async () => {
    const p = await newPartner(t);
    const f = await setupProvider(p);
    const list = await p.call('GET', `/provider/${f.providerRef}/staff`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([expect.objectContaining({ reference: f.ownerRef, email: f.ownerEmail })]);
    const member = await user(p);
    expect((await p.call('POST', `/provider/${f.providerRef}/staff`, { userReference: member })).statusCode).toBe(201);
    expect((await p.call('POST', `/provider/${f.providerRef}/staff`, { userReference: member })).statusCode).toBe(200);
    expect(
      (await p.call('GET', `/provider/${f.providerRef}/staff`)).json().map((s: { reference: string }) => s.reference),
    ).toEqual([f.ownerRef, member]);
    expect((await p.call('DELETE', `/provider/${f.providerRef}/staff/${member}`)).statusCode).toBe(204);
    expect((await p.call('DELETE', `/provider/${f.providerRef}/staff/${member}`)).statusCode).toBe(404);
    expect((await p.call('DELETE', `/provider/${f.providerRef}/staff/${f.ownerRef}`)).statusCode).toBe(409);
    expect((await p.call('POST', `/provider/${f.providerRef}/staff`, { userReference: 'ghost@crm' })).statusCode).toBe(
      404,
    );
  });
});

describe('API keys and partner isolation', () => {
  it('answers 401 without a key and with an unknown key', async () => {
    const p = await newPartner(t);
    const none = await t.app.inject({ method: 'GET', url: `/crms/${p.crmId}/user/x@crm` });
    expect(none.statusCode).toBe(401);
    expect(none.json().errors[0].errorCode).toBe('UNAUTHORIZED');
    const wrong = await t.app.inject({
      method: 'GET',
      url: `/crms/${p.crmId}/user/x@crm`,
      headers: { 'x-service-client-id': 'nope' },
    });
    expect(wrong.statusCode).toBe(401);
    const bearer = await t.app.inject({
      method: 'GET',
      url: `/crms/${p.crmId}/user/x@crm`,
      headers: { authorization: `Bearer ${p.key}` },
    });
    expect(bearer.statusCode).toBe(401);
  });

  it("answers 403 for a valid key of another crm and never shows one partner's data to another", async () => {
    const a = await newPartner(t);
    const b = await newPartner(t);
    const f = await setupProvider(a);
    const cross = await t.app.inject({
      method: 'GET',
      url: `/crms/${a.crmId}/provider/${f.providerRef}`,
      headers: { 'x-service-client-id': b.key },
    });
    expect(cross.statusCode).toBe(403);
    expect((await b.call('GET', `/provider/${f.providerRef}`)).statusCode).toBe(404);
    expect((await b.call('GET', `/user/${f.ownerRef}`)).statusCode).toBe(404);
  });

  it('rejects a revoked key', async () => {
    const p = await newPartner(t);
    await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE crm_id = $1', [p.crmId]);
    expect((await p.call('GET', '/user/x@crm')).statusCode).toBe(401);
  });
});

describe('errors on every route', () => {
  it('answers unknown routes with 404 in the error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nothing/here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      errors: [{ errorCode: 'NOT_FOUND', message: expect.stringContaining('/nothing/here') }],
    });
  });

  it('answers malformed JSON with 400', async () => {
    const p = await newPartner(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `/crms/${p.crmId}/user`,
      headers: { 'x-service-client-id': p.key, 'content-type': 'application/json' },
      payload: '{"reference": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toEqual({ errorCode: 'VALIDATION', message: 'body is not valid JSON' });
  });

  it('answers a wrong type with 400 naming the field, without coercing it', async () => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/user', {
      reference: 'x@crm',
      email: 'x@example.com',
      username: 'x',
      lastName: 42,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('body.lastName');
  });

  it('answers a body over 1 MiB with 413', async () => {
    const p = await newPartner(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `/crms/${p.crmId}/user`,
      headers: { 'x-service-client-id': p.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().errors[0].errorCode).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers a string over its limit with 400', async () => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/user', {
      reference: 'x@crm',
      email: 'x@example.com',
      username: 'x'.repeat(300),
      lastName: 'L',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('body.username');
  });
});

describe('operations', () => {
  it('reports health and readiness', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().status).toBe('ok');
  });

  it('serves an OpenAPI document with the partner routes and their schemas, and the docs page', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/crms/{crmId}/user'].post.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['reference', 'email', 'username', 'lastName']),
    );
    expect(doc.paths['/crms/{crmId}/provider/{providerRef}/staff'].get.responses['200']).toBeDefined();
    expect((await t.app.inject({ method: 'GET', url: '/docs' })).statusCode).toBeLessThan(400);
  });
});

describe('metrics', () => {
  it('exposes Prometheus metrics with request latency per route', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}');
  });
});
