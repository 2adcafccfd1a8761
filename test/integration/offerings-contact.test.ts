import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';
import { createResource } from '../helpers/offeringsFixtures.js';
import { loadResourceContact } from '../../src/offerings/contact.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function setup() {
  const p = await newPartner(t);
  const { providerRef } = await setupProvider(p, { providerEmail: 'office@acme.example' });
  const id = uniqueId('u');
  const userRef = `${id}@crm`;
  await p.call('POST', '/user', {
    reference: userRef,
    email: `${id}@user.example`,
    username: id,
    firstName: 'Anna',
    lastName: 'Agent',
    mobile: '+49170',
  });
  return { p, providerRef, userRef, userEmail: `${id}@user.example` };
}

describe('who is the contact of a resource (stored data through loadResourceContact)', () => {
  it('is the provider when the resource has no contact', async () => {
    const { p, providerRef } = await setup();
    const r = await createResource(p, providerRef);
    expect(await loadResourceContact(t.db, r.uuid)).toMatchObject({
      source: 'provider',
      name: 'Acme Estates',
      email: 'office@acme.example',
    });
  });

  it('is the contact user when it has no general profile, then its general profile once B8 creates one', async () => {
    const { p, providerRef, userRef, userEmail } = await setup();
    const r = await createResource(p, providerRef, { contact: userRef });
    expect(await loadResourceContact(t.db, r.uuid)).toMatchObject({
      source: 'user',
      name: 'Anna Agent',
      email: userEmail,
      mobile: '+49170',
    });
    await p.call('PUT', `/user/${userRef}/generalContactProfile`, {
      name: 'Anna (public)',
      contactChannels: [{ type: 'email', value: 'public@anna.example' }],
    });
    expect(await loadResourceContact(t.db, r.uuid)).toMatchObject({
      source: 'generalProfile',
      name: 'Anna (public)',
      email: 'public@anna.example',
    });
    // B8 without the email channel removes it: the user's own email is used again
    await p.call('PUT', `/user/${userRef}/generalContactProfile`, { name: 'Anna (public)', contactChannels: [] });
    expect((await loadResourceContact(t.db, r.uuid))?.email).toBe(userEmail);
  });

  it('is the resource contact profile when one is assigned, following its updates', async () => {
    const { p, providerRef, userRef } = await setup();
    await p.call('PUT', `/user/${userRef}/generalContactProfile`, { name: 'General', contactChannels: [] });
    const profile = {
      reference: 'prof@crm',
      userReference: userRef,
      providerReference: providerRef,
      name: 'Anna for Acme',
      contactChannels: [{ type: 'email', value: 'anna@acme.example' }],
    };
    await p.call('POST', `/provider/${providerRef}/contactProfile`, profile);
    const r = await createResource(p, providerRef, { contact: userRef, contactProfileReference: 'prof@crm' });
    expect(await loadResourceContact(t.db, r.uuid)).toMatchObject({
      source: 'profile',
      name: 'Anna for Acme',
      email: 'anna@acme.example',
    });
    await p.call('POST', `/provider/${providerRef}/contactProfile`, { ...profile, name: 'Anna A.' });
    expect((await loadResourceContact(t.db, r.uuid))?.name).toBe('Anna A.');
  });
});
