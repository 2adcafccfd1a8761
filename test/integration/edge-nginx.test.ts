/**
 * The rush at the edge (issue 37): the shipped recipe, deploy/nginx.conf, on Debian's nginx in front
 * of the service listening on a real port. A1 and the feeds come from nginx's cache as the service's
 * Cache-Control allows (1 s, collapsed: a burst reaches the service once), the change a booking
 * makes shows once that second is over, the bookings and everything else pass straight through,
 * and the encodings and the CORS origins never share an entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, encodingOf, type Send } from '../../bench/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';
import { currentBackend } from '../helpers/db.js';
import { skipWithoutNginx, startEdge, type Edge } from '../helpers/nginx.js';

const A1_ROUTE = '/resources/:ref/upcoming_bookables';
/** generous: the edge keeps an answer 1-2 s; this only catches one it never lets go */
const CHANGE_CEILING_MS = 15_000;

const skip = skipWithoutNginx();
let t: TestApp;
let edge: Edge;
let viaEdge: Send;
let direct: Send;

beforeAll(async () => {
  if (skip) return;
  t = await startTestApp({ bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000 });
  const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  edge = await startEdge(origin);
  viaEdge = client(edge.url, 60);
  direct = client(origin, 4);
}, 120_000);
afterAll(async () => {
  await edge?.close();
  await t?.close();
});

