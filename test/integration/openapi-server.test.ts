/**
 * The OpenAPI document and the server, held to each other (docs/api.md, The OpenAPI document):
 *   - every route the server registers is an operation of the document, and every operation a route;
 *   - every status an operation documents is one it can answer: the generic ones (400 for a NUL
 *     character in a parameter it declares or a body that is not JSON, 401 without a key, 403 with
 *     another partner's key, 413 for a body over 1 MiB, 415 for a body that is not JSON) are provoked
 *     here on every operation that documents them and never answered by one that does not; the rest
 *     are listed below with the rule of the domain that gives them, and the document must list
 *     exactly those;
 *   - a known path asked with a method it does not serve answers 405 with Allow, whatever the
 *     request carries (QUERY without Content-Type too), and an unknown path 404;
 *   - a JSON null body is 400 on every operation that takes a JSON body.
 * Answers against the document's schemas: test/helpers/contract.ts checks every answer of every
 * integration test that runs on startTestApp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, type Partner, type TestApp } from '../helpers/app.js';
import { openapiPath } from '../helpers/contract.js';

let t: TestApp;
let partner: Partner;
let other: Partner;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as parsed JSON, walked by path
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  partner = await newPartner(t);
  other = await newPartner(t);
  doc = t.app.swagger();
});
afterAll(() => t.close());

const GENERIC = [400, 401, 403, 413, 415];

/**
 * The statuses besides success and the generic ones, per operation, with where they come from.
 * 404: a reference in the path or body that names nothing; 409/412/422/429: the domain rules named.
 */
const SPECIFIC: Record<string, number[]> = {
  createUser: [409], // username or email taken (partners/users.ts)
  getUser: [404],
  updateUser: [404, 409], // unknown user; username or email taken
  createAccount: [404], // unknown owner or branch
  getAccount: [404],
  updateAccount: [404],
  createProvider: [404], // unknown owner or account
  getProvider: [404],
  updateProvider: [404],
  listStaff: [404],
  addStaff: [404],
  removeStaff: [404, 409], // the provider owner cannot be removed (partners/staff.ts)
  createProduct: [404, 409], // reference exists (offerings/products.ts)
  listProducts: [404],
  updateProduct: [404],
  createResource: [404, 409], // unknown provider or product; the reference is a pool's (pools/pool_reference_guard.sql)
  updateResource: [404],
  listResources: [404],
  deleteResource: [404, 409], // future appointments without ignoreFutureAppointments
  getGeneralContactProfile: [404],
  putGeneralContactProfile: [404],
  getContactProfile: [404],
  upsertContactProfile: [404, 409], // profile of another user (offerings/profiles.ts)
  createTimeslots: [404, 409], // reference exists (scheduling/timeslots.ts)
  listTimeslots: [404],
  updateTimeslot: [404, 409], // onto the start of another timeslot of its availability rule
  deleteTimeslot: [404],
  listAppointments: [404],
  createAppointments: [404, 409], // overlap, archived resource, reference exists, capacity (scheduling/capacity.ts)
  deleteAppointmentsWithoutNotification: [404], // nothing matches
  cancelAppointments: [404],
  addParticipation: [404, 409], // duplicate, full, cancelled appointment, transition (scheduling/participations.ts)
  updateParticipationState: [404, 409], // INVALID_TRANSITION, CAPACITY_EXHAUSTED
  getCustomer: [404], // unknown provider (an unknown customer is 204)
  createCustomer: [404],
  updateCustomer: [404, 409], // renamed onto an existing reference
  deleteCustomer: [404, 409], // future appointments without ignoreFutureAppointments
  createCalendarFeed: [404],
  listCalendarFeeds: [404],
  revokeCalendarFeed: [404],
  getCalendarFeed: [404], // unknown or revoked token; 400: lang longer than 35 characters
  createAvailabilityRule: [404, 409], // unknown provider or resource; reference exists (availability/rules.ts)
  listAvailabilityRules: [404],
  getAvailabilityRule: [404],
  changeAvailabilityRule: [404], // unknown provider, rule or resource
  deleteAvailabilityRule: [404],
  createPool: [404, 409], // unknown provider or member; reference taken by a pool or a resource (pools/pools.ts)
  listPools: [404],
  getPool: [404],
  changePool: [404],
  deletePool: [404],
  createClosure: [404], // unknown provider or resource
  listClosures: [404],
  deleteClosure: [404],
  listBusyTimes: [404],
  createCalendarSubscription: [404, 422], // 422 CALENDAR_UNREADABLE: nothing stored
  listCalendarSubscriptions: [404],
  getCalendarSubscription: [404],
  deleteCalendarSubscription: [404],
  syncCalendarSubscription: [404],
  createWebhook: [],
  listWebhooks: [],
  getWebhook: [404],
  updateWebhook: [404],
  deleteWebhook: [404],
  rotateWebhookSecret: [404],
  sendWebhookTest: [404],
  listWebhookDeliveries: [404],
  retryWebhookDelivery: [404, 409], // only a FAILED delivery (webhooks/subscriptions.ts)
  // the booking flow: 409 TOO_LATE, duplicate, Idempotency-Key in use; 412 slot taken (201) or BOOKING_WINDOW;
  // 422 Idempotency-Key reused; 429 RATE_LIMITED or HOLD_LIMIT
  listUpcomingBookables: [404],
  reserveAppointment: [404, 409, 412, 422, 429],
  createAppointmentWithConsumer: [404, 409, 412, 422, 429],
  rescheduleBooking: [404, 409, 412, 422, 429],
  listActiveProducts: [404],
  getPublicData: [404],
  viewBookingByLink: [404, 409], // forged or unknown token; started or within the cancel notice (the page says so)
  requestMyBookingsLink: [404, 429], // unknown ref; rate limit
  listMyBookings: [404, 429], // forged, expired or erased token; rate limit
  viewMyBookings: [404, 429],
  cancelBookingByLink: [404, 409], // started, or within the cancel notice
  viewDecisionRequest: [404, 409], // decided before, or cancelled by the consumer
  decideRequest: [404, 409], // no longer REQUESTED
  getReadiness: [503], // draining, or the database unreachable
};

