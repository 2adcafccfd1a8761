import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const API = { version: '1' };

async function user(p: Partner): Promise<string> {
  const id = uniqueId('u');
  const res = await p.call('POST', '/user', {
    reference: `${id}@crm`,
    email: `${id}@example.com`,
    username: id,
    lastName: 'Contact',
  });
  expect(res.statusCode, res.body).toBe(201);
  return `${id}@crm`;
}

const general = (p: Partner, userRef: string, body: unknown) =>
  p.call('PUT', `/user/${userRef}/generalContactProfile`, body);

describe('B7/B8 general contact profile', () => {
  it('creates the profile with 201 and reads it back with B7', async () => {
    const p = await newPartner(t);
    const u = await user(p);
    const channels = [
      { type: 'email', label: 'Office', value: 'office@example.com' },
      { type: 'mobile', value: '+49170' },
    ];
    const res = await general(p, u, { name: 'Anna Agent', contactChannels: channels });
    expect(res.statusCode).toBe(201);
    const profile = {
      userReference: u,
      name: 'Anna Agent',
      contactChannels: [
        { type: 'email', label: 'Office', value: 'office@example.com' },
        { type: 'mobile', label: null, value: '+49170' },
      ],
    };
    expect(res.json()).toEqual({ 'api-info': API, profile });
    const read = await p.call('GET', `/user/${u}/generalContactProfile`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ 'api-info': API, profile });
  });

  it('merge rule: a new type is created, an existing type updated, a missing type removed (200)', async () => {
    const p = await newPartner(t);
    const u = await user(p);
    await general(p, u, {
      name: 'A',
      contactChannels: [
        { type: 'email', label: 'Office', value: 'old@example.com' },
        { type: 'phone', value: '+4930' },
      ],
    });
    const res = await general(p, u, {
      name: 'B',
      contactChannels: [
        { type: 'email', value: 'new@example.com' },
        { type: 'video', label: 'Call', value: 'https://meet.example/a' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().profile).toEqual({
      userReference: u,
      name: 'B',
      contactChannels: [
        // updated: new value, label kept because the request left it out
        { type: 'email', label: 'Office', value: 'new@example.com' },
        // created
        { type: 'video', label: 'Call', value: 'https://meet.example/a' },
        // phone was missing from the request: removed
      ],
    });
  });

  it('merge rule: a label given as null clears it, and an empty array removes every channel', async () => {
    const p = await newPartner(t);
    const u = await user(p);
    await general(p, u, { name: 'A', contactChannels: [{ type: 'email', label: 'Office', value: 'a@example.com' }] });
    const cleared = await general(p, u, {
      name: 'A',
      contactChannels: [{ type: 'email', label: null, value: 'a@example.com' }],
    });
    expect(cleared.json().profile.contactChannels).toEqual([{ type: 'email', label: null, value: 'a@example.com' }]);
    const none = await general(p, u, { name: 'A', contactChannels: [] });
    expect(none.statusCode).toBe(200);
    expect(none.json().profile.contactChannels).toEqual([]);
  });

  it('accepts each of the seven channel types', async () => {
    const p = await newPartner(t);
    const u = await user(p);
    const types = ['mobile', 'phone', 'email', 'video', 'messenger', 'link', 'location'];
    const res = await general(p, u, {
      name: 'All',
      contactChannels: types.map((type) => ({ type, value: `v-${type}` })),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().profile.contactChannels.map((c: { type: string }) => c.type)).toEqual(types);
  });

  it('rejects a second channel of one type in one request with 400 and keeps the profile', async () => {
    const p = await newPartner(t);
    const u = await user(p);
    await general(p, u, { name: 'A', contactChannels: [{ type: 'email', value: 'a@example.com' }] });
    const res = await general(p, u, {
      name: 'B',
      contactChannels: [
        { type: 'phone', value: '1' },
        { type: 'phone', value: '2' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'VALIDATION',
      message: expect.stringContaining('body.contactChannels'),
    });
    expect((await p.call('GET', `/user/${u}/generalContactProfile`)).json().profile.name).toBe('A');
  });

  it.each([
    ['name', { contactChannels: [] }],
    ['contactChannels', { name: 'A' }],
    ['name', { name: '', contactChannels: [] }],
    [
      'body.contactChannels.0.type must be one of mobile, phone, email, video, messenger, link, location',
      { name: 'A', contactChannels: [{ type: 'fax', value: '1' }] },
    ],
    ['value', { name: 'A', contactChannels: [{ type: 'email' }] }],
  ])('rejects a missing or invalid %s with 400 naming it', async (field, body) => {
    const p = await newPartner(t);
    const u = await user(p);
    const res = await general(p, u, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain(field);
  });

  it('answers 404 for an unknown user on B7 and B8, and for a user without general profile on B7', async () => {
    const p = await newPartner(t);
    expect((await p.call('GET', '/user/nobody@crm/generalContactProfile')).statusCode).toBe(404);
    expect((await general(p, 'nobody@crm', { name: 'A', contactChannels: [] })).statusCode).toBe(404);
    const u = await user(p);
    const res = await p.call('GET', `/user/${u}/generalContactProfile`);
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'NOT_FOUND',
      message: expect.stringContaining('general contact profile'),
    });
  });

  it('validates the body before looking up the user', async () => {
    const p = await newPartner(t);
    expect((await general(p, 'nobody@crm', { name: 'A' })).statusCode).toBe(400);
  });

  it('keeps profiles inside their crm', async () => {
    const p = await newPartner(t);
    const u = await user(p);
    await general(p, u, { name: 'A', contactChannels: [] });
    const other = await newPartner(t);
    expect((await other.call('GET', `/user/${u}/generalContactProfile`)).statusCode).toBe(404);
  });
});

describe('B9/B10 provider-specific contact profile', () => {
  async function setup() {
    const p = await newPartner(t);
    const { providerRef } = await setupProvider(p);
    const u = await user(p);
    const base = `/provider/${providerRef}/contactProfile`;
    const body = (over: Record<string, unknown> = {}) => ({
      reference: 'prof@crm',
      userReference: u,
      providerReference: providerRef,
      name: 'Anna for Acme',
      contactChannels: [
        { type: 'email', label: 'Acme', value: 'anna@acme.example' },
        { type: 'phone', value: '+4930' },
      ],
      ...over,
    });
    return { p, providerRef, u, base, body };
  }

  it('creates with 201 and reads back with B9 (200) including reference and providerReference', async () => {
    const { p, providerRef, u, base, body } = await setup();
    const res = await p.call('POST', base, body());
    expect(res.statusCode).toBe(201);
    const profile = {
      reference: 'prof@crm',
      userReference: u,
      providerReference: providerRef,
      name: 'Anna for Acme',
      contactChannels: [
        { type: 'email', label: 'Acme', value: 'anna@acme.example' },
        { type: 'phone', label: null, value: '+4930' },
      ],
    };
    expect(res.json()).toEqual({ 'api-info': API, profile });
    const read = await p.call('GET', `${base}/prof@crm`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ 'api-info': API, profile });
  });

  it('updates an existing reference with 200 using the merge rule', async () => {
    const { p, base, body } = await setup();
    await p.call('POST', base, body());
    const res = await p.call(
      'POST',
      base,
      body({
        name: 'Renamed',
        contactChannels: [
          { type: 'email', value: 'new@acme.example' },
          { type: 'link', value: 'https://acme.example' },
        ],
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().profile).toMatchObject({
      name: 'Renamed',
      contactChannels: [
        { type: 'email', label: 'Acme', value: 'new@acme.example' },
        { type: 'link', label: null, value: 'https://acme.example' },
      ],
    });
  });

  it('answers 404 for an unknown profile reference, provider or user', async () => {
    const { p, base, body } = await setup();
    const missing = await p.call('GET', `${base}/none@crm`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].errorCode).toBe('NOT_FOUND');
    expect((await p.call('GET', '/provider/none@crm/contactProfile/prof@crm')).statusCode).toBe(404);
    expect(
      (await p.call('POST', '/provider/none@crm/contactProfile', body({ providerReference: 'none@crm' }))).statusCode,
    ).toBe(404);
    const noUser = await p.call('POST', base, body({ userReference: 'nobody@crm' }));
    expect(noUser.statusCode).toBe(404);
    expect(noUser.json().errors[0].message).toContain('body.userReference');
  });

  it('rejects a providerReference other than the path provider with 400', async () => {
    const { p, base, body } = await setup();
    const res = await p.call('POST', base, body({ providerReference: 'other@crm' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('body.providerReference');
  });

  it.each(['reference', 'userReference', 'providerReference', 'name', 'contactChannels'])(
    'rejects a missing %s with 400',
    async (field) => {
      const { p, base, body } = await setup();
      const b: Record<string, unknown> = body();
      delete b[field];
      const res = await p.call('POST', base, b);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].message).toBe(`body.${field} is required`);
    },
  );

  it('rejects two channels of one type with 400', async () => {
    const { p, base, body } = await setup();
    const res = await p.call(
      'POST',
      base,
      body({
        contactChannels: [
          { type: 'email', value: 'a@x' },
          { type: 'email', value: 'b@x' },
        ],
      }),
    );
    expect(res.statusCode).toBe(400);
  });

  it('answers 409 when an existing reference is given with another user', async () => {
    const { p, base, body } = await setup();
    await p.call('POST', base, body());
    const other = await user(p);
    const res = await p.call('POST', base, body({ userReference: other }));
    expect(res.statusCode).toBe(409);
  });

  it('lets two providers use the same profile reference independently', async () => {
    const { p, base, body } = await setup();
    await p.call('POST', base, body());
    const second = await setupProvider(p);
    const res = await p.call(
      'POST',
      `/provider/${second.providerRef}/contactProfile`,
      body({ providerReference: second.providerRef, name: 'Other' }),
    );
    expect(res.statusCode).toBe(201);
    expect((await p.call('GET', `${base}/prof@crm`)).json().profile.name).toBe('Anna for Acme');
  });
});

describe('concurrent B8 for one user', () => {
  it('creates one general profile: one 201, the others 200', async () => {
    const p = await newPartner(t);
    const u = await user(p);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        general(p, u, { name: `N${i}`, contactChannels: [{ type: 'email', value: `${i}@x.example` }] }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 201]);
    const [{ n }] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contact_profiles cp JOIN users u ON u.id = cp.user_id WHERE u.crm_id = $1
         AND cp.provider_id IS NULL`,
      [p.crmId],
    );
    expect(n).toBe(1);
  });
});
