/**
 * The horizon job of availability rules (DESIGN.md §7.14): on two instances (two pools of one
 * PostgreSQL database; PGlite's one session otherwise) it makes each new date exactly once and
 * catches up the days no instance ran; started as jobs.ts starts it, it runs on the injected clock.
 * The provider's zone is Europe/Berlin; the test clock starts at Monday 2026-06-01 10:00.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extendHorizons, startHorizonJob } from '../../src/availability/horizonJob.js';
import type { Db } from '../../src/storage/db.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createRule, rulesPath, spans, timeslotsOf, type RuleAnswer } from '../helpers/availabilityFixtures.js';
import { setupBooking, type Booking } from '../helpers/bookingFixtures.js';
import { currentBackend } from '../helpers/db.js';

const DAY = 86_400_000;
let t: TestApp;
let other: Db;
beforeAll(async () => {
  t = await startTestApp();
  // PostgreSQL: a second instance's own pool; PGlite has one session, shared by whoever runs
  other = currentBackend() === 'postgres' ? await t.database.openAnother() : t.db;
});
afterAll(() => t.close());

describe(`the horizon job${currentBackend() === 'postgres' ? ' on two instances' : ''}`, () => {
  it('makes each new date exactly once between them, and catches up the days no instance ran', async () => {
    const rules: { b: Booking; rule: RuleAnswer }[] = [];
    for (let i = 0; i < 6; i++) {
      const b = await setupBooking(t);
      rules.push({ b, rule: await createRule(b, { weekdays: ['1', '2', '3', '4', '5', '6', '7'] }) });
    }
    const ended = await setupBooking(t);
    await createRule(ended, { validUntil: '2026-12-31' });
    const start = t.clock.now();
    const timeslots = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM timeslots'))[0].n;
    /** the four runs' timeslots, which must be those the database gained */
    const run = async () => {
      const before = await timeslots();
      const made = (await Promise.all([t.db, other, t.db, other].map((db) => extendHorizons(db, t.clock)))).reduce(
        (n, k) => n + k,
        0,
      );
      expect(await timeslots()).toBe(before + made);
      return made;
    };
    try {
      expect(await run()).toBe(0);
      t.clock.advance(DAY); // 2026-06-02 10:00: one date more each
      expect(await run()).toBe(6 * 2);
      expect(await run()).toBe(0);
      t.clock.advance(3 * DAY); // three days with no run: 2026-06-05
      expect(await run()).toBe(6 * 3 * 2);
      expect(await run()).toBe(0);
      for (const { b, rule } of rules) {
        expect(spans(await timeslotsOf(b, '2027-07-05T00:00', '2027-07-10T00:00'))).toEqual([
          '2027-07-05T09:00 12:00',
          '2027-07-05T13:00 17:00',
          '2027-07-06T09:00 12:00',
          '2027-07-06T13:00 17:00',
          '2027-07-07T09:00 12:00',
          '2027-07-07T13:00 17:00',
          '2027-07-08T09:00 12:00',
          '2027-07-08T13:00 17:00',
          '2027-07-09T09:00 12:00',
          '2027-07-09T13:00 17:00',
        ]);
        const got = await b.p.call('GET', rulesPath(b, rule.reference));
        expect(got.json().rule.publishedUntil).toBe('2027-07-09');
      }
      const [{ n }] = await t.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM availability_rules WHERE next_extend_at IS NULL',
      );
      expect(n).toBe(1); // the rule ending 2026-12-31 is done
    } finally {
      t.clock.set(start);
    }
  });

  it('runs by itself as jobs.ts starts it, on the injected clock', async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b, { weekdays: ['1', '2', '3', '4', '5', '6', '7'] });
    const start = t.clock.now();
    const job = startHorizonJob({ db: t.db, clock: t.clock, log: { error: () => undefined } }, 20);
    try {
      t.clock.advance(2 * DAY);
      const published = async () => (await b.p.call('GET', rulesPath(b, rule.reference))).json().rule.publishedUntil;
      for (let waited = 0; (await published()) !== '2027-07-07' && waited < 30_000; waited += 50) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await published()).toBe('2027-07-07');
    } finally {
      await job.stop();
      t.clock.set(start);
    }
  });
});
