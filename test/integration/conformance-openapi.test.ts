/**
 * The OpenAPI document covers every operation of groups B, C and D (and the staff and update operations docs/api.md
 * lists) with its request schema, its query parameters and the response shape the spec gives it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as parsed JSON, walked by path
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(() => t.close());

type Shape = 'array' | 'bare' | { envelope: string[] } | 'none';

interface Operation {
  id: string;
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  /** the success statuses the operation answers (docs/api.md, Operations) */
  success: Partial<Record<number, Shape>>;
  /** required members of the request body, when it has one */
  body?: string[];
  query?: string[];
}

const P = '/crms/{crmId}/provider/{providerRef}';
const env = (...members: string[]) => ({ envelope: members });

const OPERATIONS: Operation[] = [
  {
    id: 'C1',
    method: 'post',
    path: '/crms/{crmId}/user',
    success: { 200: env('user'), 201: env('user') },
    body: ['reference', 'email', 'username', 'lastName'],
  },
  { id: 'C2', method: 'get', path: '/crms/{crmId}/user/{reference}', success: { 200: env('user') } },
  { id: 'C2 PUT', method: 'put', path: '/crms/{crmId}/user/{reference}', success: { 200: env('user') }, body: [] },
  {
    id: 'C3',
    method: 'post',
    path: '/crms/{crmId}/account',
    success: { 200: env('account'), 201: env('account') },
    body: ['accountReference', 'ownerReference', 'branch'],
  },
  { id: 'C4', method: 'get', path: '/crms/{crmId}/account/{reference}', success: { 200: env('account') } },
  {
    id: 'C4 PUT',
    method: 'put',
    path: '/crms/{crmId}/account/{reference}',
    success: { 200: env('account') },
    body: [],
  },
  {
    id: 'C5',
    method: 'post',
    path: '/crms/{crmId}/provider',
    success: { 200: env('provider'), 201: env('provider') },
    body: ['reference', 'ownerReference', 'accountReference', 'name'],
  },
  { id: 'C6', method: 'get', path: '/crms/{crmId}/provider/{reference}', success: { 200: env('provider') } },
  {
    id: 'C6 PUT',
    method: 'put',
    path: '/crms/{crmId}/provider/{reference}',
    success: { 200: env('provider') },
    body: [],
  },
  { id: 'C7', method: 'get', path: `${P}/staff`, success: { 200: 'array' } },
  {
    id: 'staff add',
    method: 'post',
    path: `${P}/staff`,
    success: { 200: env('staff'), 201: env('staff') },
    body: ['userReference'],
  },
  { id: 'staff remove', method: 'delete', path: `${P}/staff/{userRef}`, success: { 204: 'none' } },
  { id: 'B1', method: 'post', path: `${P}/products`, success: { 201: env('product') }, body: ['reference', 'name'] },
  { id: 'B2', method: 'get', path: `${P}/products`, success: { 200: 'array' } },
  {
    id: 'product update',
    method: 'post',
    path: `${P}/products/{productRef}`,
    success: { 200: env('product') },
    body: [],
  },
  {
    id: 'B3',
    method: 'post',
    path: `${P}/resources`,
    success: { 201: 'bare' },
    body: ['reference', 'publicName', 'internalName'],
    query: ['onDuplicateRaise'],
  },
  { id: 'B4', method: 'post', path: `${P}/resources/{resourceRef}`, success: { 202: 'bare' }, body: [] },
  { id: 'B5', method: 'get', path: `${P}/resources`, success: { 200: 'array' } },
  {
    id: 'B6',
    method: 'delete',
    path: `${P}/resources/{resourceRef}`,
    success: { 204: 'none' },
    query: ['ignoreFutureAppointments'],
  },
  {
    id: 'B7',
    method: 'get',
    path: '/crms/{crmId}/user/{userRef}/generalContactProfile',
    success: { 200: env('profile') },
  },
  {
    id: 'B8',
    method: 'put',
    path: '/crms/{crmId}/user/{userRef}/generalContactProfile',
    success: { 200: env('profile'), 201: env('profile') },
    body: ['name', 'contactChannels'],
  },
  { id: 'B9', method: 'get', path: `${P}/contactProfile/{profileRef}`, success: { 200: env('profile') } },
  {
    id: 'B10',
    method: 'post',
    path: `${P}/contactProfile`,
    success: { 200: env('profile'), 201: env('profile') },
    body: ['reference', 'userReference', 'providerReference', 'name', 'contactChannels'],
  },
  { id: 'D1', method: 'post', path: `${P}/timeslots`, success: { 201: env('timeslots') }, body: ['timeslots'] },
  {
    id: 'D2',
    method: 'get',
    path: `${P}/resource/{resourceRef}/timeslots`,
    success: { 200: env('timeslots', 'appointments') },
    query: ['from', 'to'],
  },
  { id: 'D3', method: 'put', path: `${P}/timeslots/{timeslotRef}`, success: { 200: env('timeslot') }, body: [] },
  { id: 'D4', method: 'delete', path: `${P}/timeslots/{timeslotRef}`, success: { 204: 'none' } },
  {
    id: 'D5',
    method: 'get',
    path: `${P}/appointments`,
    success: { 200: 'array' },
    query: ['productRef', 'resourceRef', 'includeArchived'],
  },
  {
    id: 'D6',
    method: 'post',
    path: `${P}/appointments`,
    success: { 201: env('appointments', 'busyOverlaps') },
    body: ['resourceReference', 'productReference'],
  },
  {
    id: 'D7',
    method: 'delete',
    path: `${P}/appointments/withoutNotification`,
    success: { 200: env('count') },
    body: [],
  },
  {
    id: 'D8',
    method: 'delete',
    path: `${P}/appointments`,
    success: { 200: env('count') },
    body: [],
    query: ['message'],
  },
  {
    id: 'D9',
    method: 'post',
    path: `${P}/participations`,
    success: { 200: env('participation', 'busyOverlaps'), 201: env('participation', 'busyOverlaps') },
    body: ['reference', 'appointmentReference', 'customerReference', 'state'],
    query: ['ignoreCapacity', 'onDuplicateRaise', 'sendMails'],
  },
  {
    id: 'D10',
    method: 'post',
    path: `${P}/participations/{participationRef}`,
    success: { 200: env('participation') },
    body: ['state'],
    query: ['sendMails'],
  },
  { id: 'D11', method: 'get', path: `${P}/customers/{customerRef}`, success: { 200: env('customer'), 204: 'none' } },
  {
    id: 'D12',
    method: 'post',
    path: `${P}/customers`,
    success: { 200: env('customer'), 201: env('customer') },
    body: ['customerReference', 'providerReference', 'userName'],
  },
  { id: 'D13', method: 'put', path: `${P}/customers/{customerRef}`, success: { 200: env('customer') }, body: [] },
  {
    id: 'D14',
    method: 'delete',
    path: `${P}/customers/{customerRef}`,
    success: { 204: 'none' },
    query: ['ignoreFutureAppointments'],
  },
];

