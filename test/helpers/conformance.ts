import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** The documented error body, exactly: `{"api-info":{"version":"1"},"errors":[{"errorCode","message"}]}`. */
export function expectError(
  res: LightMyRequestResponse,
  status: number,
  errorCode?: string,
): { errorCode: string; message: string } {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['api-info', 'errors']);
  expect(body['api-info']).toEqual({ version: '1' });
  expect(Array.isArray(body.errors) && body.errors.length > 0).toBe(true);
  for (const e of body.errors) {
    expect(Object.keys(e).sort()).toEqual(['errorCode', 'message']);
    expect(typeof e.errorCode).toBe('string');
    expect(typeof e.message).toBe('string');
    expect(e.message.length).toBeGreaterThan(0);
  }
  if (errorCode !== undefined) expect(body.errors[0].errorCode).toBe(errorCode);
  return body.errors[0];
}

/** An enveloped answer: exactly api-info plus the named payload members. Returns the body. */
export function expectEnvelope(res: LightMyRequestResponse, status: number, ...members: string[]) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['api-info', ...members].sort());
  expect(body['api-info']).toEqual({ version: '1' });
  return body;
}

/** A bare JSON array (no api-info). */
export function expectBareArray(res: LightMyRequestResponse, status = 200): Record<string, unknown>[] {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(Array.isArray(body)).toBe(true);
  return body;
}

/** A bare JSON object (no api-info). */
export function expectBareObject(res: LightMyRequestResponse, status: number): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(Array.isArray(body)).toBe(false);
  expect(body).not.toHaveProperty('api-info');
  return body;
}

