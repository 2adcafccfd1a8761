import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';
import { createProduct, createResource } from '../helpers/offeringsFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const IMMEDIATE = { bookingProcess: 'IMMEDIATE' };
const ALL_IMMEDIATE = {
  RESOURCE_PUBLIC: IMMEDIATE,
  RESOURCE_EXCLUSIVE: IMMEDIATE,
  RESOURCE_REFERENCE: IMMEDIATE,
  CALENDAR_PUBLIC: IMMEDIATE,
};

async function provider(): Promise<{ p: Partner; providerRef: string; ownerRef: string; base: string }> {
  const p = await newPartner(t);
  const { providerRef, ownerRef } = await setupProvider(p);
  return { p, providerRef, ownerRef, base: `/provider/${providerRef}/resources` };
}

const body = (over: Record<string, unknown> = {}) => ({
  reference: `${uniqueId('res')}@crm`,
  publicName: 'Flat',
  internalName: 'F1',
  ...over,
});

describe('B3 create resource', () => {
  it('creates a minimal resource with 201 as a bare object with every field and defaults', async () => {
    const { p, providerRef, base } = await provider();
    const res = await p.call('POST', base, { reference: 'r1@crm', publicName: 'Flat', internalName: 'F1' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      reference: 'r1@crm',
      uuid: expect.any(String),
      provider: providerRef,
      publicName: 'Flat',
      internalName: 'F1',
      description: null,
      contact: null,
      contactProfileReference: null,
      website: null,
      archived: false,
      products: [],
      address: null,
      channels: ALL_IMMEDIATE,
      imgUrl: null,
      msgHelpText: null,
      contactChannelType: null,
      bookingWindow: { minNoticeMinutes: null, maxAdvanceDays: null, cancelNoticeMinutes: null },
      bookingLimits: { perDay: null, perWeek: null },
    });
  });

  it('stores products, address (countryCode DE by default), contact, website, channels, public data', async () => {
    const { p, providerRef, ownerRef, base } = await provider();
    const a = await createProduct(p, providerRef);
    const b = await createProduct(p, providerRef);
    const res = await p.call(
      'POST',
      base,
      body({
        description: 'Nice flat',
        products: [b.reference, a.reference],
        contact: ownerRef,
        website: 'https://example.com/flat',
        address: { city: 'Berlin', street: 'Main St', number: '1', zip: '10115' },
        channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } },
        imgUrl: 'https://example.com/flat.jpg',
        msgHelpText: 'Ring twice',
        contactChannelType: 'email',
      }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      description: 'Nice flat',
      products: [b.reference, a.reference],
      contact: ownerRef,
      website: 'https://example.com/flat',
      address: { city: 'Berlin', street: 'Main St', number: '1', zip: '10115', countryCode: 'DE' },
      channels: { ...ALL_IMMEDIATE, RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } },
      imgUrl: 'https://example.com/flat.jpg',
      msgHelpText: 'Ring twice',
      contactChannelType: 'email',
    });
  });

  it('keeps a given countryCode', async () => {
    const { p, providerRef } = await provider();
    const r = await createResource(p, providerRef, {
      address: { city: 'Wien', street: 'Ring', number: '2', zip: '1010', countryCode: 'AT' },
    });
    expect(r.address.countryCode).toBe('AT');
  });

  it('updates an existing reference with 201 (as B3) when onDuplicateRaise is false (the default)', async () => {
    const { p, providerRef, base } = await provider();
    const first = await createResource(p, providerRef, {
      reference: 'dup@crm',
      description: 'kept',
      website: 'https://a.example',
    });
    const res = await p.call(
      'POST',
      base,
      body({ reference: 'dup@crm', publicName: 'Renamed', website: 'https://b.example' }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ ...first, publicName: 'Renamed', internalName: 'F1', website: 'https://b.example' });
    expect((await p.call('GET', base)).json()).toHaveLength(1);
  });

  it('answers 400 for an existing reference when onDuplicateRaise is true, and changes nothing', async () => {
    const { p, providerRef, base } = await provider();
    const first = await createResource(p, providerRef, { reference: 'dup@crm' });
    const res = await p.call('POST', base, body({ reference: 'dup@crm', publicName: 'Other' }), {
      onDuplicateRaise: 'true',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'VALIDATION',
      message: expect.stringContaining('dup@crm'),
    });
    expect((await p.call('GET', base)).json()).toEqual([first]);
  });

  it('creates a new reference with 201 when onDuplicateRaise is true', async () => {
    const { p, base } = await provider();
    expect((await p.call('POST', base, body(), { onDuplicateRaise: 'true' })).statusCode).toBe(201);
  });
});

