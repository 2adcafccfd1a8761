import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { newPartner, uniqueId, type Partner, type TestApp } from './app.js';
import { setupProvider, type ProviderFixture } from './fixtures.js';
import { createProduct, createResource } from './offeringsFixtures.js';

/** A provider with one product and one resource offering it, set up through the API (C, B1, B3). */
export interface Booking {
  p: Partner;
  provider: ProviderFixture;
  product: { uuid: string; reference: string; name: string };
  resource: { uuid: string; reference: string; publicName: string };
  /** path prefix /provider/{providerRef} */
  base: string;
}

export async function setupBooking(
  t: TestApp,
  options: { timeZone?: string; product?: object; resource?: object; partner?: Partner } = {},
): Promise<Booking> {
  const p = options.partner ?? (await newPartner(t));
  const provider = await setupProvider(p, { timeZone: options.timeZone });
  const product = await createProduct(p, provider.providerRef, options.product);
  const resource = await createResource(p, provider.providerRef, {
    products: [product.reference],
    ...options.resource,
  });
  return { p, provider, product, resource, base: `/provider/${encodeURIComponent(provider.providerRef)}` };
}

export const timeslot = (b: Booking, over: object = {}) => ({
  resourceReference: b.resource.reference,
  start: '2026-06-02T09:00',
  end: '2026-06-02T11:00',
  raster: 30,
  defaultCapacity: 1,
  defaultAcceptBookings: true,
  state: 'BOOKABLE',
  ...over,
});

/** D1 with the given timeslots (defaults filled in); returns the created timeslots. */
export async function createTimeslots(b: Booking, items: object[]): Promise<{ uuid: string; reference: string }[]> {
  const res = await b.p.call('POST', `${b.base}/timeslots`, { timeslots: items.map((i) => timeslot(b, i)) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().timeslots;
}

type Query = Record<string, string | string[]>;

/** A request of the public flow: no API key. */
export function publicCall(
  t: TestApp,
  method: 'GET' | 'POST' | 'OPTIONS',
  url: string,
  body?: unknown,
  query?: Query,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url,
    headers,
    ...(body === undefined ? {} : { payload: body as object }),
    ...(query ? { query } : {}),
  });
}

const enc = encodeURIComponent;

export function upcoming(t: TestApp, ref: string, query?: Query) {
  return publicCall(t, 'GET', `/resources/${enc(ref)}/upcoming_bookables`, undefined, query);
}

export function reserve(t: TestApp, ref: string, body: object, query?: Query, headers?: Record<string, string>) {
  return publicCall(t, 'POST', `/rest/1/resources/${enc(ref)}/reserve_appointment`, body, query, headers);
}

export function book(t: TestApp, ref: string, body: object, query?: Query, headers?: Record<string, string>) {
  return publicCall(t, 'POST', `/resources/${enc(ref)}/create_appointment_with_consumer`, body, query, headers);
}

export const consumer = (over: object = {}) => {
  const id = uniqueId('c');
  return { email: `${id}@consumer.example`, firstname: 'Erika', lastname: 'Muster', ...over };
};

export interface ListedBookable {
  kind: string;
  appointment_uuid?: string;
  timeslot_uuid: string;
  product_uuid: string | null;
  resource_uuid: string;
  start: string;
  end: string;
  capacity: number;
  capacity_left: number;
}

/** Every bookable of an A1 answer, in order (empty for 204). */
export function flatten(res: LightMyRequestResponse): ListedBookable[] {
  if (res.statusCode === 204) return [];
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as Record<string, unknown>;
  return Object.entries(body).flatMap(([key, value]) => (key === 'public_visible' ? [] : (value as ListedBookable[])));
}

/** The reserve body for a listed bookable. */
export function reserveBodyFor(b: ListedBookable, productUuid: string) {
  return b.kind === 'models.LotAppointment'
    ? { appointment_uuid: b.appointment_uuid, product_uuid: productUuid, from: b.start, to: b.end }
    : { timeslot_uuid: b.timeslot_uuid, product_uuid: productUuid, from: b.start, to: b.end };
}

/** The create body for a listed bookable, optionally completing a reservation. */
export function bookBodyFor(b: ListedBookable, productUuid: string, placeholderId?: string, who: object = consumer()) {
  return {
    start: b.start,
    end: b.end,
    timeslot_uuid: b.appointment_uuid ?? b.timeslot_uuid,
    product_uuid: productUuid,
    ...(placeholderId ? { placeholder_id: placeholderId } : {}),
    ...who,
  };
}
