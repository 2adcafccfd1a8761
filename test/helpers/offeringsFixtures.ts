import { expect } from 'vitest';
import type { Partner } from './app.js';
import { uniqueId } from './app.js';

/** B1 through the API; returns the product object (uuid, reference, name, ...). */
export async function createProduct(p: Partner, providerRef: string, overrides: object = {}) {
  const res = await p.call('POST', `/provider/${encodeURIComponent(providerRef)}/products`, {
    reference: `${uniqueId('prod')}@crm`,
    name: 'Viewing',
    ...overrides,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().product;
}

/** B3 through the API; returns the bare resource object (uuid, reference, products, channels, ...). */
export async function createResource(p: Partner, providerRef: string, overrides: object = {}) {
  const res = await p.call('POST', `/provider/${encodeURIComponent(providerRef)}/resources`, {
    reference: `${uniqueId('res')}@crm`,
    publicName: 'Flat Main Street 1',
    internalName: 'MS1',
    ...overrides,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