describe('B5 list resources', () => {
  it('lists the provider resources as a bare array, archived ones included', async () => {
    const { p, providerRef, base } = await provider();
    const a = await createResource(p, providerRef);
    const b = await createResource(p, providerRef, { reference: 'b@crm' });
    await p.call('POST', `${base}/b@crm`, { archived: true });
    const res = await p.call('GET', base);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([a, { ...b, archived: true }]);
  });

  it('answers 404 for an unknown provider and for a provider of another partner', async () => {
    const { base } = await provider();
    const other = await newPartner(t);
    expect((await other.call('GET', base)).statusCode).toBe(404);
    expect((await other.call('GET', '/provider/none@crm/resources')).statusCode).toBe(404);
  });
});

describe('B4 update resource', () => {
  it('changes only the given fields and answers 202 with the bare resource', async () => {
    const { p, providerRef, base } = await provider();
    const product = await createProduct(p, providerRef);
    const r = await createResource(p, providerRef, {
      description: 'kept',
      website: 'https://a.example',
      products: [product.reference],
      address: { city: 'Berlin', street: 'Main', number: '1', zip: '10115' },
    });
    const res = await p.call('POST', `${base}/${r.reference}`, { publicName: 'New name', msgHelpText: 'Call first' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ ...r, publicName: 'New name', msgHelpText: 'Call first' });
    expect((await p.call('GET', base)).json()).toEqual([{ ...r, publicName: 'New name', msgHelpText: 'Call first' }]);
  });

  it('replaces the product list, clears the address with null, and archives', async () => {
    const { p, providerRef, base } = await provider();
    const a = await createProduct(p, providerRef);
    const b = await createProduct(p, providerRef);
    const r = await createResource(p, providerRef, {
      products: [a.reference],
      address: { city: 'B', street: 'S', number: '1', zip: '1' },
    });
    const res = await p.call('POST', `${base}/${r.reference}`, {
      products: [b.reference],
      address: null,
      archived: true,
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ products: [b.reference], address: null, archived: true });
    const back = await p.call('POST', `${base}/${r.reference}`, { archived: false, products: [] });
    expect(back.json()).toMatchObject({ products: [], archived: false });
  });

  it('answers 404 for an unknown resource and 400 for a bad body before that', async () => {
    const { p, base } = await provider();
    const missing = await p.call('POST', `${base}/none@crm`, { publicName: 'X' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].message).toContain('none@crm');
    expect((await p.call('POST', `${base}/none@crm`, { archived: 1 })).statusCode).toBe(400);
  });

  it('cannot touch the resource of another partner', async () => {
    const { p, providerRef, base } = await provider();
    const r = await createResource(p, providerRef);
    const other = await newPartner(t);
    expect((await other.call('POST', `${base}/${r.reference}`, { publicName: 'Hijack' })).statusCode).toBe(404);
    expect((await p.call('GET', base)).json()[0].publicName).toBe(r.publicName);
  });
});

describe('concurrent B3 with one reference', () => {
  it('creates the resource once: every answer is 201 with the same resource, the others updated it', async () => {
    const { p, base } = await provider();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        p.call('POST', base, { reference: 'race@crm', publicName: `P${i}`, internalName: 'I' }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.json().uuid)).size).toBe(1);
    expect((await p.call('GET', base)).json()).toHaveLength(1);
  });
});
