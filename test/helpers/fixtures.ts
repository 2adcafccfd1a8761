import { expect } from 'vitest';
import type { Partner } from './app.js';
import { uniqueId } from './app.js';

export interface ProviderFixture {
  ownerRef: string;
  ownerEmail: string;
  accountRef: string;
  providerRef: string;
  providerUuid: string;
}

/** User, account and provider through the API, as a partner sets them up (C1, C3, C5). */
export async function setupProvider(
  p: Partner,
  overrides: { timeZone?: string; providerEmail?: string } = {},
): Promise<ProviderFixture> {
  const id = uniqueId('u');
  const ownerRef = `${id}@crm`;
  const ownerEmail = `${id}@example.com`;
  const user = await p.call('POST', '/user', {
    reference: ownerRef,
    email: ownerEmail,
    username: id,
    lastName: 'Owner',
    firstName: 'Olga',
  });
  expect(user.statusCode, user.body).toBe(201);
  const accountRef = `${uniqueId('acc')}@crm`;
  const account = await p.call('POST', '/account', {
    accountReference: accountRef,
    ownerReference: ownerRef,
    branch: 'real-estate',
  });
  expect(account.statusCode, account.body).toBe(201);
  const providerRef = `${uniqueId('prov')}@crm`;
  const provider = await p.call('POST', '/provider', {
    reference: providerRef,
    ownerReference: ownerRef,
    accountReference: accountRef,
    name: 'Acme Estates',
    email: overrides.providerEmail ?? `${uniqueId('prov')}@provider.example`,
    ...(overrides.timeZone ? { timeZone: overrides.timeZone } : {}),
  });
  expect(provider.statusCode, provider.body).toBe(201);
  return { ownerRef, ownerEmail, accountRef, providerRef, providerUuid: provider.json().provider.uuid };
}
