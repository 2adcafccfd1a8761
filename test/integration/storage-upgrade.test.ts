/**
 * Upgrades (DESIGN 7.9): databases as earlier versions of the service left them
 * (test/fixtures/upgrade: d5910a4, the last state before checksums and repeatable definitions, and
 * 60cdfba and 69e5c5c, migrated between the edits of 011 and 012) are migrated to the current
 * schema and then served: listings, a booking, a cancel through an old mail's link, mails.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, startTestApp, type TestApp } from '../helpers/app.js';
import { book, consumer, flatten, publicCall, upcoming } from '../helpers/bookingFixtures.js';
import { SmtpSink } from '../helpers/smtpSink.js';
import { listDefinitions, listMigrations } from '../../src/storage/migrate.js';
import type { Db } from '../../src/storage/db.js';

const fixture = (commit: string) => readFileSync(new URL(`../fixtures/upgrade/${commit}.sql`, import.meta.url), 'utf8');
const restore = (commit: string) => (db: Db) => db.exec(fixture(commit));

const KEY = { 'x-service-client-id': 'fixture-key' };
const partner = (t: TestApp, method: 'GET' | 'POST', path: string, payload?: object) =>
  t.app.inject({ method, url: `/crms/fix${path}`, headers: KEY, ...(payload ? { payload } : {}) });

/** The Berlin room's slots of one day, as wall-clock times (A1 with the product: buffers count). */
async function berlinSlots(t: TestApp, day: string): Promise<string[]> {
  const res = await upcoming(t, 'room-be@fix', { prdRef: 'consult-be@fix' });
  return flatten(res)
    .filter((s) => s.start.startsWith(day))
    .map((s) => s.start.slice(11, 16));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ceilingMs = 20_000): Promise<T> {
  const until = Date.now() + ceilingMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(['d5910a4', '69e5c5c', '60cdfba'])('a database left by %s', (commit) => {
  let t: TestApp;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await SmtpSink.start();
    // June 2027 (the fixtures' bookings) lies inside A1's 90 days from here
    t = await startTestApp({ smtpUrl: sink.url, mailPollMs: 50 }, new TestClock(new Date('2027-05-31T08:00:00Z')), {
      jobs: true,
      prepare: restore(commit),
    });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('is migrated to the current schema: each migration recorded with its checksum, definitions current', async () => {
    const migrations = await t.db.query<{ version: string; checksum: string }>(
      'SELECT version, checksum FROM schema_migrations ORDER BY version',
    );
    expect(migrations).toEqual(listMigrations().map((m) => ({ version: m.version, checksum: m.checksum })));
    const definitions = await t.db.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_definitions ORDER BY name',
    );
    expect(definitions).toEqual(listDefinitions().map((d) => ({ name: d.name, checksum: d.checksum })));
  });

  it('converges where the earlier forms of 011 and 012 left their marks', async () => {
    const compact = await t.db.query<{ args: string }>(
      `SELECT pg_get_function_identity_arguments(oid) AS args FROM pg_proc WHERE proname = 'compact_listing_changes'`,
    );
    expect(compact).toEqual([{ args: 'batch integer, committed_before pg_snapshot' }]);
    const [index] = await t.db.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE indexname = 'participations_appointment_idx'`,
    );
    expect(index.indexdef).toContain('INCLUDE (state, hold_until)');
    expect(index.indexdef).not.toContain('WHERE');
    const [{ moved }] = await t.db.query<{ moved: number }>(
      'SELECT compact_listing_changes(100, pg_current_snapshot()) AS moved',
    );
    expect(moved).toBeGreaterThanOrEqual(0);
  });

  it('lists the old bookings as taken, and the time of the one cancelled before the upgrade as free', async () => {
    // 06-01: BOOKED 09:00 (its 15-minute buffer takes 09:30) and REQUESTED 11:00 (and so 11:30)
    const first = await berlinSlots(t, '2027-06-01');
    expect(first).not.toContain('09:00');
    expect(first).not.toContain('09:30');
    expect(first).not.toContain('11:00');
    expect(first).toContain('10:00');
    // 06-02 11:00 was booked, then CANCELED by the partner: migration 016 released it
    expect(await berlinSlots(t, '2027-06-02')).toEqual(expect.arrayContaining(['11:00', '11:30']));
  });

  it('books, mails the booking, and cancels an old booking through the link of its old mail', async () => {
    const slot = flatten(await upcoming(t, 'room-be@fix', { prdRef: 'consult-be@fix' })).find((s) =>
      s.start.startsWith('2027-06-01T10:00'),
    )!;
    const who = consumer();
    const booked = await book(t, 'room-be@fix', {
      start: slot.start,
      end: slot.end,
      timeslot_uuid: slot.timeslot_uuid,
      product_uuid: slot.product_uuid,
      ...who,
    });
    expect(booked.statusCode, booked.body).toBe(201);
    expect(await berlinSlots(t, '2027-06-01')).not.toContain('10:00');
    await waitFor('the booking mail', async () => sink.to(who.email)[0]);

    const [old] = await t.db.query<{ link: string; recipient: string }>(
      `SELECT payload->>'cancelLink' AS link, recipient FROM outbox
        WHERE template = 'booking-confirmed' AND payload->>'cancelLink' IS NOT NULL ORDER BY created_at LIMIT 1`,
    );
    const cancel = await publicCall(t, 'POST', new URL(old.link).pathname);
    expect(cancel.statusCode, cancel.body).toBe(200);
    await waitFor('the cancellation mail', async () => sink.to(old.recipient).find((m) => m.subject !== undefined));
    // 09:00 is free again; 09:30 is not, as its follow-up buffer meets the new 10:00 booking
    expect(await berlinSlots(t, '2027-06-01')).toContain('09:00');
  });

  it('answers the partner on the old data', async () => {
    const appointments = await partner(t, 'GET', '/provider/berlin%40fix/appointments');
    expect(appointments.statusCode, appointments.body).toBe(200);
    const feeds = await partner(t, 'GET', '/provider/berlin%40fix/calendar-feeds');
    expect(feeds.statusCode, feeds.body).toBe(200);
    expect(feeds.json().feeds).toHaveLength(1);
    const hooks = await partner(t, 'GET', '/webhooks');
    expect(hooks.json().webhooks).toHaveLength(1);
  });

  it('reads the stored phone numbers into E.164, so a data request finds them in any written form', async () => {
    const e164 = await waitFor('the numbers read', async () => {
      const rows = await t.db.query<{ mobile_e164: string | null }>(
        "SELECT mobile_e164 FROM customers WHERE crm_id = 'fix' AND mobile = '+49 170 0000003'",
      );
      return rows.every((r) => r.mobile_e164 !== null) && rows.length > 0 ? rows[0].mobile_e164 : undefined;
    });
    expect(e164).toBe('+491700000003');
    const found = await partner(t, 'GET', '/consumer-data?mobile=0170%200000003');
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json().consumer.customers.map((c: { userName: string }) => c.userName)).toContain('Paula Partner');
  });

  it("carries each booking's SEQUENCE over from its old mails, so calendars take the next update", async () => {
    const rows = await t.db.query<{ carried: string; sent: string }>(
      `SELECT m.sequence::text AS carried, max((o.payload ->> 'sequence')::bigint)::text AS sent
         FROM outbox o JOIN mail_calendar_sequences m
           ON m.participation_id::text = o.payload -> 'participation' ->> 'uuid'
        WHERE o.crm_id = 'fix' AND o.payload ? 'icsUid' GROUP BY m.participation_id, m.sequence`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(BigInt(r.carried)).toBeGreaterThanOrEqual(BigInt(r.sent));
  });
});
