import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';
import { createProduct } from '../helpers/offeringsFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function provider(): Promise<{ p: Partner; base: string }> {
  const p = await newPartner(t);
  const { providerRef } = await setupProvider(p);
  return { p, base: `/provider/${providerRef}/products` };
}

describe('B1 create product', () => {
  it('creates a product with 201, the envelope and every field, buffers null by default', async () => {
    const { p, base } = await provider();
    const res = await p.call('POST', base, {
      reference: 'viewing@crm',
      name: 'Viewing',
      description: 'Bring ID',
      minDuration: 30,
      maxDuration: 60,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      product: {
        uuid: expect.any(String),
        reference: 'viewing@crm',
        name: 'Viewing',
        description: 'Bring ID',
        minDuration: 30,
        maxDuration: 60,
        leadTimeMinutes: null,
        followUpTimeMinutes: null,
        exclusive: false,
        questions: [],
      },
    });
  });

  it('accepts leadTimeMinutes, followUpTimeMinutes and exclusive', async () => {
    const { p, base } = await provider();
    const res = await p.call('POST', base, {
      reference: 'x@crm',
      name: 'X',
      leadTimeMinutes: 15,
      followUpTimeMinutes: 10,
      exclusive: true,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().product).toMatchObject({
      leadTimeMinutes: 15,
      followUpTimeMinutes: 10,
      exclusive: true,
      description: null,
      minDuration: null,
    });
  });

  it('answers 409 for a reference the provider already has, but another provider may use it', async () => {
    const { p, base } = await provider();
    await createProduct(p, base.split('/')[2], { reference: 'dup@crm' });
    const again = await p.call('POST', base, { reference: 'dup@crm', name: 'Other' });
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0]).toMatchObject({
      errorCode: 'CONFLICT',
      message: expect.stringContaining('dup@crm'),
    });
    const other = await setupProvider(p);
    await createProduct(p, other.providerRef, { reference: 'dup@crm' });
  });

  it.each([
    ['name', { name: undefined }],
    ['name', { name: '' }],
    ['reference', { reference: undefined }],
    ['minDuration', { minDuration: -1 }],
    ['leadTimeMinutes', { leadTimeMinutes: -5 }],
    ['followUpTimeMinutes', { followUpTimeMinutes: 1.5 }],
    ['maxDuration', { maxDuration: '60' }],
    ['exclusive', { exclusive: 'yes' }],
  ])('rejects an invalid %s with 400 naming the field', async (field, over) => {
    const { p, base } = await provider();
    const res = await p.call('POST', base, { reference: `${uniqueId()}@crm`, name: 'N', ...over });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'VALIDATION', message: expect.stringContaining(field) });
  });

  it('rejects minDuration greater than maxDuration with 400', async () => {
    const { p, base } = await provider();
    const res = await p.call('POST', base, { reference: 'a@crm', name: 'A', minDuration: 90, maxDuration: 60 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('body.minDuration must not be greater than body.maxDuration');
  });

  it('answers 404 for an unknown provider, and 400 wins over 404', async () => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/provider/nobody@crm/products', { reference: 'a@crm', name: 'A' });
    expect(res.statusCode).toBe(404);
    const bad = await p.call('POST', '/provider/nobody@crm/products', { reference: 'a@crm' });
    expect(bad.statusCode).toBe(400);
  });
});

describe('B2 list products', () => {
  it('lists the provider products as a bare array in creation order', async () => {
    const { p, base } = await provider();
    const a = await createProduct(p, base.split('/')[2], { reference: 'a@crm', name: 'A' });
    const b = await createProduct(p, base.split('/')[2], { reference: 'b@crm', name: 'B', exclusive: true });
    const res = await p.call('GET', base);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([a, b]);
  });

  it('shows nothing of another partner and 404s a provider of another crm', async () => {
    const { p, base } = await provider();
    await createProduct(p, base.split('/')[2]);
    const other = await newPartner(t);
    const res = await other.call('GET', base);
    expect(res.statusCode).toBe(404);
    const empty = await setupProvider(other);
    expect((await other.call('GET', `/provider/${empty.providerRef}/products`)).json()).toEqual([]);
  });
});

describe('product update', () => {
  it('changes the given fields only and answers 200 with the product', async () => {
    const { p, base } = await provider();
    const created = await createProduct(p, base.split('/')[2], {
      reference: 'u@crm',
      name: 'Old',
      description: 'keep',
      minDuration: 30,
    });
    const res = await p.call('POST', `${base}/u@crm`, { name: 'New', leadTimeMinutes: 20 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      product: { ...created, name: 'New', leadTimeMinutes: 20 },
    });
    expect((await p.call('GET', base)).json()).toEqual([{ ...created, name: 'New', leadTimeMinutes: 20 }]);
  });

  it('clears an optional field given as null', async () => {
    const { p, base } = await provider();
    await createProduct(p, base.split('/')[2], { reference: 'n@crm', description: 'text', followUpTimeMinutes: 5 });
    const res = await p.call('POST', `${base}/n@crm`, { description: null, followUpTimeMinutes: null });
    expect(res.json().product).toMatchObject({ description: null, followUpTimeMinutes: null });
  });

  it('rejects a maxDuration below the stored minDuration with 400', async () => {
    const { p, base } = await provider();
    await createProduct(p, base.split('/')[2], { reference: 'm@crm', minDuration: 60 });
    const res = await p.call('POST', `${base}/m@crm`, { maxDuration: 30 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('body.maxDuration');
  });

  it('answers 404 for an unknown product and 400 for a negative value before looking', async () => {
    const { p, base } = await provider();
    expect((await p.call('POST', `${base}/none@crm`, { name: 'X' })).statusCode).toBe(404);
    expect((await p.call('POST', `${base}/none@crm`, { minDuration: -1 })).statusCode).toBe(400);
  });
});

describe('OpenAPI document', () => {
  it('describes every offering route with its body, query and response schemas', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const at = (path: string) => doc.paths[`/crms/{crmId}${path}`];
    expect(at('/provider/{providerRef}/products').post.requestBody.content['application/json'].schema.required).toEqual(
      ['reference', 'name'],
    );
    expect(at('/provider/{providerRef}/products').get.responses['200'].content['application/json'].schema.type).toBe(
      'array',
    );
    expect(at('/provider/{providerRef}/products/{productRef}').post.responses['200']).toBeDefined();
    const create = at('/provider/{providerRef}/resources').post;
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('onDuplicateRaise');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '404']));
    expect(create.responses['201'].content['application/json'].schema.properties).toHaveProperty('channels');
    expect(at('/provider/{providerRef}/resources/{resourceRef}').post.responses['202']).toBeDefined();
    expect(
      at('/provider/{providerRef}/resources/{resourceRef}').delete.parameters.map((p: { name: string }) => p.name),
    ).toContain('ignoreFutureAppointments');
    expect(at('/user/{userRef}/generalContactProfile').put.requestBody).toBeDefined();
    expect(at('/user/{userRef}/generalContactProfile').get.responses['200']).toBeDefined();
    expect(at('/provider/{providerRef}/contactProfile').post.responses['201']).toBeDefined();
    expect(at('/provider/{providerRef}/contactProfile/{profileRef}').get.tags).toEqual([
      'B. Offerings: contact profiles',
    ]);
  });
});
