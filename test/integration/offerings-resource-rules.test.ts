import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';
import { createProduct, createResource } from '../helpers/offeringsFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Setup {
  p: Partner;
  providerRef: string;
  ownerRef: string;
  base: string;
}

async function provider(): Promise<Setup> {
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

async function profile(s: Setup, userRef: string, reference = 'prof@crm', providerRef = s.providerRef) {
  const res = await s.p.call('POST', `/provider/${providerRef}/contactProfile`, {
    reference,
    userReference: userRef,
    providerReference: providerRef,
    name: 'Profile',
    contactChannels: [],
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function user(p: Partner): Promise<string> {
  const id = uniqueId('u');
  await p.call('POST', '/user', { reference: `${id}@crm`, email: `${id}@example.com`, username: id, lastName: 'C' });
  return `${id}@crm`;
}

function expect400(
  res: { statusCode: number; json(): { errors: { errorCode: string; message: string }[] } },
  text: string,
) {
  expect(res.statusCode).toBe(400);
  expect(res.json().errors[0]).toMatchObject({ errorCode: 'VALIDATION', message: expect.stringContaining(text) });
}

describe('resource products', () => {
  it('rejects an unknown product with 404 naming the missing reference, and creates nothing', async () => {
    const s = await provider();
    const known = await createProduct(s.p, s.providerRef);
    const res = await s.p.call('POST', s.base, body({ products: [known.reference, 'ghost@crm'] }));
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'NOT_FOUND',
      message: expect.stringContaining('ghost@crm'),
    });
    expect(res.json().errors[0].message).not.toContain(known.reference);
    expect((await s.p.call('GET', s.base)).json()).toEqual([]);
  });

  it('rejects a product of another provider as unknown', async () => {
    const s = await provider();
    const other = await setupProvider(s.p);
    const foreign = await createProduct(s.p, other.providerRef);
    const res = await s.p.call('POST', s.base, body({ products: [foreign.reference] }));
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].message).toContain(foreign.reference);
  });

  it('takes a product named twice once', async () => {
    const s = await provider();
    const a = await createProduct(s.p, s.providerRef);
    const r = await createResource(s.p, s.providerRef, { products: [a.reference, a.reference] });
    expect(r.products).toEqual([a.reference]);
  });
});

describe('resource address', () => {
  it.each(['city', 'zip', 'street', 'number'])('rejects an address without %s with 400 naming it', async (field) => {
    const s = await provider();
    const address: Record<string, string> = { city: 'Berlin', street: 'Main', number: '1', zip: '10115' };
    delete address[field];
    expect400(await s.p.call('POST', s.base, body({ address })), `body.address.${field} is required`);
  });

  it('rejects an empty member and an invalid countryCode with 400', async () => {
    const s = await provider();
    expect400(
      await s.p.call('POST', s.base, body({ address: { city: '', street: 'M', number: '1', zip: '1' } })),
      'body.address.city',
    );
    expect400(
      await s.p.call(
        'POST',
        s.base,
        body({ address: { city: 'B', street: 'M', number: '1', zip: '1', countryCode: 'Germany' } }),
      ),
      'body.address.countryCode',
    );
  });

  it('stores a lower-case countryCode in upper case', async () => {
    const s = await provider();
    const r = await createResource(s.p, s.providerRef, {
      address: { city: 'B', street: 'M', number: '1', zip: '1', countryCode: 'ch' },
    });
    expect(r.address.countryCode).toBe('CH');
  });
});

