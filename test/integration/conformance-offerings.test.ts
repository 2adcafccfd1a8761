/**
 * Conformance of group B (configuration of offerings), statement by statement, through HTTP only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import {
  expectBareArray,
  expectBareObject,
  expectEnvelope,
  expectError,
  expectNoContent,
} from '../helpers/conformance.js';
import { setupProvider, type ProviderFixture } from '../helpers/fixtures.js';
import { createProduct, createResource } from '../helpers/offeringsFixtures.js';
import { createAppointment, setupScheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const enc = encodeURIComponent;
const PRODUCT_FIELDS = [
  'uuid',
  'reference',
  'name',
  'description',
  'minDuration',
  'maxDuration',
  'leadTimeMinutes',
  'followUpTimeMinutes',
];
const RESOURCE_FIELDS = [
  'reference',
  'uuid',
  'provider',
  'publicName',
  'internalName',
  'description',
  'contact',
  'contactProfileReference',
  'website',
  'archived',
  'products',
  'address',
];
const ADDRESS = { city: 'Berlin', street: 'Hauptstraße', number: '1', zip: '10115' };

interface Ctx {
  p: Partner;
  f: ProviderFixture;
  base: string;
}

async function provider(): Promise<Ctx> {
  const p = await newPartner(t);
  const f = await setupProvider(p);
  return { p, f, base: `/provider/${enc(f.providerRef)}` };
}

async function user(p: Partner) {
  const id = uniqueId('u');
  const res = await p.call('POST', '/user', {
    reference: `${id}@crm`,
    email: `${id}@example.com`,
    username: id,
    lastName: 'Kontakt',
    firstName: 'Karl',
  });
  expect(res.statusCode).toBe(201);
  return res.json().user.reference as string;
}

describe('B1 POST .../products and B2 GET .../products', () => {
  it('B1: 201 with api-info and product (the PRODUCT_FIELDS; lead and follow-up time null)', async () => {
    const c = await provider();
    const body = {
      reference: 'viewing@crm',
      name: 'Viewing',
      description: 'Look around',
      minDuration: 30,
      maxDuration: 60,
    };
    const { product } = expectEnvelope(await c.p.call('POST', `${c.base}/products`, body), 201, 'product');
    for (const field of PRODUCT_FIELDS) expect(product, field).toHaveProperty(field);
    expect(product).toMatchObject({ ...body, leadTimeMinutes: null, followUpTimeMinutes: null });
    expect(typeof product.uuid).toBe('string');
    expect(typeof product.minDuration).toBe('number');
  });

  it('B1: reference and name are required (400 naming the field)', async () => {
    const c = await provider();
    expect(
      expectError(await c.p.call('POST', `${c.base}/products`, { name: 'X' }), 400, 'VALIDATION').message,
    ).toContain('body.reference');
    expect(
      expectError(await c.p.call('POST', `${c.base}/products`, { reference: 'x@crm' }), 400, 'VALIDATION').message,
    ).toContain('body.name');
    expect(
      expectError(await c.p.call('POST', `${c.base}/products`, { reference: 'x@crm', name: '' }), 400, 'VALIDATION')
        .message,
    ).toContain('body.name');
  });

  it('B2: 200 with a bare array of products with the B1 fields', async () => {
    const c = await provider();
    const a = await createProduct(c.p, c.f.providerRef, { name: 'A' });
    const b = await createProduct(c.p, c.f.providerRef, { name: 'B', minDuration: 15 });
    const list = expectBareArray(await c.p.call('GET', `${c.base}/products`));
    expect(list).toEqual([a, b]);
    for (const field of PRODUCT_FIELDS) expect(list[0], field).toHaveProperty(field);
  });

  it('product update POST .../products/{productRef}: 200 with the product, given fields only', async () => {
    const c = await provider();
    const product = await createProduct(c.p, c.f.providerRef, { description: 'D', minDuration: 30 });
    const res = await c.p.call('POST', `${c.base}/products/${enc(product.reference)}`, { leadTimeMinutes: 15 });
    expect(expectEnvelope(res, 200, 'product').product).toEqual({ ...product, leadTimeMinutes: 15 });
    expectError(await c.p.call('POST', `${c.base}/products/nothing%40crm`, { name: 'X' }), 404, 'NOT_FOUND');
  });
});

describe('B3 POST .../resources', () => {
  it('201 with a bare resource object with the RESOURCE_FIELDS', async () => {
    const c = await provider();
    const product = await createProduct(c.p, c.f.providerRef);
    const body = {
      reference: 'flat@crm',
      publicName: 'Flat',
      internalName: 'F1',
      description: 'Nice',
      website: 'https://example.com/flat',
      products: [product.reference],
      address: ADDRESS,
    };
    const resource = expectBareObject(await c.p.call('POST', `${c.base}/resources`, body), 201);
    for (const field of RESOURCE_FIELDS) expect(resource, field).toHaveProperty(field);
    expect(resource).toMatchObject({
      ...body,
      provider: c.f.providerRef,
      archived: false,
      contact: null,
      contactProfileReference: null,
      address: { ...ADDRESS, countryCode: 'DE' },
    });
  });

  it('reference, publicName and internalName are required (400)', async () => {
    const c = await provider();
    const body = { reference: 'r@crm', publicName: 'P', internalName: 'I' };
    for (const field of Object.keys(body)) {
      expect(
        expectError(await c.p.call('POST', `${c.base}/resources`, { ...body, [field]: undefined }), 400, 'VALIDATION')
          .message,
      ).toContain(`body.${field}`);
    }
  });

  it('onDuplicateRaise=true with an existing reference fails with 400 and changes nothing', async () => {
    const c = await provider();
    const resource = await createResource(c.p, c.f.providerRef, { publicName: 'Before' });
    const res = await c.p.call(
      'POST',
      `${c.base}/resources`,
      { reference: resource.reference, publicName: 'After', internalName: 'I' },
      { onDuplicateRaise: 'true' },
    );
    expectError(res, 400, 'VALIDATION');
    expect(expectBareArray(await c.p.call('GET', `${c.base}/resources`))[0].publicName).toBe('Before');
  });

  it('onDuplicateRaise=false (default) updates the existing resource, answered as B3: 201, bare resource', async () => {
    const c = await provider();
    const resource = await createResource(c.p, c.f.providerRef, { publicName: 'Before', description: 'kept' });
    for (const query of [undefined, { onDuplicateRaise: 'false' }]) {
      const res = await c.p.call(
        'POST',
        `${c.base}/resources`,
        { reference: resource.reference, publicName: 'After', internalName: 'I2' },
        query,
      );
      expect(expectBareObject(res, 201)).toMatchObject({
        uuid: resource.uuid,
        publicName: 'After',
        internalName: 'I2',
        description: 'kept',
      });
    }
    expect(expectBareArray(await c.p.call('GET', `${c.base}/resources`))).toHaveLength(1);
  });

  it('contact is required when contactProfileReference is given (400)', async () => {
    const c = await provider();
    const res = await c.p.call('POST', `${c.base}/resources`, {
      reference: 'r@crm',
      publicName: 'P',
      internalName: 'I',
      contactProfileReference: 'cp@crm',
    });
    expect(expectError(res, 400, 'VALIDATION').message).toContain('body.contact');
  });

  it('the profile must belong to the contact user and be valid for the provider', async () => {
    const c = await provider();
    const anna = await user(c.p);
    const bert = await user(c.p);
    const profile = {
      reference: 'cp-anna@crm',
      userReference: anna,
      providerReference: c.f.providerRef,
      name: 'Anna',
      contactChannels: [],
    };
    expect((await c.p.call('POST', `${c.base}/contactProfile`, profile)).statusCode).toBe(201);
    const wrongUser = await c.p.call('POST', `${c.base}/resources`, {
      reference: 'r@crm',
      publicName: 'P',
      internalName: 'I',
      contact: bert,
      contactProfileReference: 'cp-anna@crm',
    });
    expectError(wrongUser, 400, 'VALIDATION');
    const ok = await c.p.call('POST', `${c.base}/resources`, {
      reference: 'r@crm',
      publicName: 'P',
      internalName: 'I',
      contact: anna,
      contactProfileReference: 'cp-anna@crm',
    });
    expect(expectBareObject(ok, 201)).toMatchObject({ contact: anna, contactProfileReference: 'cp-anna@crm' });

    const other = await setupProvider(c.p);
    const elsewhere = await c.p.call('POST', `/provider/${enc(other.providerRef)}/resources`, {
      reference: 'r@crm',
      publicName: 'P',
      internalName: 'I',
      contact: anna,
      contactProfileReference: 'cp-anna@crm',
    });
    expect(elsewhere.statusCode).toBeGreaterThanOrEqual(400);
    expect(elsewhere.statusCode).toBeLessThan(500);
  });

  it('address: countryCode is optional (DE); city, street, number and zip are required in an address', async () => {
    const c = await provider();
    const ch = await createResource(c.p, c.f.providerRef, { address: { ...ADDRESS, countryCode: 'CH' } });
    expect(ch.address).toEqual({ ...ADDRESS, countryCode: 'CH' });
    for (const field of Object.keys(ADDRESS)) {
      const { [field as keyof typeof ADDRESS]: _dropped, ...address } = ADDRESS;
      const res = await c.p.call('POST', `${c.base}/resources`, {
        reference: `${uniqueId('r')}@crm`,
        publicName: 'P',
        internalName: 'I',
        address,
      });
      expect(expectError(res, 400, 'VALIDATION').message).toContain(`body.address.${field}`);
    }
  });

  it('products: product references that must already exist (an unknown product reference is 404)', async () => {
    const c = await provider();
    const res = await c.p.call('POST', `${c.base}/resources`, {
      reference: 'r@crm',
      publicName: 'P',
      internalName: 'I',
      products: ['ghost@crm'],
    });
    expect(expectError(res, 404, 'NOT_FOUND').message).toContain('ghost@crm');
    const existing = await createResource(c.p, c.f.providerRef);
    expectError(
      await c.p.call('POST', `${c.base}/resources/${enc(existing.reference)}`, { products: ['ghost@crm'] }),
      404,
      'NOT_FOUND',
    );
  });

  it('the booking channels are given per channelKey and answered for every key', async () => {
    const c = await provider();
    const resource = await createResource(c.p, c.f.providerRef, {
      channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } },
    });
    expect(resource.channels).toEqual({
      RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' },
      RESOURCE_EXCLUSIVE: { bookingProcess: 'IMMEDIATE' },
      RESOURCE_REFERENCE: { bookingProcess: 'IMMEDIATE' },
      CALENDAR_PUBLIC: { bookingProcess: 'IMMEDIATE' },
    });
  });
});

describe('B4 POST .../resources/{resourceRef} and B5 GET .../resources', () => {
  it('B4: 202 with the updated resource; only given fields change; archived true deactivates', async () => {
    const c = await provider();
    const resource = await createResource(c.p, c.f.providerRef, {
      description: 'D',
      website: 'https://w.example',
      address: ADDRESS,
    });
    const res = await c.p.call('POST', `${c.base}/resources/${enc(resource.reference)}`, {
      publicName: 'Renamed',
      archived: true,
    });
    expect(expectBareObject(res, 202)).toEqual({ ...resource, publicName: 'Renamed', archived: true });
  });

  it('B4 accepts any of the B3 fields, the reference of the path included', async () => {
    const c = await provider();
    const resource = await createResource(c.p, c.f.providerRef);
    const res = await c.p.call('POST', `${c.base}/resources/${enc(resource.reference)}`, {
      reference: resource.reference,
      publicName: 'P',
      internalName: 'I',
    });
    expect(expectBareObject(res, 202)).toMatchObject({
      reference: resource.reference,
      publicName: 'P',
      internalName: 'I',
    });
  });

  it('B4: an unknown resource is 404', async () => {
    const c = await provider();
    expectError(await c.p.call('POST', `${c.base}/resources/ghost%40crm`, { publicName: 'X' }), 404, 'NOT_FOUND');
  });

  it('B5: 200 with a bare array of resources', async () => {
    const c = await provider();
    const a = await createResource(c.p, c.f.providerRef);
    const b = await createResource(c.p, c.f.providerRef);
    expect(expectBareArray(await c.p.call('GET', `${c.base}/resources`))).toEqual([a, b]);
  });
});

describe('B6 DELETE .../resources/{resourceRef}', () => {
  it('without future appointments the resource is deleted (204) for good', async () => {
    const c = await provider();
    const resource = await createResource(c.p, c.f.providerRef);
    expectNoContent(await c.p.call('DELETE', `${c.base}/resources/${enc(resource.reference)}`));
    expect(expectBareArray(await c.p.call('GET', `${c.base}/resources`))).toEqual([]);
    expectError(await c.p.call('POST', `${c.base}/resources/${enc(resource.reference)}`, { archived: false }), 404);
    expectError(await c.p.call('DELETE', `${c.base}/resources/${enc(resource.reference)}`), 404, 'NOT_FOUND');
  });

  it('fails (409) while future appointments exist unless ignoreFutureAppointments is true', async () => {
    const s = await setupScheduling(t);
    await createAppointment(s);
    const path = `${s.base}/resources/${enc(s.resourceRef)}`;
    expectError(await s.p.call('DELETE', path), 409, 'CONFLICT');
    expectError(await s.p.call('DELETE', path, undefined, { ignoreFutureAppointments: 'false' }), 409);
    expect(expectBareArray(await s.p.call('GET', `${s.base}/resources`))).toHaveLength(1);
  });

  it('with ignoreFutureAppointments=true the resource is deleted and its appointments archived', async () => {
    const s = await setupScheduling(t);
    const appointment = await createAppointment(s);
    expectNoContent(
      await s.p.call('DELETE', `${s.base}/resources/${enc(s.resourceRef)}`, undefined, {
        ignoreFutureAppointments: 'true',
      }),
    );
    expect(expectBareArray(await s.p.call('GET', `${s.base}/resources`))).toEqual([]);
    expect(expectBareArray(await s.p.call('GET', `${s.base}/appointments`))).toEqual([]);
    const archived = expectBareArray(
      await s.p.call('GET', `${s.base}/appointments`, undefined, { includeArchived: 'true' }),
    );
    expect(archived).toMatchObject([{ reference: appointment.reference, archived: true }]);
  });
});

describe('B7-B10 contact profiles', () => {
  const channels = [
    { type: 'email', value: 'anna@example.com' },
    { type: 'mobile', value: '+49 170 1', label: 'Mobil' },
  ];

  it('B8 creates the general profile (name and contactChannels) and B7 reads it: 200 with both', async () => {
    const p = await newPartner(t);
    const anna = await user(p);
    const put = await p.call('PUT', `/user/${enc(anna)}/generalContactProfile`, {
      name: 'Anna A.',
      contactChannels: channels,
    });
    expect(put.statusCode).toBeLessThan(300);
    const { profile } = expectEnvelope(await p.call('GET', `/user/${enc(anna)}/generalContactProfile`), 200, 'profile');
    expect(profile.name).toBe('Anna A.');
    expect(profile.contactChannels).toEqual([
      { type: 'email', value: 'anna@example.com', label: null },
      { type: 'mobile', value: '+49 170 1', label: 'Mobil' },
    ]);
  });

  it('B8: name and contactChannels are both required (400)', async () => {
    const p = await newPartner(t);
    const anna = await user(p);
    expect(
      expectError(await p.call('PUT', `/user/${enc(anna)}/generalContactProfile`, { name: 'A' }), 400).message,
    ).toContain('body.contactChannels');
    expect(
      expectError(await p.call('PUT', `/user/${enc(anna)}/generalContactProfile`, { contactChannels: [] }), 400)
        .message,
    ).toContain('body.name');
  });

  it('B8 merge: a new type is created, an existing type updated, a type missing from the array removed', async () => {
    const p = await newPartner(t);
    const anna = await user(p);
    const path = `/user/${enc(anna)}/generalContactProfile`;
    await p.call('PUT', path, { name: 'Anna', contactChannels: channels });
    const res = await p.call('PUT', path, {
      name: 'Anna',
      contactChannels: [
        { type: 'mobile', value: '+49 170 2' },
        { type: 'video', value: 'https://meet.example/anna' },
      ],
    });
    expect(expectEnvelope(res, 200, 'profile').profile.contactChannels).toEqual([
      { type: 'mobile', value: '+49 170 2', label: 'Mobil' },
      { type: 'video', value: 'https://meet.example/anna', label: null },
    ]);
  });

  it('channel type and value are required; type is one of seven (mobile, phone, email, ...), one each', async () => {
    const p = await newPartner(t);
    const anna = await user(p);
    const path = `/user/${enc(anna)}/generalContactProfile`;
    for (const type of ['mobile', 'phone', 'email', 'video', 'messenger', 'link', 'location']) {
      expect(
        (await p.call('PUT', path, { name: 'A', contactChannels: [{ type, value: 'v' }] })).statusCode,
      ).toBeLessThan(300);
    }
    expectError(await p.call('PUT', path, { name: 'A', contactChannels: [{ type: 'fax', value: 'v' }] }), 400);
    expectError(await p.call('PUT', path, { name: 'A', contactChannels: [{ value: 'v' }] }), 400);
    expectError(await p.call('PUT', path, { name: 'A', contactChannels: [{ type: 'email' }] }), 400);
    expectError(
      await p.call('PUT', path, {
        name: 'A',
        contactChannels: [
          { type: 'email', value: 'a@x.example' },
          { type: 'email', value: 'b@x.example' },
        ],
      }),
      400,
    );
  });

  it('B7/B8 for an unknown user is 404', async () => {
    const p = await newPartner(t);
    expectError(await p.call('GET', '/user/ghost%40crm/generalContactProfile'), 404, 'NOT_FOUND');
    expectError(
      await p.call('PUT', '/user/ghost%40crm/generalContactProfile', { name: 'A', contactChannels: [] }),
      404,
      'NOT_FOUND',
    );
  });

  it('B10 creates a provider-specific profile and B9 reads it (200); B9 is 404 for an unknown reference', async () => {
    const c = await provider();
    const anna = await user(c.p);
    const body = {
      reference: 'cp@crm',
      userReference: anna,
      providerReference: c.f.providerRef,
      name: 'Anna for Acme',
      contactChannels: channels,
    };
    const created = await c.p.call('POST', `${c.base}/contactProfile`, body);
    expect(created.statusCode).toBeLessThan(300);
    const { profile } = expectEnvelope(await c.p.call('GET', `${c.base}/contactProfile/cp%40crm`), 200, 'profile');
    expect(profile).toMatchObject({
      reference: 'cp@crm',
      userReference: anna,
      providerReference: c.f.providerRef,
      name: 'Anna for Acme',
    });
    expect(profile.contactChannels).toHaveLength(2);
    expectError(await c.p.call('GET', `${c.base}/contactProfile/ghost%40crm`), 404, 'NOT_FOUND');
  });

  it('B10: reference, userReference, providerReference, name and contactChannels are all required (400)', async () => {
    const c = await provider();
    const anna = await user(c.p);
    const body = {
      reference: 'cp@crm',
      userReference: anna,
      providerReference: c.f.providerRef,
      name: 'N',
      contactChannels: [],
    };
    for (const field of Object.keys(body)) {
      expect(
        expectError(await c.p.call('POST', `${c.base}/contactProfile`, { ...body, [field]: undefined }), 400).message,
      ).toContain(`body.${field}`);
    }
  });

  it('B10 on an existing reference updates it with the B8 merge rule', async () => {
    const c = await provider();
    const anna = await user(c.p);
    const body = {
      reference: 'cp@crm',
      userReference: anna,
      providerReference: c.f.providerRef,
      name: 'N',
      contactChannels: channels,
    };
    await c.p.call('POST', `${c.base}/contactProfile`, body);
    const res = await c.p.call('POST', `${c.base}/contactProfile`, {
      ...body,
      name: 'N2',
      contactChannels: [{ type: 'mobile', value: '+49 170 9' }],
    });
    expect(expectEnvelope(res, 200, 'profile').profile).toMatchObject({
      name: 'N2',
      contactChannels: [{ type: 'mobile', value: '+49 170 9', label: 'Mobil' }],
    });
  });

  it("fallback: no contactProfileReference uses the contact's general profile; no contact, the provider", async () => {
    const c = await provider();
    const anna = await user(c.p);
    await c.p.call('PUT', `/user/${enc(anna)}/generalContactProfile`, {
      name: 'Anna Public',
      contactChannels: [{ type: 'email', value: 'anna.public@example.com' }],
    });
    const withContact = await createResource(c.p, c.f.providerRef, { contact: anna });
    const withoutContact = await createResource(c.p, c.f.providerRef);
    const data = (ref: string) => t.app.inject({ method: 'POST', url: '/resources/public_data', query: { ref } });
    const a = await data(withContact.reference);
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().contact).toMatchObject({ name: 'Anna Public', email: 'anna.public@example.com' });
    const b = await data(withoutContact.reference);
    expect(b.json().contact).toMatchObject({ name: 'Acme Estates' });
  });
});
