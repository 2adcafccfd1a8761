import { expect } from 'vitest';
import { newPartner, uniqueId, type Partner, type TestApp } from './app.js';
import { setupProvider, type ProviderFixture } from './fixtures.js';
import { createProduct, createResource } from './offeringsFixtures.js';

/** A partner with a provider, one product and one resource offering it: the ground of every scheduling test. */
export interface Scheduling {
  p: Partner;
  provider: ProviderFixture;
  productRef: string;
  resourceRef: string;
  /** path prefix /provider/{providerRef} */
  base: string;
}

export async function setupScheduling(
  t: TestApp,
  options: { timeZone?: string; resource?: object } = {},
): Promise<Scheduling> {
  const p = await newPartner(t);
  const provider = await setupProvider(p, { timeZone: options.timeZone });
  const product = await createProduct(p, provider.providerRef);
  const resource = await createResource(p, provider.providerRef, {
    products: [product.reference],
    ...options.resource,
  });
  return {
    p,
    provider,
    productRef: product.reference,
    resourceRef: resource.reference,
    base: `/provider/${encodeURIComponent(provider.providerRef)}`,
  };
}

/** D6 single appointment, 201 expected; returns the appointment. */
export async function createAppointment(s: Scheduling, overrides: object = {}, query?: Record<string, string>) {
  const res = await s.p.call(
    'POST',
    `${s.base}/appointments`,
    {
      reference: `${uniqueId('apt')}@crm`,
      start: '2026-07-01T10:00',
      end: '2026-07-01T11:00',
      resourceReference: s.resourceRef,
      productReference: s.productRef,
      capacity: 3,
      acceptBookings: true,
      ...overrides,
    },
    query,
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().appointments[0];
}

/** D12, 201 expected; returns the customer. */
export async function createCustomer(s: Scheduling, overrides: object = {}) {
  const id = uniqueId('cust');
  const res = await s.p.call('POST', `${s.base}/customers`, {
    customerReference: `${id}@crm`,
    providerReference: s.provider.providerRef,
    userName: 'Erika Muster',
    email: `${id}@example.com`,
    ...overrides,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().customer;
}

/** D9 with a fresh reference; returns the raw response. */
export function participate(
  s: Scheduling,
  body: {
    appointmentReference: string;
    customerReference: string;
    state?: string;
    reference?: string;
    message?: string;
  },
  query?: Record<string, string>,
) {
  return s.p.call(
    'POST',
    `${s.base}/participations`,
    { reference: `${uniqueId('part')}@crm`, state: 'BOOKED', ...body },
    query,
  );
}

export interface OutboxRow {
  template: string;
  recipient: string;
  locale: string;
  payload: {
    message: string | null;
    appointment: { reference: string; start: string };
    participation: { reference: string; state: string };
  };
}

/** The partner's outbox rows in the order they were written. */
export function outboxOf(t: TestApp, crmId: string): Promise<OutboxRow[]> {
  return t.db.query<OutboxRow>(
    `SELECT template, recipient, locale, payload FROM outbox WHERE crm_id = $1
       ORDER BY created_at, recipient, template`,
    [crmId],
  );
}