/** An answer without a body (204). */
export function expectNoContent(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(204);
  expect(res.body).toBe('');
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One provider-scoped operation with a well-formed request and one that fails validation. */
export interface ProviderRoute {
  name: string;
  method: Method;
  /** path below /crms/{crmId}, given the (URL-encoded) provider reference */
  path: (provider: string) => string;
  body?: unknown;
  query?: Record<string, string>;
  invalid?: { body?: unknown; query?: Record<string, string>; field: string };
}

const ts = {
  resourceReference: 'r@crm',
  start: '2026-07-01T09:00',
  end: '2026-07-01T12:00',
  raster: 30,
  defaultCapacity: 1,
  defaultAcceptBookings: true,
  state: 'BOOKABLE',
};
const appointment = {
  reference: 'a@crm',
  start: '2026-07-01T10:00',
  end: '2026-07-01T11:00',
  resourceReference: 'r@crm',
  productReference: 'p@crm',
};

/** Every operation whose path names a provider (B, C6/C7, staff, D), each with a valid and an invalid request. */
export const PROVIDER_ROUTES: ProviderRoute[] = [
  { name: 'C6 read provider', method: 'GET', path: (p) => `/provider/${p}` },
  {
    name: 'C6 update provider',
    method: 'PUT',
    path: (p) => `/provider/${p}`,
    body: { name: 'N' },
    invalid: { body: { name: '' }, field: 'body.name' },
  },
  { name: 'C7 list staff', method: 'GET', path: (p) => `/provider/${p}/staff` },
  {
    name: 'add staff',
    method: 'POST',
    path: (p) => `/provider/${p}/staff`,
    body: { userReference: 'u@crm' },
    invalid: { body: {}, field: 'body.userReference' },
  },
  { name: 'remove staff', method: 'DELETE', path: (p) => `/provider/${p}/staff/u%40crm` },
  {
    name: 'B1 create product',
    method: 'POST',
    path: (p) => `/provider/${p}/products`,
    body: { reference: 'p@crm', name: 'P' },
    invalid: { body: { name: 'P' }, field: 'body.reference' },
  },
  { name: 'B2 list products', method: 'GET', path: (p) => `/provider/${p}/products` },
  {
    name: 'update product',
    method: 'POST',
    path: (p) => `/provider/${p}/products/p%40crm`,
    body: { name: 'P' },
    invalid: { body: { minDuration: -1 }, field: 'body.minDuration' },
  },
  {
    name: 'B3 create resource',
    method: 'POST',
    path: (p) => `/provider/${p}/resources`,
    body: { reference: 'r@crm', publicName: 'R', internalName: 'R' },
    invalid: { body: { reference: 'r@crm', publicName: 'R' }, field: 'body.internalName' },
  },
  {
    name: 'B4 update resource',
    method: 'POST',
    path: (p) => `/provider/${p}/resources/r%40crm`,
    body: { publicName: 'R' },
    invalid: { body: { archived: 'yes' }, field: 'body.archived' },
  },
  { name: 'B5 list resources', method: 'GET', path: (p) => `/provider/${p}/resources` },
  {
    name: 'B6 delete resource',
    method: 'DELETE',
    path: (p) => `/provider/${p}/resources/r%40crm`,
    invalid: { query: { ignoreFutureAppointments: 'maybe' }, field: 'query.ignoreFutureAppointments' },
  },
  { name: 'B9 read contact profile', method: 'GET', path: (p) => `/provider/${p}/contactProfile/cp%40crm` },
  {
    name: 'B10 create contact profile',
    method: 'POST',
    path: (p) => `/provider/${p}/contactProfile`,
    body: {
      reference: 'cp@crm',
      userReference: 'u@crm',
      providerReference: 'ghost@crm',
      name: 'N',
      contactChannels: [],
    },
    invalid: {
      body: { reference: 'cp@crm', userReference: 'u@crm', providerReference: 'ghost@crm', contactChannels: [] },
      field: 'body.name',
    },
  },
  {
    name: 'D1 create timeslots',
    method: 'POST',
    path: (p) => `/provider/${p}/timeslots`,
    body: { timeslots: [ts] },
    invalid: { body: { timeslots: [{ ...ts, state: 'OPEN' }] }, field: 'body.timeslots.0.state' },
  },
  {
    name: 'D2 list timeslots',
    method: 'GET',
    path: (p) => `/provider/${p}/resource/r%40crm/timeslots`,
    query: { from: '2026-07-01T00:00', to: '2026-07-02T00:00' },
    invalid: { query: { from: '2026-07-01T00:00' }, field: 'query.to' },
  },
  {
    name: 'D3 update timeslot',
    method: 'PUT',
    path: (p) => `/provider/${p}/timeslots/t%40crm`,
    body: { raster: 15 },
    invalid: { body: { raster: '15' }, field: 'body.raster' },
  },
  { name: 'D4 delete timeslot', method: 'DELETE', path: (p) => `/provider/${p}/timeslots/t%40crm` },
  {
    name: 'D5 list appointments',
    method: 'GET',
    path: (p) => `/provider/${p}/appointments`,
    invalid: { query: { includeArchived: 'maybe' }, field: 'query.includeArchived' },
  },
  {
    name: 'D6 create appointment',
    method: 'POST',
    path: (p) => `/provider/${p}/appointments`,
    body: appointment,
    invalid: { body: { ...appointment, resourceReference: undefined }, field: 'body.resourceReference' },
  },
  {
    name: 'D7 delete appointments without notification',
    method: 'DELETE',
    path: (p) => `/provider/${p}/appointments/withoutNotification`,
    body: { appointmentReference: 'a@crm' },
    invalid: { body: { appointmentReference: 7 }, field: 'body.appointmentReference' },
  },
  {
    name: 'D8 cancel appointments',
    method: 'DELETE',
    path: (p) => `/provider/${p}/appointments`,
    body: { appointmentReference: 'a@crm' },
    invalid: { body: { appointmentReference: 'a@crm' }, query: { message: 'x'.repeat(1025) }, field: 'query.message' },
  },
  {
    name: 'D9 add participation',
    method: 'POST',
    path: (p) => `/provider/${p}/participations`,
    body: { reference: 'pa@crm', appointmentReference: 'a@crm', customerReference: 'c@crm', state: 'BOOKED' },
    invalid: {
      body: { reference: 'pa@crm', appointmentReference: 'a@crm', customerReference: 'c@crm', state: 'CONFIRMED' },
      field: 'body.state',
    },
  },
  {
    name: 'D10 update participation',
    method: 'POST',
    path: (p) => `/provider/${p}/participations/pa%40crm`,
    body: { state: 'CANCELED' },
    invalid: { body: {}, field: 'body.state' },
  },
  { name: 'D11 read customer', method: 'GET', path: (p) => `/provider/${p}/customers/c%40crm` },
  {
    name: 'D12 create customer',
    method: 'POST',
    path: (p) => `/provider/${p}/customers`,
    body: { customerReference: 'c@crm', providerReference: 'ghost@crm', userName: 'U' },
    invalid: {
      body: { customerReference: 'c@crm', providerReference: 'ghost@crm', userName: 'U', note: 'x'.repeat(1024) },
      field: 'body.note',
    },
  },
  {
    name: 'D13 update customer',
    method: 'PUT',
    path: (p) => `/provider/${p}/customers/c%40crm`,
    body: { userName: 'U' },
    invalid: { body: { email: 'not-an-email' }, field: 'body.email' },
  },
  {
    name: 'D14 delete customer',
    method: 'DELETE',
    path: (p) => `/provider/${p}/customers/c%40crm`,
    invalid: { query: { ignoreFutureAppointments: 'maybe' }, field: 'query.ignoreFutureAppointments' },
  },
];
