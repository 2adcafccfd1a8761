/**
 * The listing's one freshness rule (listing/upcomingBookables.ts) holds only if every change to what
 * A1 reads moves a listing version. This test asks PostgreSQL which tables a full listing read
 * touches (the statistics' scan counters) and fails when one of them has no trigger that bumps the
 * listing version: a new table or path read by the listing without one would serve stale answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readListing, readVersions } from '../../src/listing/bookablesLoader.js';
import type { Db } from '../../src/storage/db.js';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { book, bookBodyFor, createTimeslots, flatten, setupBooking, upcoming } from '../helpers/bookingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: 1_000 });
});
afterAll(() => t.close());

/** the listing's own bookkeeping: the versions themselves */
const VERSION_TABLES = new Set(['listing_changes', 'listing_change_totals']);

/** scans per table so far, with the statistics of this backend flushed first */
async function scans(db: Db): Promise<Map<string, number>> {
  await db.query('SELECT pg_stat_force_next_flush()');
  await db.query('SELECT pg_stat_clear_snapshot()');
  const rows = await db.query<{ relname: string; n: number }>(
    `SELECT relname, COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) AS n FROM pg_stat_user_tables`,
  );
  return new Map(rows.map((r) => [r.relname, Number(r.n)]));
}

/** tables with a trigger whose function bumps a listing version */
async function tablesWithListingTrigger(db: Db): Promise<Set<string>> {
  const rows = await db.query<{ relname: string }>(
    `SELECT DISTINCT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_proc f ON f.oid = g.tgfoid
      WHERE NOT g.tgisinternal AND f.prosrc ~ 'bump_listing_(version|change)'`,
  );
  return new Set(rows.map((r) => r.relname));
}

describe('listing freshness', () => {
  it('has a version-bumping trigger on every table a listing read touches', async () => {
    // a resource with everything a listing shows: timeslots, a booked appointment, a closure, a contact
    const b = await setupBooking(t);
    const owner = encodeURIComponent(b.provider.ownerRef);
    const profile = await b.p.call('PUT', `/user/${owner}/generalContactProfile`, {
      name: 'Olga',
      contactChannels: [{ type: 'phone', value: '+49301111' }],
    });
    expect(profile.statusCode, profile.body).toBeLessThan(300);
    const contact = await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      contact: b.provider.ownerRef,
      contactChannelType: 'phone',
    });
    expect(contact.statusCode, contact.body).toBeLessThan(300);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00' }]);
    const [slot] = flatten(await upcoming(t, b.resource.uuid));
    expect((await book(t, b.resource.uuid, bookBodyFor(slot, b.product.uuid))).statusCode).toBe(201);
    const closure = await b.p.call('POST', `${b.base}/closures`, {
      resourceReference: b.resource.reference,
      start: '2026-06-02T11:00',
      end: '2026-06-02T11:30',
      reason: uniqueId('x'),
    });
    expect(closure.statusCode, closure.body).toBe(201);

    const refs = [{ ref: b.resource.uuid, field: 'ref' }];
    const nowMs = t.clock.now().getTime();
    const before = await scans(t.db);
    const read = await readListing(t.db, {
      refs,
      channelKey: 'RESOURCE_PUBLIC',
      prdRef: b.product.reference,
      nowMs,
      untilMs: nowMs + 90 * 86_400_000,
      known: null,
    });
    await readVersions(t.db, refs);
    const after = await scans(t.db);

    expect(read.data?.timeslots.length).toBeGreaterThan(0);
    expect(read.data?.appointments.length).toBeGreaterThan(0);
    expect(read.data?.busy.length).toBeGreaterThan(0);
    const touched = [...after].filter(([table, n]) => n > (before.get(table) ?? 0)).map(([table]) => table);
    // the statistics work on this engine: the read's own tables are among them
    expect(touched).toEqual(
      expect.arrayContaining([
        'timeslots',
        'appointments',
        'participations',
        'busy_times',
        'resources',
        'users',
        'contact_profiles',
      ]),
    );
    const triggered = await tablesWithListingTrigger(t.db);
    const unguarded = touched.filter((table) => !VERSION_TABLES.has(table) && !triggered.has(table)).sort();
    expect(unguarded, 'tables the listing reads whose changes do not move a listing version').toEqual([]);
  });
});
