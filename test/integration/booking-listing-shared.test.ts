/**
 * A1 under a rush (issue 19): identical requests arriving together share one computation, and
 * none of them is ever answered with a listing older than its own arrival; the answer carries an
 * ETag (If-None-Match gives 304 while it is current) and comes in br or gzip as accepted.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FreshReads } from '../../src/listing/freshReads.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  createTimeslots,
  flatten,
  publicCall,
  setupBooking,
  type Booking,
} from '../helpers/bookingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: 1_000 });
});
afterAll(() => t.close());

const a1 = (b: Booking, headers: Record<string, string> = {}, ref = b.resource.uuid) =>
  publicCall(t, 'GET', `/resources/${ref}/upcoming_bookables`, undefined, undefined, headers);

/** The body as the client gets it once the Content-Encoding is undone. */
function decoded(res: LightMyRequestResponse): string {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(res.rawPayload).toString('utf8');
  expect(encoding).toBeUndefined();
  return res.body;
}

/** booking_listing_answers_total by source, read from /metrics. */
async function answersBySource(): Promise<Record<string, number>> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const out: Record<string, number> = { cache: 0, shared: 0, computed: 0 };
  for (const m of text.matchAll(/^booking_listing_answers_total\{source="(\w+)"\} (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/** A resource with a day of 30-minute slots (a listing of some KiB) and room for group bookings. */
async function busyResource(): Promise<Booking> {
  const b = await setupBooking(t);
  await createTimeslots(b, [{ start: '2026-06-02T08:00', end: '2026-06-02T18:00', defaultCapacity: 5 }]);
  return b;
}

describe('A1 shared by concurrent requests', () => {
  it('computes the listing once for identical requests arriving together, and answers all alike', async () => {
    const b = await busyResource();
    const before = await answersBySource();
    const answers = await Promise.all(Array.from({ length: 12 }, () => a1(b)));
    const after = await answersBySource();
    expect(answers.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    expect(flatten(answers[0])).toHaveLength(20);
    expect(after.computed - before.computed).toBe(1);
  });

  it('shares one computation between references to the same resource (UUID and short form)', async () => {
    const b = await busyResource();
    const before = await answersBySource();
    const [byUuid, byRef] = await Promise.all([a1(b), a1(b, {}, encodeURIComponent(b.resource.reference))]);
    const after = await answersBySource();
    expect(byRef.body).toBe(byUuid.body);
    expect(after.computed - before.computed).toBe(1);
    expect(after.shared + after.cache - before.shared - before.cache).toBe(1);
  });

  it('never answers a request with a listing from before a booking committed ahead of it', async () => {
    const b = await busyResource();
    for (let round = 0; round < 4; round++) {
      const [slot] = flatten(await a1(b));
      const earlier = Array.from({ length: 5 }, () => a1(b)); // may still be computing while the booking commits
      const booked = await book(t, b.resource.uuid, bookBodyFor(slot, b.product.uuid));
      expect(booked.statusCode, booked.body).toBe(201);
      const later = await Promise.all(Array.from({ length: 5 }, () => a1(b)));
      await Promise.all(earlier);
      for (const res of later)
        expect(flatten(res)[0]).toMatchObject({
          start: slot.start,
          kind: 'models.LotAppointment',
          capacity_left: 4 - round,
        });
    }
  });
});

describe('A1 reads while the listing changes', () => {
  /** booking_listing_reads_total, all kinds together, read from /metrics. */
  async function listingReads(): Promise<number> {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    return [...text.matchAll(/^booking_listing_reads_total\{read="\w+"\} (\d+)$/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
  }

  it('waits a moment to gather a burst only for a listing many ask for, never for a single client', async () => {
    const b = await busyResource();
    const slots = flatten(await a1(b));
    const bookSlot = async (i: number) =>
      expect((await book(t, b.resource.uuid, bookBodyFor(slots[i], b.product.uuid))).statusCode).toBe(201);
    const reads = vi.spyOn(FreshReads.prototype, 'read');
    try {
      /** The start delay of the read a lone A1 queues. */
      const delayOfLoneRead = async () => {
        const calls = reads.mock.calls.length;
        expect((await a1(b)).statusCode).toBe(200);
        expect(reads.mock.calls.length).toBe(calls + 1);
        return reads.mock.calls[calls][2];
      };
      await bookSlot(0);
      expect(await delayOfLoneRead()).toBe(0); // the listing changed, but its last read answered one request
      await bookSlot(1);
      const before = await listingReads();
      const burst = await Promise.all(Array.from({ length: 6 }, () => a1(b)));
      expect(burst.map((r) => r.statusCode)).toEqual(Array(6).fill(200));
      expect((await listingReads()) - before).toBe(1); // one read, shared by six, finding the change
      await bookSlot(2);
      expect(await delayOfLoneRead()).toBeGreaterThan(0); // changing and asked for by many: gathers the next burst
      await bookSlot(3);
      expect(await delayOfLoneRead()).toBe(0); // that read answered one request again
    } finally {
      reads.mockRestore();
    }
  });
});

describe('A1 reads on connections of their own', () => {
  it.runIf(process.env.TEST_BACKEND === 'postgres')(
    'answers while every connection of the request pool is taken by a transaction',
    async () => {
      const b = await busyResource();
      const [slot] = flatten(await a1(b));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // as many open transactions as the request pool has connections (test/helpers/db.ts: 20)
      let holding = 0;
      const blockers = Array.from({ length: 20 }, () =>
        t.db.transaction(async (tx) => {
          await tx.query('SELECT 1');
          holding++;
          await gate;
        }),
      );
      // every blocker holds its connection
      await expect.poll(() => holding, { timeout: 25_000, interval: 10 }).toBe(20);
      const booked = book(t, b.resource.uuid, bookBodyFor(slot, b.product.uuid)); // queues for a request connection
      const listing = await a1(b); // on a shared pool, this would wait for the gate, which opens only below: a timeout
      expect(listing.statusCode).toBe(200);
      expect(flatten(listing)[0]).toMatchObject({ start: slot.start, kind: 'models.Bookable', capacity_left: 5 });
      release();
      await Promise.all(blockers);
      expect((await booked).statusCode).toBe(201);
      expect(flatten(await a1(b))[0]).toMatchObject({
        start: slot.start,
        kind: 'models.LotAppointment',
        capacity_left: 4,
      });
    },
  );
});

describe('A1 references, resolved on every request', () => {
  it('answers 400 for a short reference once a second provider uses it, though its listing is cached', async () => {
    const b = await busyResource();
    const byRef = (headers: Record<string, string> = {}) => a1(b, headers, encodeURIComponent(b.resource.reference));
    const cached = await byRef();
    expect(cached.statusCode).toBe(200);
    const before = await answersBySource();
    // served from the cache
    expect((await byRef({ 'if-none-match': String(cached.headers.etag) })).statusCode).toBe(304);
    expect((await answersBySource()).cache - before.cache).toBe(1);

    await setupBooking(t, { resource: { reference: b.resource.reference } }); // nothing of b's listing changed
    const ambiguous = await byRef({ 'if-none-match': String(cached.headers.etag) });
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json().errors[0].message).toMatch(/resourceId@providerUuid@platform/);
    expect((await a1(b)).body).toBe(cached.body); // by UUID, still the cached listing
  });

  it('names the reference that matches nothing: the path or query.ref', async () => {
    const b = await busyResource();
    const unknownPath = await publicCall(t, 'GET', '/resources/nobody@nowhere/upcoming_bookables');
    expect(unknownPath.statusCode).toBe(404);
    expect(unknownPath.json().errors[0].message).toBe('no resource found for ref nobody@nowhere');
    const unknownQuery = await publicCall(t, 'GET', `/resources/${b.resource.uuid}/upcoming_bookables`, undefined, {
      ref: [b.resource.reference, 'nobody@nowhere'],
    });
    expect(unknownQuery.statusCode).toBe(404);
    expect(unknownQuery.json().errors[0].message).toBe('no resource found for query.ref nobody@nowhere');
  });

  it('lists each resource once when references repeat it, in the order first named', async () => {
    const b = await busyResource();
    const other = await setupBooking(t, { partner: b.p });
    await createTimeslots(other, [{ start: '2026-06-02T07:00', end: '2026-06-02T08:00', defaultCapacity: 5 }]);
    const one = flatten(await a1(b));
    const both = await publicCall(t, 'GET', `/resources/${b.resource.uuid}/upcoming_bookables`, undefined, {
      ref: [other.resource.uuid, b.resource.reference],
    });
    expect(both.statusCode).toBe(200);
    const listed = flatten(both);
    expect(listed).toHaveLength(one.length + 2);
    expect(listed.filter((i) => i.resource_uuid === b.resource.uuid)).toEqual(one);
  });
});

describe('A1 conditional requests', () => {
  it('carries a weak ETag that If-None-Match turns into a 304 while the listing is current', async () => {
    const b = await busyResource();
    const first = await a1(b, { origin: 'https://shop.example' });
    expect(first.statusCode).toBe(200);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=0, s-maxage=1');
    expect(first.headers['cdn-cache-control']).toBe('public, max-age=1, stale-while-revalidate=1');
    expect(String(first.headers.vary)).toMatch(/Origin/);
    expect(String(first.headers.vary)).toMatch(/Accept-Encoding/);

    for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
      const again = await a1(b, { 'if-none-match': ifNoneMatch, origin: 'https://shop.example' });
      expect(again.statusCode, ifNoneMatch).toBe(304);
      expect(again.rawPayload.length).toBe(0);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['access-control-allow-origin']).toBe('https://shop.example');
    }
    expect((await a1(b, { 'if-none-match': 'W/"stale"' })).statusCode).toBe(200);
  });

  it('gives a new ETag, and a full answer to the old one, once a booking changed the listing', async () => {
    const b = await busyResource();
    const first = await a1(b);
    const [slot] = flatten(first);
    expect((await book(t, b.resource.uuid, bookBodyFor(slot, b.product.uuid))).statusCode).toBe(201);
    const after = await a1(b, { 'if-none-match': String(first.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(first.headers.etag);
    expect(flatten(after)[0]).toMatchObject({ kind: 'models.LotAppointment', capacity_left: 4 });
  });

  it('answers 204 with no ETag when nothing is bookable', async () => {
    const b = await setupBooking(t);
    const res = await a1(b);
    expect(res.statusCode).toBe(204);
    expect(res.headers.etag).toBeUndefined();
  });
});

describe('A1 compression', () => {
  it('answers in br or gzip as Accept-Encoding prefers, the same JSON as uncompressed and the same ETag', async () => {
    const b = await busyResource();
    const plain = await a1(b);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const size = plain.rawPayload.length;
    expect(size).toBeGreaterThan(8_000);
    for (const [accept, expected] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0.5, br;q=0.9', 'br'],
      ['*', 'br'],
    ] as const) {
      const res = await a1(b, { 'accept-encoding': accept });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.rawPayload.length).toBeLessThan(size / 5);
      expect(decoded(res)).toBe(plain.body);
      expect(res.headers.etag).toBe(plain.headers.etag);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    for (const accept of ['identity', 'deflate', ''])
      expect((await a1(b, { 'accept-encoding': accept })).headers['content-encoding']).toBeUndefined();
  });

  it('sends a small listing as it is', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30' }]);
    const res = await a1(b, { 'accept-encoding': 'br, gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('compresses other JSON answers of 1 KiB or more (the OpenAPI document) and leaves small ones', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(doc.statusCode).toBe(200);
    expect(doc.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(doc.rawPayload).toString('utf8')).openapi).toBe('3.1.0');
    const health = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'accept-encoding': 'gzip' } });
    expect(health.headers['content-encoding']).toBeUndefined();
  });
});