/** Requests the service answered on a route so far (its /metrics, every status). */
async function served(route: string, method = 'GET'): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const labels = `method="${method}",route="${route.replace(/[/:]/g, '\\$&')}",status="\\d+"`;
  const line = new RegExp(`^http_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, 'gm');
  return [...text.matchAll(line)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** A resource with `slots` half-hour slots of `capacity` places each, and its A1 path. */
async function listing(slots: number, capacity = 3): Promise<{ b: Booking; path: string }> {
  const b = await setupBooking(t);
  const end = `2026-06-02T${String(9 + slots / 2).padStart(2, '0')}:${slots % 2 ? '30' : '00'}`;
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end, defaultCapacity: capacity }]);
  return {
    b,
    path:
      `/resources/${encodeURIComponent(b.resource.reference)}/upcoming_bookables` +
      `?prdRef=${encodeURIComponent(b.product.reference)}`,
  };
}

const places = (body: string) =>
  Object.entries(JSON.parse(body) as Record<string, ListedBookable[]>)
    .filter(([k]) => k !== 'public_visible')
    .flatMap(([, v]) => v)
    .map((i) => i.capacity_left);
const BR = { 'accept-encoding': 'br, gzip' };
/** X-Cache of an answer nginx gave from its copy (a copy past its second is served while it is refreshed) */
const FROM_CACHE = ['HIT', 'STALE', 'UPDATING'];

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + CHANGE_CEILING_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`${what}: not within ${CHANGE_CEILING_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip)(`the service behind deploy/nginx.conf (${currentBackend()})`, () => {
  it('serves A1 with the body, ETag and headers of the service, the second time from its cache', async () => {
    const { path } = await listing(8);
    const origin = await direct('GET', path, BR);
    const first = await viaEdge('GET', path, BR);
    const second = await viaEdge('GET', path, BR);
    for (const r of [first, second]) {
      expect(r.status).toBe(200);
      expect(r.headers.etag).toBe(origin.headers.etag);
      expect(r.headers['content-encoding']).toBe('br');
      expect(r.body).toBe(origin.body);
      expect(r.headers['cache-control']).toBe('public, max-age=0, s-maxage=1');
      expect(r.headers['cdn-cache-control']).toBe('public, max-age=1, stale-while-revalidate=1');
      expect(r.headers.vary).toBe(origin.headers.vary);
    }
    expect(first.headers['x-cache']).toBe('MISS');
    expect(FROM_CACHE).toContain(second.headers['x-cache']);
    // a browser revalidating its copy gets its 304 from the edge
    const again = await viaEdge('GET', path, { ...BR, 'if-none-match': String(origin.headers.etag) });
    expect(again.status).toBe(304);
  });

  it('lets one of 50 concurrent identical A1 requests through to the service', async () => {
    const { path } = await listing(8);
    const before = await served(A1_ROUTE);
    const answers = await Promise.all(Array.from({ length: 50 }, () => viaEdge('GET', path, BR)));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((r) => r.headers.etag)).size).toBe(1);
    // one, or two when the second ticked over between the first answer and the last request
    expect((await served(A1_ROUTE)) - before).toBeLessThanOrEqual(2);
  });

  it('passes every reserve and create through, and shows the booking once the cached second is over', async () => {
    const { b, path } = await listing(2);
    const ref = encodeURIComponent(b.resource.reference);
    expect(places((await viaEdge('GET', path, BR)).body)).toEqual([3, 3]);
    const [slot] = flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));
    const reserves = await served('/rest/1/resources/:ref/reserve_appointment', 'POST');
    const body = reserveBodyFor(slot, b.product.uuid);
    const headers = { 'content-type': 'application/json' };
    // the same request twice: two holds, both made by the service
    const holds = [
      await viaEdge('POST', `/rest/1/resources/${ref}/reserve_appointment`, headers, body),
      await viaEdge('POST', `/rest/1/resources/${ref}/reserve_appointment`, headers, body),
    ];
    expect(holds.map((h) => h.status)).toEqual([201, 201]);
    expect(holds.map((h) => h.headers['x-cache'])).toEqual([undefined, undefined]);
    expect((await served('/rest/1/resources/:ref/reserve_appointment', 'POST')) - reserves).toBe(2);
    const [one, two] = holds.map((h) => JSON.parse(h.body).participation.customer_uuid);
    expect(one).not.toBe(two);
    const created = await viaEdge(
      'POST',
      `/resources/${ref}/create_appointment_with_consumer`,
      headers,
      bookBodyFor(slot, b.product.uuid, one, consumer()),
    );
    expect(created.status, created.body).toBe(201);
    expect(created.headers['x-cache']).toBeUndefined();
    // the edge may show the old listing for its second; then the one the service has
    const shown = await waitFor('the booking at the edge', async () => {
      const r = await viaEdge('GET', path, BR);
      return places(r.body)[0] === 1 ? r : undefined;
    });
    expect(shown.headers.etag).toBe((await direct('GET', path, BR)).headers.etag);
  });

  it('keeps br, gzip and uncompressed answers, and the CORS origins, in entries of their own', async () => {
    const { path } = await listing(8);
    const asked: Record<string, string>[] = [
      { 'accept-encoding': 'br' },
      {},
      { 'accept-encoding': 'gzip, deflate' },
      { 'accept-encoding': 'gzip, deflate, br, zstd' },
      { 'accept-encoding': 'br;q=0, gzip' },
      {},
    ];
    const expected = ['br', 'identity', 'gzip', 'br', 'gzip', 'identity'];
    const answers = [];
    for (const h of asked) answers.push(await viaEdge('GET', path, h));
    expect(answers.map(encodingOf)).toEqual(expected);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    expect(FROM_CACHE).toContain(answers.at(-1)!.headers['x-cache']);
    for (const origin of ['https://shop.example', 'https://other.example']) {
      const r = await viaEdge('GET', path, { ...BR, origin });
      expect(r.headers['access-control-allow-origin']).toBe(origin);
    }
  });

  it('shows a revoked feed as gone once the cached second is over', async () => {
    const { b } = await listing(2);
    const created = await b.p.call('POST', `${b.base}/calendar-feeds`);
    expect(created.statusCode, created.body).toBe(201);
    const { id, url } = created.json().feed;
    const path = new URL(url).pathname;
    const first = await viaEdge('GET', path, BR);
    expect(first.status).toBe(200);
    expect(first.body).toMatch(/^BEGIN:VCALENDAR/);
    expect(FROM_CACHE).toContain((await viaEdge('GET', path, BR)).headers['x-cache']);
    expect((await b.p.call('DELETE', `${b.base}/calendar-feeds/${id}`)).statusCode).toBe(204);
    await waitFor('the revoked feed gone at the edge', async () =>
      (await viaEdge('GET', path, BR)).status === 404 ? true : undefined,
    );
  });

  it('keeps /metrics off the public side', async () => {
    expect((await viaEdge('GET', '/metrics', {})).status).toBe(404);
    expect((await direct('GET', '/metrics', {})).status).toBe(200);
  });
});