interface ParameterSchema {
  type?: string;
  pattern?: string;
  items?: ParameterSchema;
  properties?: Record<string, ParameterSchema>;
}

interface Op {
  method: string;
  path: string;
  operationId: string;
  responses: Record<string, unknown>;
  security?: unknown[];
  parameters?: { name: string; in: string; schema: ParameterSchema }[];
  requestBody?: { content: Record<string, unknown> };
}

function operations(): Op[] {
  return Object.entries(doc.paths as Record<string, Record<string, Omit<Op, 'method' | 'path'>>>).flatMap(
    ([path, item]) => Object.entries(item).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
  );
}

const isPartner = (o: Op) => o.path.startsWith('/crms/');
const statusesOf = (o: Op) =>
  Object.keys(o.responses)
    .filter((s) => /^\d+$/.test(s))
    .map(Number);

/** A concrete URL for the operation: the partner's crmId, a placeholder (`nul`: %00) for every other parameter. */
function urlOf(o: Op, query = '', nul?: string): string {
  const value = (name: string) =>
    name === nul ? '%00' : name === 'crmId' ? partner.crmId : name === 'file' ? 'x.ics' : 'x';
  return `${o.path.replace(/\{([^}]+)\}/g, (_, name: string) => value(name))}${query}`;
}

const parsesBody = (o: Op) => ['POST', 'PUT', 'DELETE', 'OPTIONS'].includes(o.method);

/**
 * A request the operation must refuse with 400 whatever exists: a NUL character in a parameter it
 * declares (not crmId, which the key decides on first), else a body that is not JSON; null when it has neither.
 */
