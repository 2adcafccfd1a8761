import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  createTimeslots,
  flatten,
  publicCall,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
} from '../helpers/bookingFixtures.js';
import { createProduct } from '../helpers/offeringsFixtures.js';

const RATE_LIMIT = 3;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    bookingRateLimitPerMinute: RATE_LIMIT,
    maxHoldsPerIp: 100,
    canonicalHost: 'www.booking.example',
  });
});
afterAll(() => t.close());

let ipCounter = 0;
/** A fresh client address, so the low rate limit of this file only bites where a test wants it to. */
const newIp = () => ({ 'x-forwarded-for': `192.0.2.${++ipCounter}` });

const products = (query: Record<string, string | string[]>) =>
  publicCall(t, 'POST', '/products/active_products', undefined, query);
const publicData = (query: Record<string, string | string[]>) =>
  publicCall(t, 'POST', '/resources/public_data', undefined, query);

describe('A4 active_products', () => {
  it('lists the public products of the resources, without exclusive ones except on RESOURCE_EXCLUSIVE', async () => {
    const b = await setupBooking(t, { product: { description: 'A look around', minDuration: 30, maxDuration: 90 } });
    const vip = await createProduct(b.p, b.provider.providerRef, { name: 'VIP', exclusive: true, leadTimeMinutes: 15 });
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      products: [b.product.reference, vip.reference],
    });
    const res = await products({ ref: b.resource.reference });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      products: [
        {
          uuid: b.product.uuid,
          name: 'Viewing',
          description: 'A look around',
          minDuration: 30,
          maxDuration: 90,
          leadTimeMinutes: null,
          followUpTimeMinutes: null,
          exclusive: false,
          questions: [],
        },
      ],
    });
    const exclusive = await products({ ref: b.resource.uuid, channelKey: 'RESOURCE_EXCLUSIVE' });
    expect(
      exclusive
        .json()
        .products.map((p: { name: string; leadTimeMinutes: number | null }) => [p.name, p.leadTimeMinutes]),
    ).toEqual([
      ['Viewing', null],
      ['VIP', 15],
    ]);
  });

  it('tslRefs: a timeslot offers the resource products, an appointment its own', async () => {
    const b = await setupBooking(t);
    const second = await createProduct(b.p, b.provider.providerRef, { name: 'Second' });
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      products: [b.product.reference, second.reference],
    });
    const [ts] = await createTimeslots(b, [{}]);
    const appointment = await b.p.call('POST', `${b.base}/appointments`, {
      reference: `${uniqueId('apt')}@crm`,
      start: '2026-06-05T09:00',
      end: '2026-06-05T10:00',
      resourceReference: b.resource.reference,
      productReference: second.reference,
      capacity: 2,
      acceptBookings: true,
    });
    const names = async (query: Record<string, string | string[]>) =>
      (await products(query)).json().products.map((p: { name: string }) => p.name);
    expect(await names({ tslRefs: ts.uuid })).toEqual(['Viewing', 'Second']);
    expect(await names({ tslRefs: ts.reference, ref: b.resource.reference })).toEqual(['Viewing', 'Second']);
    expect(await names({ tslRefs: appointment.json().appointments[0].uuid })).toEqual(['Second']);
  });

  it('needs ref or tslRefs (400) and accepts an empty JSON body', async () => {
    const none = await products({});
    expect(none.statusCode).toBe(400);
    const message = 'query must have at least one of ref or tslRefs';
    expect(none.json().errors[0]).toEqual({ errorCode: 'VALIDATION', message });
    const b = await setupBooking(t);
    const withBody = await t.app.inject({
      method: 'POST',
      url: `/products/active_products?ref=${encodeURIComponent(b.resource.reference)}`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(withBody.statusCode, withBody.body).toBe(200);
    const withObject = await t.app.inject({
      method: 'POST',
      url: `/products/active_products?ref=${encodeURIComponent(b.resource.reference)}`,
      payload: {},
    });
    expect(withObject.statusCode).toBe(200);
    expect((await products({ ref: 'unknown@nowhere' })).statusCode).toBe(404);
    expect((await products({ tslRefs: 'unknown@nowhere' })).statusCode).toBe(404);
  });
});

describe('A5 public_data', () => {
  it('answers contact, resource, provider and channel of the resource', async () => {
    const b = await setupBooking(t, {
      resource: {
        description: 'Two rooms',
        website: 'https://flat.example',
        imgUrl: 'https://flat.example/a.jpg',
        msgHelpText: 'Tell us when',
        contactChannelType: 'email',
        channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } },
      },
    });
    const res = await publicData({ ref: b.resource.reference });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      contact: { name: 'Acme Estates', email: expect.stringMatching(/@provider\.example$/), mobile: null, phone: null },
      resource: {
        uuid: b.resource.uuid,
        name: 'Flat Main Street 1',
        description: 'Two rooms',
        contactChannelType: 'email',
        msgHelpText: 'Tell us when',
        url: 'https://flat.example',
        imgUrl: 'https://flat.example/a.jpg',
      },
      provider: {
        name: 'Acme Estates',
        description: null,
        isThemingAllowed: true,
        isLocalisationAllowed: true,
        areCustomFieldsAllowed: false,
      },
      channel: { bookingProcess: 'REQUESTED' },
    });
    expect((await publicData({ ref: b.resource.reference, channelKey: 'CALENDAR_PUBLIC' })).json().channel).toEqual({
      bookingProcess: 'IMMEDIATE',
    });
  });

  it("resolves the contact through the contact user's profile", async () => {
    const b = await setupBooking(t);
    await b.p.call('PUT', `/user/${encodeURIComponent(b.provider.ownerRef)}/generalContactProfile`, {
      name: 'Olga from Acme',
      contactChannels: [
        { type: 'email', value: 'olga@acme.example' },
        { type: 'phone', value: '+49301234' },
      ],
    });
    const res = await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      contact: b.provider.ownerRef,
    });
    expect(res.statusCode, res.body).toBe(202);
    const data = await publicData({ tslRefs: (await createTimeslots(b, [{}]))[0].uuid });
    expect(data.json().contact).toEqual({
      name: 'Olga from Acme',
      email: 'olga@acme.example',
      mobile: null,
      phone: '+49301234',
    });
  });

  it('needs ref or tslRefs (400)', async () => {
    const res = await publicData({ channelKey: 'RESOURCE_PUBLIC' });
    expect(res.statusCode).toBe(400);
  });
});

