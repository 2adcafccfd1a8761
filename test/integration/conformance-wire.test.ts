/**
 * Conformance of the wire rules every group shares: Authentication, Errors, Limits, Versioning of
 * docs/api.md (Conventions and Booking rules), checked through HTTP only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { expectEnvelope, expectError, PROVIDER_ROUTES } from '../helpers/conformance.js';
import { setupProvider } from '../helpers/fixtures.js';
import { createAppointment, setupScheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const GHOST = 'ghost%40crm';

function inject(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
  query?: Record<string, string>,
) {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(body === undefined ? {} : { payload: body as object }),
    ...(query ? { query } : {}),
  });
}

describe('Authentication', () => {
  it('every /crms endpoint without X-SERVICE-CLIENT-ID answers 401 with the error body', async () => {
    const p = await newPartner(t);
    for (const route of [
      { method: 'POST', path: () => '/user', body: {} },
      { method: 'GET', path: () => '/user/u%40crm' },
      ...PROVIDER_ROUTES,
    ]) {
      const res = await inject(route.method, `/crms/${p.crmId}${route.path(GHOST)}`, {}, route.body);
      expectError(res, 401, 'UNAUTHORIZED');
    }
  });

  it('an unknown API key answers 401', async () => {
    const p = await newPartner(t);
    const res = await inject('GET', `/crms/${p.crmId}/user/u%40crm`, { 'x-service-client-id': 'not-a-key' });
    expectError(res, 401, 'UNAUTHORIZED');
  });

  it('a valid key used for another crmId answers 403 on every /crms endpoint', async () => {
    const a = await newPartner(t);
    const b = await newPartner(t);
    for (const route of [{ method: 'POST', path: () => '/account', body: {} }, ...PROVIDER_ROUTES]) {
      const res = await inject(
        route.method,
        `/crms/${b.crmId}${route.path(GHOST)}`,
        { 'x-service-client-id': a.key },
        route.body,
      );
      expectError(res, 403, 'FORBIDDEN');
    }
  });

  it('only X-SERVICE-CLIENT-ID carries the key: Authorization alone is 401, ignored next to a valid key', async () => {
    const p = await newPartner(t);
    const url = `/crms/${p.crmId}/user/none%40crm`;
    expectError(await inject('GET', url, { authorization: p.key }), 401, 'UNAUTHORIZED');
    expectError(await inject('GET', url, { authorization: `Bearer ${p.key}` }), 401, 'UNAUTHORIZED');
    expectError(
      await inject('GET', url, { 'x-service-client-id': p.key, authorization: 'Bearer garbage' }),
      404,
      'NOT_FOUND',
    );
  });

  it('the key is checked before the body: a missing key with an invalid body is 401, not 400', async () => {
    const p = await newPartner(t);
    expectError(await inject('POST', `/crms/${p.crmId}/user`, {}, { reference: 5 }), 401);
  });

  it('the public booking flow needs no key: its answers are never 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/resources/nobody%40crm/upcoming_bookables' });
    expect(res.statusCode).not.toBe(401);
    expect(res.statusCode).not.toBe(403);
  });
});

describe('Errors', () => {
  it('an unknown provider is 404 on every provider path, before anything else is looked at', async () => {
    const p = await newPartner(t);
    for (const route of PROVIDER_ROUTES) {
      const res = await p.call(route.method, route.path(GHOST), route.body, route.query);
      const error = expectError(res, 404, 'NOT_FOUND');
      expect(error.message, route.name).toContain('ghost@crm');
    }
  });

  it('body and query validation (400) come before every lookup, the provider lookup included', async () => {
    const p = await newPartner(t);
    for (const route of PROVIDER_ROUTES) {
      if (!route.invalid) continue;
      const body = route.invalid.body ?? route.body;
      const res = await p.call(route.method, route.path(GHOST), body, route.invalid.query ?? route.query);
      const error = expectError(res, 400, 'VALIDATION');
      expect(error.message, route.name).toContain(route.invalid.field);
    }
  });

  it('an end before its start is a 400 before any lookup (D1, D2, D3, D6)', async () => {
    const p = await newPartner(t);
    const ts = {
      resourceReference: 'r@crm',
      start: '2026-07-01T12:00',
      end: '2026-07-01T09:00',
      raster: 30,
      defaultCapacity: 1,
      defaultAcceptBookings: true,
      state: 'BOOKABLE',
    };
    expectError(await p.call('POST', `/provider/${GHOST}/timeslots`, { timeslots: [ts] }), 400, 'VALIDATION');
    expectError(
      await p.call('GET', `/provider/${GHOST}/resource/r%40crm/timeslots`, undefined, {
        from: '2026-07-02T00:00',
        to: '2026-07-01T00:00',
      }),
      400,
      'VALIDATION',
    );
    expectError(
      await p.call('PUT', `/provider/${GHOST}/timeslots/t%40crm`, {
        start: '2026-07-01T12:00',
        end: '2026-07-01T09:00',
      }),
      400,
      'VALIDATION',
    );
    const appointment = {
      reference: 'a@crm',
      start: '2026-07-01T11:00+02:00',
      end: '2026-07-01T10:00+02:00',
      resourceReference: 'r@crm',
      productReference: 'p@crm',
    };
    expectError(await p.call('POST', `/provider/${GHOST}/appointments`, appointment), 400, 'VALIDATION');
  });

  it('400: a required field missing, null or empty, and the message names the field', async () => {
    const p = await newPartner(t);
    const valid = { reference: 'u@crm', email: 'u@example.com', username: 'u', lastName: 'L' };
    for (const field of ['reference', 'email', 'username', 'lastName'] as const) {
      const { [field]: _dropped, ...missing } = valid;
      expect(expectError(await p.call('POST', '/user', missing), 400, 'VALIDATION').message).toContain(`body.${field}`);
      expect(
        expectError(await p.call('POST', '/user', { ...valid, [field]: null }), 400, 'VALIDATION').message,
      ).toContain(`body.${field}`);
      expect(
        expectError(await p.call('POST', '/user', { ...valid, [field]: '' }), 400, 'VALIDATION').message,
      ).toContain(`body.${field}`);
    }
  });

  it('malformed JSON, wrong types and unknown enum values are 400', async () => {
    const s = await setupScheduling(t);
    const raw = await t.app.inject({
      method: 'POST',
      url: `/crms/${s.p.crmId}/user`,
      payload: '{"reference": ',
      headers: { 'x-service-client-id': s.p.key, 'content-type': 'application/json' },
    });
    expectError(raw, 400, 'VALIDATION');
    const ts = {
      resourceReference: s.resourceRef,
      end: '2026-07-01T12:00',
      raster: 30,
      defaultCapacity: 1,
      defaultAcceptBookings: true,
      state: 'BOOKABLE',
    };
    expect(
      expectError(await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [{ ...ts, raster: '30' }] }), 400).message,
    ).toContain('raster');
    expect(
      expectError(
        await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [{ ...ts, defaultAcceptBookings: 'true' }] }),
        400,
      ).message,
    ).toContain('defaultAcceptBookings');
    expect(
      expectError(await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [{ ...ts, state: 'OPEN' }] }), 400)
        .message,
    ).toContain('state');
    expect(
      expectError(await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [{ ...ts, end: 'tomorrow' }] }), 400)
        .message,
    ).toContain('end');
    expect(
      expectError(
        await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [{ ...ts, end: '2026-13-45T99:99' }] }),
        400,
      ).message,
    ).toContain('end');
  });

  it('a body that is not an object, or no body at all, is 400', async () => {
    const p = await newPartner(t);
    expectError(await p.call('POST', '/user', ['a']), 400, 'VALIDATION');
    expectError(await p.call('POST', '/user'), 400, 'VALIDATION');
    const nullBody = await t.app.inject({
      method: 'POST',
      url: `/crms/${p.crmId}/user`,
      payload: 'null',
      headers: { 'x-service-client-id': p.key, 'content-type': 'application/json' },
    });
    expectError(nullBody, 400, 'VALIDATION');
  });

  it('strings over their limits are 400, never truncated or 500', async () => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/user', {
      reference: 'u@crm',
      email: 'u@example.com',
      username: 'u',
      lastName: 'L'.repeat(100_000),
    });
    expect(expectError(res, 400, 'VALIDATION').message).toContain('body.lastName');
  });

  it('a body over 1 MiB is 413 with the error body', async () => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/user', {
      reference: 'u@crm',
      email: 'u@example.com',
      username: 'u',
      lastName: 'x'.repeat(1024 * 1024 + 10),
    });
    expectError(res, 413);
  });

  it('a NUL character in a body, path or query string is 400 naming the field, never a 500', async () => {
    const s = await setupScheduling(t);
    const cases: [Promise<import('fastify').LightMyRequestResponse>, string][] = [
      [
        s.p.call('POST', '/user', {
          reference: 'a\u0000b@crm',
          email: 'nul@example.com',
          username: 'nul',
          lastName: 'L',
        }),
        'body.reference',
      ],
      [s.p.call('GET', '/user/a%00b%40crm'), 'params.reference'],
      [s.p.call('POST', `${s.base}/products`, { reference: 'p@crm', name: 'P\u0000' }), 'body.name'],
      [
        s.p.call('POST', `${s.base}/customers`, {
          customerReference: 'c@crm',
          providerReference: s.provider.providerRef,
          userName: 'U\u0000',
        }),
        'body.userName',
      ],
      [
        s.p.call('POST', `${s.base}/timeslots`, {
          timeslots: [
            {
              resourceReference: s.resourceRef,
              end: '2026-07-01T12:00',
              raster: 30,
              defaultCapacity: 1,
              defaultAcceptBookings: true,
              state: 'BOOKABLE',
              address: 'Room\u00001',
            },
          ],
        }),
        'body.timeslots.0.address',
      ],
      [s.p.call('GET', `${s.base}/appointments`, undefined, { resourceRef: 'r\u0000' }), 'query.resourceRef'],
    ];
    for (const [answer, field] of cases) {
      // a path parameter's rule says more (nor . or ..), every one starts so
      const { message } = expectError(await answer, 400, 'VALIDATION');
      expect(message).toMatch(new RegExp(`^${field} must not contain NUL characters`));
    }
  });

  it('a date-time outside the years 1901 to 9998 or of no real date is 400 naming the field, never a 500', async () => {
    const s = await setupScheduling(t);
    const appointment = (start: string, end: string) =>
      s.p.call('POST', `${s.base}/appointments`, {
        reference: `${uniqueId('a')}@crm`,
        start,
        end,
        resourceReference: s.resourceRef,
        productReference: s.productRef,
      });
    expect(expectError(await appointment('0001-01-01T00:00', '0001-01-01T01:00'), 400, 'VALIDATION').message).toContain(
      'body.start',
    );
    expect(
      expectError(await appointment('2026-07-01T10:00', '9999-12-31T23:59-12:00'), 400, 'VALIDATION').message,
    ).toContain('body.end');
    const ts = {
      resourceReference: s.resourceRef,
      start: '0000-01-01T00:00',
      end: '2026-07-01T12:00',
      raster: 30,
      defaultCapacity: 1,
      defaultAcceptBookings: true,
      state: 'BOOKABLE',
    };
    const timeslot = await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [ts] });
    expect(expectError(timeslot, 400, 'VALIDATION').message).toContain('body.timeslots.0.start');
    const leap = await appointment('2026-02-29T10:00', '2026-03-01T10:00');
    expect(expectError(leap, 400, 'VALIDATION').message).toContain('body.start');
    const period = await s.p.call(
      'GET',
      `${s.base}/resource/${encodeURIComponent(s.resourceRef)}/timeslots`,
      undefined,
      { from: '1800-01-01', to: '2026-01-01' },
    );
    expect(expectError(period, 400, 'VALIDATION').message).toContain('query.from');
    expect((await appointment('2026-07-01T10:00', '9998-12-31T23:00')).statusCode).toBe(201);
  });

  it('huge numbers, odd references and broken URL encoding are answered without a 500', async () => {
    const s = await setupScheduling(t);
    const answers = [
      await s.p.call('POST', `${s.base}/timeslots`, {
        timeslots: [
          {
            resourceReference: s.resourceRef,
            end: '2026-07-01T12:00',
            raster: 1e300,
            defaultCapacity: 1,
            defaultAcceptBookings: true,
            state: 'BOOKABLE',
          },
        ],
      }),
      await s.p.call('POST', `${s.base}/customers`, {
        customerReference: 'c\ud800@crm',
        providerReference: s.provider.providerRef,
        userName: 'U',
      }),
      await s.p.call('GET', `${s.base}/appointments`, undefined, { resourceRef: '%%%' }),
      await s.p.call('GET', `/provider/${'x'.repeat(5000)}`),
      await t.app.inject({
        method: 'GET',
        url: `/crms/${s.p.crmId}/user/%E0%A4%A`,
        headers: { 'x-service-client-id': s.p.key },
      }),
    ];
    expect(answers.map((res, i) => `${i}: ${res.statusCode >= 500 ? res.body : 'ok'}`)).toEqual(
      answers.map((_, i) => `${i}: ok`),
    );
    for (const res of answers) if (res.statusCode >= 400) expectError(res, res.statusCode);
  });

  it('a URL that is not validly percent-encoded is 400 with the error body', async () => {
    const p = await newPartner(t);
    for (const url of [
      `/crms/${p.crmId}/user/%E0%A4%A`,
      `/crms/${p.crmId}/user/%`,
      '/resources/%E0/upcoming_bookables',
    ]) {
      expectError(
        await t.app.inject({ method: 'GET', url, headers: { 'x-service-client-id': p.key } }),
        400,
        'VALIDATION',
      );
    }
  });

  it('references of 255 characters, the longest a body accepts, work in every path that names them', async () => {
    const p = await newPartner(t);
    const long = (c: string) => `${c.repeat(251)}@crm`;
    const f = await setupProvider(p);
    const base = `/provider/${encodeURIComponent(f.providerRef)}`;
    const user = await p.call('POST', '/user', {
      reference: long('ü'),
      email: 'long@example.com',
      username: 'long',
      lastName: 'L',
    });
    expect(user.statusCode).toBe(201);
    expectEnvelope(await p.call('GET', `/user/${encodeURIComponent(long('ü'))}`), 200, 'user');
    expect(
      (await p.call('POST', `${base}/resources`, { reference: long('r'), publicName: 'R', internalName: 'R' }))
        .statusCode,
    ).toBe(201);
    expect(
      (await p.call('POST', `${base}/resources/${encodeURIComponent(long('r'))}`, { archived: true })).statusCode,
    ).toBe(202);
    expectError(await p.call('GET', `/provider/${'x'.repeat(5000)}`), 400, 'VALIDATION');
  });

  it('an unknown path under /crms is 404 with the error body', async () => {
    const p = await newPartner(t);
    expectError(await p.call('GET', '/nothing/here'), 404, 'NOT_FOUND');
  });

  it('409: a user email (on update) or username already taken, with the spec messages', async () => {
    const p = await newPartner(t);
    await p.call('POST', '/user', { reference: 'a@crm', email: 'a@example.com', username: 'alpha', lastName: 'A' });
    await p.call('POST', '/user', { reference: 'b@crm', email: 'b@example.com', username: 'beta', lastName: 'B' });
    expect(
      expectError(
        await p.call('POST', '/user', { reference: 'c@crm', email: 'c@example.com', username: 'alpha', lastName: 'C' }),
        409,
      ).message,
    ).toBe('User with given username already exists.');
    expect(expectError(await p.call('PUT', '/user/b%40crm', { email: 'a@example.com' }), 409).message).toBe(
      'User with given email already exists.',
    );
    expect(expectError(await p.call('PUT', '/user/b%40crm', { username: 'alpha' }), 409).message).toBe(
      'User with given username already exists.',
    );
  });
});

describe('Limits', () => {
  it('customer note: at most 1023 characters', async () => {
    const s = await setupScheduling(t);
    const body = (note: string) => ({
      customerReference: `${uniqueId('c')}@crm`,
      providerReference: s.provider.providerRef,
      userName: 'U',
      note,
    });
    const ok = await s.p.call('POST', `${s.base}/customers`, body('n'.repeat(1023)));
    expect(expectEnvelope(ok, 201, 'customer').customer.note).toHaveLength(1023);
    expect(
      expectError(await s.p.call('POST', `${s.base}/customers`, body('n'.repeat(1024))), 400, 'VALIDATION').message,
    ).toContain('body.note');
    const ref = ok.json().customer.customerReference;
    expectError(
      await s.p.call('PUT', `${s.base}/customers/${encodeURIComponent(ref)}`, { note: 'n'.repeat(1024) }),
      400,
      'VALIDATION',
    );
  });

  it('capacity default: an appointment created without capacity has capacity 0', async () => {
    const s = await setupScheduling(t);
    const created = await createAppointment(s, { capacity: undefined });
    expect(created.capacity).toBe(0);
    expect(created.capacityLeft).toBe(0);
  });
});

describe('Versioning', () => {
  it('JSON responses carry api-info.version with the string value 1', async () => {
    const p = await newPartner(t);
    const f = await setupProvider(p);
    const res = await p.call('GET', `/provider/${encodeURIComponent(f.providerRef)}`);
    expect(expectEnvelope(res, 200, 'provider')['api-info'].version).toBe('1');
  });

  it('the configuration, setup and scheduling endpoints have no version segment', async () => {
    const p = await newPartner(t);
    const res = await t.app.inject({
      method: 'GET',
      url: `/rest/1/crms/${p.crmId}/user/u%40crm`,
      headers: { 'x-service-client-id': p.key },
    });
    expectError(res, 404);
  });
});

describe('Data isolation per crmId', () => {
  it('nothing of a partner is visible or changeable with another partner key, even by the same reference', async () => {
    const a = await setupScheduling(t);
    const b = await newPartner(t);
    const provider = encodeURIComponent(a.provider.providerRef);
    const owner = encodeURIComponent(a.provider.ownerRef);
    expectError(await b.call('GET', `/user/${owner}`), 404);
    expectError(await b.call('PUT', `/user/${owner}`, { lastName: 'Hacked' }), 404);
    expectError(await b.call('GET', `/account/${encodeURIComponent(a.provider.accountRef)}`), 404);
    expectError(await b.call('GET', `/provider/${provider}`), 404);
    expectError(await b.call('GET', `/provider/${provider}/products`), 404);
    expectError(
      await b.call('POST', `/provider/${provider}/resources/${encodeURIComponent(a.resourceRef)}`, { archived: true }),
      404,
    );
    expectError(
      await b.call('POST', '/account', {
        accountReference: 'x@crm',
        ownerReference: a.provider.ownerRef,
        branch: 'misc',
      }),
      404,
    );
    expectError(await b.call('GET', `/user/${owner}/generalContactProfile`), 404);

    // the same references under b are b's own and do not touch a's data
    const same = await b.call('POST', '/user', {
      reference: a.provider.ownerRef,
      email: a.provider.ownerEmail,
      username: 'other',
      lastName: 'Other',
    });
    expect(expectEnvelope(same, 201, 'user').user.email).toBe(a.provider.ownerEmail);
    const read = await a.p.call('GET', `/user/${owner}`);
    expect(expectEnvelope(read, 200, 'user').user.lastName).toBe('Owner');
    expect((await a.p.call('GET', `/provider/${provider}/resources`)).json()[0].archived).toBe(false);
  });

  it("references in a body never reach another partner's users, products or customers: they are unknown", async () => {
    const a = await setupScheduling(t);
    const b = await setupScheduling(t);
    const aCustomer = await a.p.call('POST', `${a.base}/customers`, {
      customerReference: 'shared@crm',
      providerReference: a.provider.providerRef,
      userName: 'A',
    });
    expect(aCustomer.statusCode).toBe(201);
    const bApt = await createAppointment(b);
    expectError(await b.p.call('POST', `${b.base}/staff`, { userReference: a.provider.ownerRef }), 404);
    expectError(
      await b.p.call('POST', `${b.base}/resources`, {
        reference: 'x@crm',
        publicName: 'X',
        internalName: 'X',
        contact: a.provider.ownerRef,
      }),
      404,
    );
    expectError(
      await b.p.call('POST', `${b.base}/resources`, {
        reference: 'y@crm',
        publicName: 'Y',
        internalName: 'Y',
        products: [a.productRef],
      }),
      404,
    );
    expectError(
      await b.p.call('POST', `${b.base}/appointments`, {
        reference: 'z@crm',
        start: '2026-07-02T10:00',
        end: '2026-07-02T11:00',
        resourceReference: b.resourceRef,
        productReference: b.productRef,
        contactReference: a.provider.ownerRef,
      }),
      404,
    );
    expectError(
      await b.p.call('POST', `${b.base}/participations`, {
        reference: 'p@crm',
        appointmentReference: bApt.reference,
        customerReference: 'shared@crm',
        state: 'BOOKED',
      }),
      404,
    );
    expectError(
      await b.p.call('POST', `${b.base}/contactProfile`, {
        reference: 'cp@crm',
        userReference: a.provider.ownerRef,
        providerReference: b.provider.providerRef,
        name: 'N',
        contactChannels: [],
      }),
      404,
    );
    expectError(
      await b.p.call('PUT', `/user/${encodeURIComponent(a.provider.ownerRef)}/generalContactProfile`, {
        name: 'N',
        contactChannels: [],
      }),
      404,
    );
  });
});