function badRequestOf(o: Op): { url: string; headers?: Record<string, string>; payload?: string } | null {
  const textual = (s: ParameterSchema | undefined) => s?.pattern !== undefined || s?.items?.pattern !== undefined;
  // a query object parameter (style form, explode) stands for its members
  const names = (o.parameters ?? []).flatMap((p) =>
    p.schema.type === 'object'
      ? Object.entries(p.schema.properties ?? {})
          .filter(([, s]) => textual(s))
          .map(([name]) => ({ ...p, name }))
      : textual(p.schema)
        ? [p]
        : [],
  );
  const parameter = names.find((p) => (p.in === 'path' && p.name !== 'crmId') || p.in === 'query');
  if (parameter?.in === 'path') return { url: urlOf(o, '', parameter.name) };
  if (parameter) return { url: urlOf(o, `?${parameter.name}=%00`) };
  return parsesBody(o) ? { url: urlOf(o), headers: { 'content-type': 'application/json' }, payload: '{' } : null;
}

describe('every route is documented and every operation is a route', () => {
  it('the document has an operation for each registered route (HEAD and the /docs pages aside), and no other', () => {
    const registered = new Set(
      t.contract.routes
        .filter((r) => r.method !== 'HEAD' && r.url !== '/docs' && !r.url.startsWith('/docs/'))
        .map((r) => `${r.method} ${openapiPath(r.url)}`),
    );
    const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
    expect([...registered].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((d) => !registered.has(d))).toEqual([]);
  });

  it('each operation has a unique camelCase operationId, and public ones declare security: []', () => {
    const ids = operations().map((o) => o.operationId);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of operations()) expect(o.security, o.operationId).toEqual(isPartner(o) ? [{ apiKey: [] }] : []);
    for (const [name, item] of Object.entries(doc.webhooks as Record<string, { post: Op }>)) {
      expect(item.post.security, name).toEqual([]);
      expect(item.post.operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
    }
    expect(doc.servers).toEqual([{ url: t.config.publicBaseUrl, description: expect.any(String) }]);
  });
});