const PATHS = [
  '/resources/x@y/upcoming_bookables',
  '/rest/1/resources/x@y/reserve_appointment',
  '/resources/x@y/create_appointment_with_consumer',
  '/products/active_products',
  '/resources/public_data',
];

describe('A6 CORS', () => {
  it.each(PATHS)('answers the preflight of %s with exactly the documented headers', async (url) => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE',
      'access-control-allow-headers': 'Origin, X-Requested-With, Content-Type, Accept, Authorization, X-Auth-Token',
      'access-control-max-age': '36',
      'access-control-allow-origin': 'https://shop.example',
      vary: 'Origin',
    });
  });

  it('echoes the Origin on actual answers, errors included', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{}]);
    const headers = { origin: 'https://shop.example' };
    const ok = await t.app.inject({
      method: 'GET',
      url: `/resources/${encodeURIComponent(b.resource.reference)}/upcoming_bookables`,
      headers,
    });
    const missing = await t.app.inject({
      method: 'GET',
      url: '/resources/unknown@nowhere/upcoming_bookables',
      headers,
    });
    const invalid = await t.app.inject({ method: 'POST', url: '/products/active_products', headers });
    for (const [res, status] of [
      [ok, 200],
      [missing, 404],
      [invalid, 400],
    ] as const) {
      expect(res.statusCode).toBe(status);
      expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers.vary).toMatch(/Origin/);
    }
  });

  it('does not add CORS headers to the partner API', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/crms/x/user/y',
      headers: { origin: 'https://shop.example' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('abuse limits', () => {
  it(`rate-limits reserve and create per address (bookingRateLimitPerMinute): 429, Retry-After`, async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00' }]);
    const slots = flatten(await upcoming(t, b.resource.reference));
    const ip = { ...newIp(), origin: 'https://shop.example' };
    for (let i = 0; i < RATE_LIMIT; i++) {
      expect(
        (await reserve(t, b.resource.reference, reserveBodyFor(slots[i], b.product.uuid), undefined, ip)).statusCode,
      ).toBe(201);
    }
    const limited = await reserve(
      t,
      b.resource.reference,
      reserveBodyFor(slots[RATE_LIMIT], b.product.uuid),
      undefined,
      ip,
    );
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(limited.json()).toEqual({
      'api-info': { version: '1' },
      errors: [{ errorCode: 'RATE_LIMITED', message: expect.stringContaining(`at most ${RATE_LIMIT} per minute`) }],
    });
    // create has its own allowance of the same size; the limit is checked before validation
    const createUrl = `/resources/${encodeURIComponent(b.resource.reference)}/create_appointment_with_consumer`;
    for (let i = 0; i < RATE_LIMIT; i++)
      expect((await publicCall(t, 'POST', createUrl, {}, undefined, ip)).statusCode).toBe(400);
    expect((await publicCall(t, 'POST', createUrl, {}, undefined, ip)).statusCode).toBe(429);
    // listing is not limited, and another address is not affected
    expect((await upcoming(t, b.resource.reference)).statusCode).toBe(200);
    expect(
      (await reserve(t, b.resource.reference, reserveBodyFor(slots[RATE_LIMIT], b.product.uuid), undefined, newIp()))
        .statusCode,
    ).toBe(201);
  });

  it('counts a direct client by its own address, whatever X-Forwarded-For says (only local proxies)', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-03T09:00', end: '2026-06-03T12:00' }]);
    const slots = flatten(await upcoming(t, b.resource.reference));
    const direct = (i: number) =>
      t.app.inject({
        method: 'POST',
        url: `/rest/1/resources/${encodeURIComponent(b.resource.reference)}/reserve_appointment`,
        remoteAddress: '203.0.113.7',
        headers: { 'x-forwarded-for': `198.51.100.${i}` },
        payload: reserveBodyFor(slots[i], b.product.uuid),
      });
    for (let i = 0; i < RATE_LIMIT; i++) expect((await direct(i)).statusCode).toBe(201);
    expect((await direct(RATE_LIMIT)).statusCode).toBe(429);
  });
});

describe('CANONICAL_HOST', () => {
  it('redirects a request to the host without the canonical prefix with 301 to the canonical host', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/resources/public_data?ref=a@b',
      headers: { host: 'booking.example' },
    });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('http://www.booking.example/resources/public_data?ref=a@b');
    const canonical = await t.app.inject({
      method: 'POST',
      url: '/resources/public_data?ref=a@b',
      headers: { host: 'www.booking.example' },
    });
    expect(canonical.statusCode).toBe(404);
  });
});