describe('resource contact and contact profile', () => {
  it('rejects contactProfileReference without contact with 400, before any lookup', async () => {
    const s = await provider();
    const ghost = await s.p.call('POST', s.base, body({ contactProfileReference: 'ghost@crm' }));
    expect400(ghost, 'body.contact is required when contactProfileReference is given');
    expect400(
      await s.p.call('POST', '/provider/none@crm/resources', body({ contactProfileReference: 'x@crm' })),
      'body.contact',
    );
  });

  it('accepts a profile of the contact user for this provider', async () => {
    const s = await provider();
    const u = await user(s.p);
    await profile(s, u);
    const r = await createResource(s.p, s.providerRef, { contact: u, contactProfileReference: 'prof@crm' });
    expect(r).toMatchObject({ contact: u, contactProfileReference: 'prof@crm' });
  });

  it('rejects a profile of another user with 400', async () => {
    const s = await provider();
    const owner = await user(s.p);
    const other = await user(s.p);
    await profile(s, owner);
    expect400(
      await s.p.call('POST', s.base, body({ contact: other, contactProfileReference: 'prof@crm' })),
      'does not belong',
    );
  });

  it('rejects a profile of the same user for another provider with 400', async () => {
    const s = await provider();
    const u = await user(s.p);
    const second = await setupProvider(s.p);
    await profile(s, u, 'elsewhere@crm', second.providerRef);
    expect400(
      await s.p.call('POST', s.base, body({ contact: u, contactProfileReference: 'elsewhere@crm' })),
      'another provider',
    );
  });

  it('answers 404 for an unknown contact user or an unknown profile reference', async () => {
    const s = await provider();
    const unknownUser = await s.p.call('POST', s.base, body({ contact: 'nobody@crm' }));
    expect(unknownUser.statusCode).toBe(404);
    expect(unknownUser.json().errors[0].message).toContain('body.contact');
    const u = await user(s.p);
    const unknownProfile = await s.p.call('POST', s.base, body({ contact: u, contactProfileReference: 'ghost@crm' }));
    expect(unknownProfile.statusCode).toBe(404);
    expect(unknownProfile.json().errors[0].message).toContain('ghost@crm');
  });

  it('drops the profile when B4 names another contact, keeps it for the same one, clears both with null', async () => {
    const s = await provider();
    const u = await user(s.p);
    await profile(s, u);
    const r = await createResource(s.p, s.providerRef, { contact: u, contactProfileReference: 'prof@crm' });
    const same = await s.p.call('POST', `${s.base}/${r.reference}`, { contact: u });
    expect(same.json()).toMatchObject({ contact: u, contactProfileReference: 'prof@crm' });
    const other = await s.p.call('POST', `${s.base}/${r.reference}`, { contact: s.ownerRef });
    expect(other.json()).toMatchObject({ contact: s.ownerRef, contactProfileReference: null });
    await s.p.call('POST', `${s.base}/${r.reference}`, { contact: u, contactProfileReference: 'prof@crm' });
    const cleared = await s.p.call('POST', `${s.base}/${r.reference}`, { contact: null });
    expect(cleared.json()).toMatchObject({ contact: null, contactProfileReference: null });
  });

  it('clears only the profile with contactProfileReference null', async () => {
    const s = await provider();
    const u = await user(s.p);
    await profile(s, u);
    const r = await createResource(s.p, s.providerRef, { contact: u, contactProfileReference: 'prof@crm' });
    const res = await s.p.call('POST', `${s.base}/${r.reference}`, { contactProfileReference: null });
    expect(res.json()).toMatchObject({ contact: u, contactProfileReference: null });
  });
});

describe('resource channels and public-data fields', () => {
  it('rejects an unknown channelKey with 400', async () => {
    const s = await provider();
    expect400(
      await s.p.call('POST', s.base, body({ channels: { RESOURCE_SECRET: { bookingProcess: 'IMMEDIATE' } } })),
      'body.channels.RESOURCE_SECRET is not allowed',
    );
  });

  it('rejects an unknown booking process with 400 listing the allowed ones', async () => {
    const s = await provider();
    const res = await s.p.call('POST', s.base, body({ channels: { RESOURCE_PUBLIC: { bookingProcess: 'LATER' } } }));
    expect400(res, 'body.channels.RESOURCE_PUBLIC.bookingProcess must be one of IMMEDIATE, REQUESTED');
  });

  it('rejects a contactChannelType outside the seven types with 400', async () => {
    const s = await provider();
    expect400(
      await s.p.call('POST', s.base, body({ contactChannelType: 'fax' })),
      'body.contactChannelType must be one of mobile, phone, email, video, messenger, link, location',
    );
  });

  it.each(['mobile', 'phone', 'email', 'video', 'messenger', 'link', 'location'])(
    'accepts contactChannelType %s',
    async (type) => {
      const s = await provider();
      expect((await createResource(s.p, s.providerRef, { contactChannelType: type })).contactChannelType).toBe(type);
    },
  );

  it('changes only the given channel keys on B4', async () => {
    const s = await provider();
    const r = await createResource(s.p, s.providerRef, {
      channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } },
    });
    const res = await s.p.call('POST', `${s.base}/${r.reference}`, {
      channels: { CALENDAR_PUBLIC: { bookingProcess: 'REQUESTED' } },
    });
    expect(res.json().channels).toEqual({
      RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' },
      RESOURCE_EXCLUSIVE: { bookingProcess: 'IMMEDIATE' },
      RESOURCE_REFERENCE: { bookingProcess: 'IMMEDIATE' },
      CALENDAR_PUBLIC: { bookingProcess: 'REQUESTED' },
    });
  });
});

describe('resource required fields', () => {
  it.each(['reference', 'publicName', 'internalName'])('rejects a missing %s on B3 with 400', async (field) => {
    const s = await provider();
    const b: Record<string, unknown> = body();
    delete b[field];
    expect400(await s.p.call('POST', s.base, b), `body.${field} is required`);
  });

  it('rejects an empty publicName on B4 and a non-boolean archived with 400', async () => {
    const s = await provider();
    const r = await createResource(s.p, s.providerRef);
    expect400(await s.p.call('POST', `${s.base}/${r.reference}`, { publicName: '' }), 'body.publicName');
    expect400(await s.p.call('POST', `${s.base}/${r.reference}`, { archived: 'yes' }), 'body.archived');
  });

  it('rejects a non-boolean onDuplicateRaise with 400', async () => {
    const s = await provider();
    expect400(await s.p.call('POST', s.base, body(), { onDuplicateRaise: 'maybe' }), 'onDuplicateRaise');
  });
});