const op = (o: Operation) => doc.paths[o.path]?.[o.method];
const schemaOf = (o: Operation, status: number) =>
  op(o).responses[String(status)]?.content?.['application/json']?.schema;

describe('OpenAPI document', () => {
  it('is OpenAPI 3 and declares the X-SERVICE-CLIENT-ID header key', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-SERVICE-CLIENT-ID',
    });
  });

  it.each(OPERATIONS)('$id $method $path is documented with a tag, a summary and the API key', (o) => {
    expect(op(o), `${o.method} ${o.path}`).toBeDefined();
    expect(op(o).tags?.length).toBeGreaterThan(0);
    expect(op(o).summary).toEqual(expect.any(String));
    expect(op(o).security).toEqual([{ apiKey: [] }]);
    expect(op(o).operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
  });

  it.each(OPERATIONS)('$id documents exactly its success statuses with the spec shape', (o) => {
    const documented = Object.keys(op(o).responses)
      .map(Number)
      .filter((s) => s < 300)
      .sort();
    expect(documented).toEqual(Object.keys(o.success).map(Number).sort());
    for (const [status, shape] of Object.entries(o.success)) {
      const schema = schemaOf(o, Number(status));
      if (shape === undefined || shape === 'none') continue;
      expect(schema, `${o.id} ${status}`).toBeDefined();
      if (shape === 'array') expect(schema.type).toBe('array');
      else if (shape === 'bare') {
        expect(schema.type).toBe('object');
        expect(schema.properties).not.toHaveProperty('api-info');
      } else {
        expect(Object.keys(schema.properties).sort()).toEqual(['api-info', ...shape.envelope].sort());
        expect(schema.required).toEqual(expect.arrayContaining(['api-info', ...shape.envelope]));
      }
    }
  });

  it.each(OPERATIONS.filter((o) => o.body))('$id documents its JSON request body with the required members', (o) => {
    const schema = op(o).requestBody?.content?.['application/json']?.schema;
    expect(schema, o.id).toBeDefined();
    expect(schema.required ?? []).toEqual(expect.arrayContaining(o.body!));
  });

  it.each(OPERATIONS.filter((o) => o.query))('$id documents its query parameters', (o) => {
    const names = (op(o).parameters ?? [])
      .filter((p: { in: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(o.query!));
  });

  it.each(OPERATIONS)('$id documents the error body for 400, 401, 403 and (when it names a record) 404', (o) => {
    // C1 names no other record: it never answers 404
    for (const status of o.id === 'C1' ? [400, 401, 403] : [400, 401, 403, 404]) {
      const schema = schemaOf(o, status);
      expect(schema?.properties, `${o.id} ${status}`).toHaveProperty('errors');
      expect(schema.properties).toHaveProperty('api-info');
    }
  });
});
