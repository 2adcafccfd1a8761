/**
 * Background jobs on several instances of one database: every item is claimed once. (The mail
 * worker's share is in mail-worker.test.ts: two workers on two pools never send a mail twice.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sweepExpiredHolds } from '../../src/booking/holdSweeper.js';
import { runCalendarReads } from '../../src/calendars/calendarJobs.js';
import { compactListingChanges } from '../../src/listing/listingCompactor.js';
import type { Db } from '../../src/storage/db.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  createTimeslots,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
} from '../helpers/bookingFixtures.js';
import { currentBackend } from '../helpers/db.js';

let t: TestApp;
let other: Db;
beforeAll(async () => {
  t = await startTestApp({
    bookingRateLimitPerMinute: 10_000,
    maxHoldsPerIp: 1000,
    calendarAllowPrivateNetworks: true,
  });
  // PostgreSQL: a second instance's own pool; PGlite has one session, shared by whoever runs
  other = currentBackend() === 'postgres' ? await t.database.openAnother() : t.db;
});
afterAll(() => t.close());

describe(`background jobs of two instances${currentBackend() === 'postgres' ? ' on two pools' : ''}`, () => {
  it('sweep every expired hold exactly once between them, with sweeps running at the same time on both', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T08:00', end: '2026-06-02T18:00' }]);
    const slots = flatten(await upcoming(t, b.resource.reference));
    expect(slots).toHaveLength(20);
    for (const slot of slots) {
      const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid));
      expect(held.statusCode, held.body).toBe(201);
    }
    const later = new Date(t.clock.now().getTime() + 181_000);
    const sweeps = await Promise.all([t.db, other, t.db, other].map((db) => sweepExpiredHolds(db, later)));
    expect(sweeps.reduce((n, s) => n + s.holds, 0)).toBe(20);
    expect(sweeps.reduce((n, s) => n + s.appointments, 0)).toBe(20);
    expect(flatten(await upcoming(t, b.resource.reference)).every((s) => s.kind === 'models.Bookable')).toBe(true);
  });

  it('compact the listing change log once between them, and no listing version moves', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-03T09:00', end: '2026-06-03T12:00' }]);
    const versions = () => t.db.query<{ v: number }>('SELECT listing_version($1) AS v', [b.resource.uuid]);
    const before = await versions();
    const [pending] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM listing_changes');
    const folded = await Promise.all([t.db, other, t.db, other].map((db) => compactListingChanges(db)));
    const [left] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM listing_changes');
    expect(pending.n).toBeGreaterThan(0);
    expect(left.n).toBe(0);
    expect(folded.reduce((n, k) => n + k, 0)).toBe(pending.n);
    expect(await versions()).toEqual(before);
  });

  it('read every due calendar exactly once between them', async () => {
    let reads = 0;
    const server = createServer((_req, res) => {
      reads++;
      res
        .writeHead(200, { 'content-type': 'text/calendar' })
        .end('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nEND:VCALENDAR\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const b = await setupBooking(t);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cal.ics`;
      for (let i = 0; i < 6; i++)
        expect((await b.p.call('POST', `${b.base}/calendar-subscriptions`, { url })).statusCode).toBe(201);
      expect(reads).toBe(6);
      t.clock.advance(t.config.calendarSyncMs + 1000);
      const runs = await Promise.all(
        [t.db, other, t.db, other].map((db) => runCalendarReads({ db, config: t.config, clock: t.clock })),
      );
      expect(runs.reduce((n, r) => n + r, 0)).toBe(6);
      expect(reads).toBe(12);
    } finally {
      server.close();
    }
  });
});