describe('every documented status is one the operation can answer', () => {
  it('the error statuses documented are exactly the generic ones that apply and the listed ones', () => {
    for (const o of operations()) {
      // 503 (the database away, DESIGN.md §7.13): exactly where something is looked up there, i.e. 404 is documented
      expect(statusesOf(o).includes(503), `${o.operationId} 503`).toBe(
        statusesOf(o).includes(404) || o.operationId === 'getReadiness',
      );
      const errors = statusesOf(o).filter((s) => s >= 400 && (s !== 503 || o.operationId === 'getReadiness'));
      const generic = errors.filter((s) => GENERIC.includes(s));
      expect(errors.filter((s) => !GENERIC.includes(s)).sort(), o.operationId).toEqual(
        [...(SPECIFIC[o.operationId] ?? [])].sort(),
      );
      // 401 and 403 exactly on the partner operations; 413 and 415 exactly where Fastify parses a body (not GET)
      expect(generic.includes(401) && generic.includes(403), `${o.operationId} 401/403`).toBe(isPartner(o));
      expect(generic.includes(413) && generic.includes(415), `${o.operationId} 413/415`).toBe(
        ['POST', 'PUT', 'DELETE', 'OPTIONS'].includes(o.method),
      );
    }
  });

  it('400: a NUL in a declared parameter, or a body not JSON; documented exactly where possible', async () => {
    for (const o of operations()) {
      const bad = badRequestOf(o);
      expect(statusesOf(o).includes(400), `${o.operationId} documents 400`).toBe(bad !== null);
      if (!bad) continue;
      const headers = { 'x-service-client-id': partner.key, accept: 'application/json', ...bad.headers };
      const res = await t.app.inject({ method: o.method as 'GET', url: bad.url, headers, payload: bad.payload });
      expect(res.statusCode, `${o.operationId}: ${res.body}`).toBe(400);
    }
  });

  it('400 for a JSON null body on every operation that takes a JSON body', async () => {
    for (const o of operations().filter((op) => op.requestBody?.content['application/json'])) {
      const res = await t.app.inject({
        method: o.method as 'POST',
        url: urlOf(o),
        headers: { 'x-service-client-id': partner.key, 'content-type': 'application/json', accept: 'application/json' },
        payload: 'null',
      });
      expect(res.statusCode, `${o.operationId}: ${res.body}`).toBe(400);
      expect(res.json().errors[0].message, o.operationId).toMatch(/^body /);
    }
  });

  it('401 without a key and 403 with the key of another partner, on every partner operation', async () => {
    for (const o of operations().filter(isPartner)) {
      const none = await t.app.inject({ method: o.method as 'GET', url: urlOf(o) });
      expect(none.statusCode, o.operationId).toBe(401);
      const foreign = await t.app.inject({
        method: o.method as 'GET',
        url: urlOf(o),
        headers: { 'x-service-client-id': other.key },
      });
      expect(foreign.statusCode, o.operationId).toBe(403);
    }
  });

  it('413 for a body over 1 MiB and 415 for one that is not JSON, exactly where a body is parsed', async () => {
    const big = `"${'x'.repeat(1024 * 1024)}"`;
    for (const o of operations()) {
      const headers = { 'x-service-client-id': partner.key };
      const large = await t.app.inject({
        method: o.method as 'GET',
        url: urlOf(o),
        headers: { ...headers, 'content-type': 'application/json' },
        payload: big,
      });
      const xml = await t.app.inject({
        method: o.method as 'GET',
        url: urlOf(o),
        headers: { ...headers, 'content-type': 'application/xml' },
        payload: '<a/>',
      });
      if (statusesOf(o).includes(413)) {
        expect(large.statusCode, o.operationId).toBe(413);
        expect(xml.statusCode, o.operationId).toBe(415);
      } else {
        expect(large.statusCode, o.operationId).not.toBe(413);
        expect(xml.statusCode, o.operationId).not.toBe(415);
      }
    }
  });
});

describe('405 Method Not Allowed', () => {
  it('a known path with a method it does not serve: 405, Allow and the error body', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/crms/${partner.crmId}/webhooks`,
      headers: { 'x-service-client-id': partner.key },
    });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      errors: [
        {
          errorCode: 'METHOD_NOT_ALLOWED',
          message: `PATCH is not allowed on /crms/${partner.crmId}/webhooks; allowed: GET, HEAD, POST`,
        },
      ],
    });
    const put = await t.app.inject({ method: 'PUT', url: '/resources/x/upcoming_bookables' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('an unknown path stays 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/no/such/path' });
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].errorCode).toBe('NOT_FOUND');
  });

  it('QUERY and other methods no path serves: 405 with Allow on known paths, body or not; else 404', async () => {
    const bodies = [
      {},
      { headers: { 'content-type': 'application/json' }, payload: '{}' },
      { headers: { 'content-type': 'text/plain' }, payload: 'x' },
    ];
    for (const path of new Set(operations().map((o) => urlOf(o)))) {
      const served = new Set(
        operations()
          .filter((o) => urlOf(o) === path)
          .map((o) => o.method),
      );
      for (const method of ['QUERY', 'PATCH', 'PROPFIND'].filter((m) => !served.has(m))) {
        for (const body of bodies) {
          const res = await t.app.inject({ method: method as 'GET', url: path, ...body });
          expect(res.statusCode, `${method} ${path} ${JSON.stringify(body)}`).toBe(405);
          for (const m of served) expect(res.headers.allow, `${method} ${path}`).toContain(m);
        }
      }
    }
    for (const body of bodies) {
      const res = await t.app.inject({ method: 'QUERY' as 'GET', url: '/no/such/path', ...body });
      expect(res.statusCode).toBe(404);
      expect(res.json().errors[0].errorCode).toBe('NOT_FOUND');
    }
  });
});
