/**
 * Conformance of group C (initial setup) and the staff and update operations (docs/api.md, Operations),
 * statement by statement, through HTTP only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import {
  book,
  consumer,
  createTimeslots,
  flatten,
  setupBooking,
  upcoming,
  bookBodyFor,
} from '../helpers/bookingFixtures.js';
import { expectBareArray, expectEnvelope, expectError, expectNoContent } from '../helpers/conformance.js';
import { setupProvider } from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const USER_FIELDS = ['reference', 'email', 'username', 'firstName', 'lastName', 'phone', 'mobile'];
const enc = encodeURIComponent;

function newUser(over: object = {}) {
  const id = uniqueId('u');
  return { reference: `${id}@crm`, email: `${id}@example.com`, username: id, lastName: 'Muster', ...over };
}

async function createUser(p: Partner, over: object = {}) {
  const body = newUser(over);
  const res = await p.call('POST', '/user', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().user;
}

describe('C1 POST /crms/{crmId}/user', () => {
  it('a new user is 201 with api-info and user (reference, email, username, names, phone, mobile)', async () => {
    const p = await newPartner(t);
    const body = newUser({ firstName: 'Erika', phone: '+49 30 123', mobile: '+49 170 123' });
    const res = await p.call('POST', '/user', body);
    const { user } = expectEnvelope(res, 201, 'user');
    for (const field of USER_FIELDS) expect(user[field], field).toBe(body[field as keyof typeof body]);
  });

  it('optional user fields that were not given are null', async () => {
    const p = await newPartner(t);
    const user = await createUser(p);
    expect(user).toMatchObject({ firstName: null, phone: null, mobile: null });
  });

  it('reference, email, username and lastName are required: missing, null or empty is 400', async () => {
    const p = await newPartner(t);
    for (const field of ['reference', 'email', 'username', 'lastName']) {
      for (const value of [undefined, null, '']) {
        const res = await p.call('POST', '/user', { ...newUser(), [field]: value });
        expect(expectError(res, 400, 'VALIDATION').message).toContain(`body.${field}`);
      }
    }
  });

  it('username must not contain slash, question mark, colon, ampersand, hash or backslash', async () => {
    const p = await newPartner(t);
    for (const c of ['/', '?', ':', '&', '#', '\\']) {
      expectError(await p.call('POST', '/user', newUser({ username: `a${c}b` })), 400, 'VALIDATION');
    }
    expect((await p.call('POST', '/user', newUser({ username: 'a.b-c_d+e' }))).statusCode).toBe(201);
  });

  it('rule 1: a known reference returns the existing user (200), updating phone, mobile and the names', async () => {
    const p = await newPartner(t);
    const user = await createUser(p, { firstName: 'A', phone: '1', mobile: '2' });
    const res = await p.call('POST', '/user', {
      reference: user.reference,
      email: user.email,
      username: user.username,
      lastName: 'New',
      firstName: 'B',
      phone: '3',
      mobile: '4',
    });
    expect(expectEnvelope(res, 200, 'user').user).toMatchObject({
      reference: user.reference,
      lastName: 'New',
      firstName: 'B',
      phone: '3',
      mobile: '4',
    });
    const read = await p.call('GET', `/user/${enc(user.reference)}`);
    expect(read.json().user).toMatchObject({ lastName: 'New', firstName: 'B', phone: '3', mobile: '4' });
  });

  it('rule 2: an email known with another reference makes a new user with a numbered plus-suffix email', async () => {
    const p = await newPartner(t);
    const first = await createUser(p);
    const res = await p.call('POST', '/user', newUser({ email: first.email }));
    const { user } = expectEnvelope(res, 201, 'user');
    const [local, domain] = first.email.split('@');
    expect(user.email).toBe(`${local}+1@${domain}`);
    expect(user.reference).not.toBe(first.reference);
  });

  it('rule 3: an email known without a reference (a consumer who booked) is used, the reference attached', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{}]);
    const [slot] = flatten(await upcoming(t, b.resource.reference));
    const who = consumer();
    const booked = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who));
    expect(booked.statusCode, booked.body).toBe(201);
    const res = await b.p.call('POST', '/user', newUser({ email: who.email, lastName: 'Muster' }));
    expect(res.statusCode).toBeLessThan(300);
    expect(res.json().user.email).toBe(who.email);
  });

  it('rule 4: the cookie PLAY_LANG sets the language of a newly created user', async () => {
    const p = await newPartner(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `/crms/${p.crmId}/user`,
      headers: { 'x-service-client-id': p.key, cookie: 'PLAY_LANG=en' },
      payload: newUser(),
    });
    expect(expectEnvelope(res, 201, 'user').user.language).toBe('en');
  });

  it("rule 5: a username taken by another user is 409 'User with given username already exists.'", async () => {
    const p = await newPartner(t);
    const first = await createUser(p);
    const res = await p.call('POST', '/user', newUser({ username: first.username }));
    expect(expectError(res, 409).message).toBe('User with given username already exists.');
  });
});

describe('C2 GET /crms/{crmId}/user/{reference}', () => {
  it('200 with api-info and user; the reference URL-encoded', async () => {
    const p = await newPartner(t);
    const user = await createUser(p, { reference: `${uniqueId('we/ird')} x@crm` });
    const res = await p.call('GET', `/user/${enc(user.reference)}`);
    expect(expectEnvelope(res, 200, 'user').user).toMatchObject({ reference: user.reference, email: user.email });
  });

  it('404 if unknown', async () => {
    const p = await newPartner(t);
    expectError(await p.call('GET', '/user/nobody%40crm'), 404, 'NOT_FOUND');
  });

  it("PUT changes the given fields only (200); another user's email is 409 'User with given email ...'", async () => {
    const p = await newPartner(t);
    const a = await createUser(p, { firstName: 'Anna', phone: '1' });
    const b = await createUser(p);
    const res = await p.call('PUT', `/user/${enc(a.reference)}`, { lastName: 'Changed' });
    expect(expectEnvelope(res, 200, 'user').user).toMatchObject({
      lastName: 'Changed',
      firstName: 'Anna',
      phone: '1',
      email: a.email,
      username: a.username,
    });
    expect(expectError(await p.call('PUT', `/user/${enc(a.reference)}`, { email: b.email }), 409).message).toBe(
      'User with given email already exists.',
    );
    expectError(await p.call('PUT', '/user/nobody%40crm', { lastName: 'X' }), 404, 'NOT_FOUND');
  });
});

describe('C3 POST /crms/{crmId}/account and C4 GET', () => {
  const account = (owner: string, over: object = {}) => ({
    accountReference: `${uniqueId('acc')}@crm`,
    ownerReference: owner,
    branch: 'real-estate',
    ...over,
  });

  it('an unknown accountReference creates the account: 201 with api-info and account', async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    const body = account(owner.reference, {
      invoiceAddress: { city: 'Berlin', countryCode: 'DE', street: 'Hauptstr.', number: '1', zip: '10115' },
      invoiceContactName: 'Anna',
      invoiceCompanyName: 'Acme',
      invoiceTaxId: 'DE1',
      email: 'billing@example.com',
    });
    const { account: created } = expectEnvelope(await p.call('POST', '/account', body), 201, 'account');
    expect(created).toMatchObject(body);
  });

  it('a known accountReference returns the existing account with 200 and does not overwrite its fields', async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    const body = account(owner.reference, { invoiceCompanyName: 'Acme' });
    await p.call('POST', '/account', body);
    const again = await p.call('POST', '/account', { ...body, branch: 'misc', invoiceCompanyName: 'Other' });
    expect(expectEnvelope(again, 200, 'account').account).toMatchObject({
      branch: 'real-estate',
      invoiceCompanyName: 'Acme',
    });
  });

  it('every branch value is accepted: real-estate, facilities, handyman, sports-and-leisure, misc', async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    for (const branch of ['real-estate', 'facilities', 'handyman', 'sports-and-leisure', 'misc']) {
      expect((await p.call('POST', '/account', account(owner.reference, { branch }))).statusCode).toBe(201);
    }
  });

  it('400 when ownerReference, accountReference or branch is missing or empty', async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    for (const field of ['ownerReference', 'accountReference', 'branch']) {
      for (const value of [undefined, '']) {
        expect(
          expectError(await p.call('POST', '/account', account(owner.reference, { [field]: value })), 400, 'VALIDATION')
            .message,
        ).toContain(`body.${field}`);
      }
    }
  });

  it("404 'no user found for ownerReference' when the owner user does not exist", async () => {
    const p = await newPartner(t);
    expect(expectError(await p.call('POST', '/account', account('ghost@crm')), 404).message).toBe(
      'no user found for ownerReference',
    );
  });

  it("404 with a message beginning 'Unable to find specified branch. Was ...' for an invalid branch", async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    expect(
      expectError(await p.call('POST', '/account', account(owner.reference, { branch: 'banking' })), 404).message,
    ).toMatch(/^Unable to find specified branch\. Was /);
  });

  it("404 with a message beginning 'Unable to parse account reference. Was ...' for a bad reference", async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    expect(
      expectError(await p.call('POST', '/account', account(owner.reference, { accountReference: 'no-platform' })), 404)
        .message,
    ).toMatch(/^Unable to parse account reference\. Was /);
  });

  it('an invoice address needs city, countryCode, street, number and zip', async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    const full = { city: 'Berlin', countryCode: 'DE', street: 'Hauptstr.', number: '1', zip: '10115' };
    for (const field of Object.keys(full)) {
      const { [field as keyof typeof full]: _dropped, ...address } = full;
      const res = await p.call('POST', '/account', account(owner.reference, { invoiceAddress: address }));
      expect(expectError(res, 400, 'VALIDATION').message).toContain(`body.invoiceAddress.${field}`);
    }
  });

  it('C4: 200 with api-info and account; 404 if unknown; PUT changes the given fields only', async () => {
    const p = await newPartner(t);
    const owner = await createUser(p);
    const body = account(owner.reference, { invoiceCompanyName: 'Acme' });
    await p.call('POST', '/account', body);
    const read = await p.call('GET', `/account/${enc(body.accountReference)}`);
    expect(expectEnvelope(read, 200, 'account').account).toMatchObject(body);
    expectError(await p.call('GET', '/account/nothing%40crm'), 404, 'NOT_FOUND');
    const put = await p.call('PUT', `/account/${enc(body.accountReference)}`, { invoiceTaxId: 'DE9' });
    expect(expectEnvelope(put, 200, 'account').account).toMatchObject({ ...body, invoiceTaxId: 'DE9' });
  });
});

describe('C5 POST /crms/{crmId}/provider, C6 GET, C7 staff', () => {
  async function providerBody(p: Partner, over: object = {}) {
    const owner = await createUser(p);
    const accountReference = `${uniqueId('acc')}@crm`;
    await p.call('POST', '/account', { accountReference, ownerReference: owner.reference, branch: 'misc' });
    return {
      reference: `${uniqueId('prov')}@crm`,
      ownerReference: owner.reference,
      accountReference,
      name: 'Acme',
      ...over,
    };
  }

  it('201 with api-info and provider (uuid, reference, name, email, mobile, phone, impressum, branches)', async () => {
    const p = await newPartner(t);
    const body = await providerBody(p, {
      email: 'p@example.com',
      mobile: '+49 170 1',
      phone: '+49 30 1',
      impressum: 'Imprint',
      branch: 'handyman',
      subbranch: 'plumbing',
    });
    const { provider } = expectEnvelope(await p.call('POST', '/provider', body), 201, 'provider');
    expect(typeof provider.uuid).toBe('string');
    for (const field of ['reference', 'name', 'email', 'mobile', 'phone', 'impressum', 'branch', 'subbranch']) {
      expect(provider[field], field).toBe(body[field as keyof typeof body]);
    }
  });

  it('reference, ownerReference, accountReference and name are required (400)', async () => {
    const p = await newPartner(t);
    const body = await providerBody(p);
    for (const field of ['reference', 'ownerReference', 'accountReference', 'name']) {
      expect(
        expectError(await p.call('POST', '/provider', { ...body, [field]: undefined }), 400, 'VALIDATION').message,
      ).toContain(`body.${field}`);
      expectError(await p.call('POST', '/provider', { ...body, [field]: '' }), 400, 'VALIDATION');
    }
  });

  it('an unknown owner user or account is 404', async () => {
    const p = await newPartner(t);
    const body = await providerBody(p);
    expectError(await p.call('POST', '/provider', { ...body, ownerReference: 'ghost@crm' }), 404, 'NOT_FOUND');
    expectError(await p.call('POST', '/provider', { ...body, accountReference: 'ghost@crm' }), 404, 'NOT_FOUND');
  });

  it('C6: provider data as C5; 404 if unknown', async () => {
    const p = await newPartner(t);
    const body = await providerBody(p);
    const created = (await p.call('POST', '/provider', body)).json().provider;
    const read = await p.call('GET', `/provider/${enc(body.reference)}`);
    expect(expectEnvelope(read, 200, 'provider').provider).toEqual(created);
    expectError(await p.call('GET', '/provider/nothing%40crm'), 404, 'NOT_FOUND');
  });

  it('C6 PUT changes the given provider fields only (200 with the provider)', async () => {
    const p = await newPartner(t);
    const f = await setupProvider(p);
    const before = (await p.call('GET', `/provider/${enc(f.providerRef)}`)).json().provider;
    const res = await p.call('PUT', `/provider/${enc(f.providerRef)}`, { impressum: 'New imprint' });
    expect(expectEnvelope(res, 200, 'provider').provider).toEqual({ ...before, impressum: 'New imprint' });
  });

  it('C7: 200 with a bare array of staff users (reference, email, username, names, phone, mobile)', async () => {
    const p = await newPartner(t);
    const f = await setupProvider(p);
    const staff = expectBareArray(await p.call('GET', `/provider/${enc(f.providerRef)}/staff`));
    expect(staff.map((s) => s.reference)).toEqual([f.ownerRef]);
    for (const field of USER_FIELDS) expect(staff[0], field).toHaveProperty(field);
    expect(staff[0].email).toBe(f.ownerEmail);
  });

  it('staff: POST {userReference} adds (201, then 200 as already staff), DELETE removes (204)', async () => {
    const p = await newPartner(t);
    const f = await setupProvider(p);
    const user = await createUser(p);
    const path = `/provider/${enc(f.providerRef)}/staff`;
    expect(
      expectEnvelope(await p.call('POST', path, { userReference: user.reference }), 201, 'staff').staff.reference,
    ).toBe(user.reference);
    expectEnvelope(await p.call('POST', path, { userReference: user.reference }), 200, 'staff');
    expect(expectBareArray(await p.call('GET', path)).map((s) => s.reference)).toEqual([f.ownerRef, user.reference]);
    expectNoContent(await p.call('DELETE', `${path}/${enc(user.reference)}`));
    expect(expectBareArray(await p.call('GET', path)).map((s) => s.reference)).toEqual([f.ownerRef]);
    expectError(await p.call('POST', path, { userReference: 'ghost@crm' }), 404, 'NOT_FOUND');
  });
});
