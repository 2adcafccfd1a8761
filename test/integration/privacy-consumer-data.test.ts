/**
 * A consumer's data (docs/privacy.md): export and erasure through HTTP, with the app's own mail and
 * webhook workers, a real SMTP server and a real webhook receiver. After an erasure no table of
 * the database, no endpoint, page, feed, mail or webhook delivery shows the person any more.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, TestClock, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  createTimeslots,
  flatten,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';
import { SmtpSink } from '../helpers/smtpSink.js';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.js';
import { subscribe } from '../helpers/webhookFixtures.js';

let sink: SmtpSink;
let receiver: Receiver;
let t: TestApp;
beforeAll(async () => {
  sink = await SmtpSink.start();
  receiver = await startReceiver();
  t = await startTestApp(
    {
      smtpUrl: sink.url,
      mailPollMs: 50,
      webhookPollMs: 25,
      webhookAllowPrivateNetworks: true,
      webhookRetryBaseMs: 5,
      publicBaseUrl: 'https://book.example',
    },
    new TestClock(new Date()),
    { jobs: true },
  );
  // booking answers (migration 019 of issue 35) where not there yet: the erasure clears them too
  await t.db.exec('ALTER TABLE participations ADD COLUMN IF NOT EXISTS answers jsonb');
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  await sink.close();
});

const day = DateTime.now().setZone('Europe/Berlin').plus({ days: 3 }).toISODate();

/** A person with data found nowhere else in the database. */
function person() {
  const id = uniqueId('p').slice(2);
  return {
    email: `Zoe.${id}@consumer.example`,
    firstname: `Zelda${id}`,
    lastname: `Quaxley${id}`,
    mobile: `+49 170 ${String(parseInt(id, 16) % 10_000_000).padStart(7, '1')}`,
  };
}
type Person = ReturnType<typeof person>;
const needlesOf = (who: Person) => [who.email, who.email.toLowerCase(), who.mobile, who.firstname, who.lastname];

async function offer(p?: Partner): Promise<Booking> {
  const b = await setupBooking(t, { partner: p, product: { name: 'Beratung' }, resource: { publicName: 'Raum 1' } });
  await createTimeslots(b, [{ start: `${day}T09:00`, end: `${day}T11:00`, raster: 30, defaultCapacity: 2 }]);
  return b;
}

async function bookAs(b: Booking, who: Person, slotIndex = 0, headers: Record<string, string> = {}) {
  const slot = flatten(await upcoming(t, b.resource.reference))[slotIndex];
  const res = await book(
    t,
    b.resource.reference,
    {
      ...bookBodyFor(slot, b.product.uuid, undefined, who),
      message: `Hallo, hier ist ${who.firstname} ${who.lastname}`,
    },
    undefined,
    headers,
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().createdAppointment as { cancelLink: string; appointment_uuid: string; capacity_left: number };
}

const erase = (p: Partner, body: object) => p.call('POST', '/consumer-data/erase', body);
const exportOf = (p: Partner, query: Record<string, string>) => p.call('GET', '/consumer-data', undefined, query);

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 25_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** Every text, JSON and array column of every table, searched for each needle (case-insensitive). */
async function databaseMentions(needles: string[]): Promise<string[]> {
  const columns = await t.db.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
         AND tb.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.data_type IN ('text', 'character varying', 'character', 'json',
        'jsonb', 'ARRAY')`,
  );
  expect(columns.length).toBeGreaterThan(30);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows = await t.db
      .query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${table_name}" WHERE strpos(lower("${column_name}"::text), ANY (SELECT lower(x)
           FROM unnest($1::text[]) x)) > 0`,
        [needles],
      )
      .catch(async () =>
        t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${table_name}" x, unnest($1::text[]) nd
             WHERE strpos(lower(x."${column_name}"::text), lower(nd)) > 0`,
          [needles],
        ),
      );
    if (rows[0].n > 0) found.push(`${table_name}.${column_name}: ${rows[0].n}`);
  }
  return found;
}

const mentions = (text: string, who: Person) =>
  needlesOf(who).filter((n) => text.toLowerCase().includes(n.toLowerCase()));

describe('consumer data: export', () => {
  it("lists a person's users, customers, participations (appointment, product, resource, answers), mails", async () => {
    const b = await offer();
    const who = person();
    const booked = await bookAs(b, who);
    await t.db.query(
      `UPDATE participations SET answers = '[{"key":"pet","label":"Haustier","value":"Katze"}]' WHERE id = $1`,
      [tokenOf(booked.cancelLink).split('.')[0]],
    );
    await waitUntil(
      'the confirmation is sent',
      () => sink.to(who.email.toLowerCase()).length + sink.to(who.email).length >= 1,
    );
    await waitUntil(
      'the outbox row is SENT',
      async () =>
        (await t.db.query(`SELECT 1 FROM outbox WHERE lower(recipient) = lower($1) AND status = 'SENT'`, [who.email]))
          .length > 0,
    );

    const res = await exportOf(b.p, { email: who.email.toUpperCase() });
    expect(res.statusCode, res.body).toBe(200);
    const { consumer } = res.json();
    expect(consumer.users).toEqual([
      expect.objectContaining({
        email: who.email,
        firstName: who.firstname,
        lastName: who.lastname,
        mobile: who.mobile,
      }),
    ]);
    expect(consumer.customers).toEqual([
      expect.objectContaining({
        email: who.email,
        userName: `${who.firstname} ${who.lastname}`,
        providerReference: b.provider.providerRef,
      }),
    ]);
    expect(consumer.participations).toHaveLength(1);
    expect(consumer.participations[0]).toMatchObject({
      state: 'BOOKED',
      message: `Hallo, hier ist ${who.firstname} ${who.lastname}`,
      answers: [{ key: 'pet', label: 'Haustier', value: 'Katze' }],
      appointment: {
        uuid: booked.appointment_uuid,
        start: expect.stringMatching(new RegExp(`^${day}T09:00:00\\+0[12]:00$`)),
      },
      product: { reference: b.product.reference, name: 'Beratung' },
      resource: { reference: b.resource.reference, name: 'Raum 1' },
    });
    expect(consumer.mails).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'booking-confirmed',
          to: who.email,
          status: 'SENT',
          sentAt: expect.any(String),
        }),
      ]),
    );

    const byMobile = (await exportOf(b.p, { mobile: who.mobile })).json().consumer;
    expect(byMobile.users).toHaveLength(1);
    expect(byMobile.participations).toHaveLength(1);
  });

  it('answers 200 with empty arrays for nobody, and nothing of another partner', async () => {
    const b = await offer();
    const who = person();
    await bookAs(b, who);
    const other = await newPartner(t);
    const res = await exportOf(other, { email: who.email });
    expect(res.statusCode).toBe(200);
    expect(res.json().consumer).toEqual({ users: [], customers: [], participations: [], mails: [] });
    expect((await erase(other, { email: who.email })).json().erased).toEqual({
      users: 0,
      customers: 0,
      participations: 0,
      mails: 0,
      webhookEvents: 0,
      idempotencyRecords: 0,
    });
    expect((await exportOf(b.p, { email: who.email })).json().consumer.users).toHaveLength(1);
  });

  it('refuses neither or both identifiers, and unknown fields, with 400 naming them', async () => {
    const p = await newPartner(t);
    for (const [res, field] of [
      [await exportOf(p, {}), 'email'],
      [await exportOf(p, { email: 'a@b.example', mobile: '+49 1' }), 'mobile'],
      [await erase(p, {}), 'email'],
      [await erase(p, { email: 'a@b.example', mobile: '+49 1' }), 'mobile'],
      [await erase(p, { email: 'a@b.example', name: 'x' }), 'name'],
    ] as const) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'VALIDATION', message: expect.stringContaining(field) });
    }
  });
});

describe('consumer data: erasure', () => {
  it('leaves no trace of the person anywhere, keeps their places, and a second call erases 0', async () => {
    const b = await offer();
    const hook = await subscribe(b.p, `${receiver.url}/erase-${uniqueId()}`);
    const hookPath = new URL(hook.url).pathname;
    const feed = (await b.p.call('POST', `${b.base}/calendar-feeds`, {})).json().feed;
    const who = person();
    const first = await bookAs(b, who, 0, { 'idempotency-key': uniqueId('k') });
    const settled = async () =>
      (await t.db.query(`SELECT 1 FROM outbox WHERE crm_id = $1 AND status = 'PENDING'`, [b.p.crmId])).length === 0;
    await waitUntil('the first mails are sent', settled);
    // the next booking's mails wait: the SMTP server refuses for now
    sink.rejecting = true;
    const second = await bookAs(b, who, 1);
    await waitUntil(
      'the webhook events arrive',
      () => receiver.events(hookPath).filter((e) => e.body.type === 'participation.booked').length >= 2,
    );
    // a mail handed to SMTP cannot be recalled: erase while the refused ones wait for their retry,
    // with seconds to spare (the second retry waits 4 s), so that no retry is on its way to SMTP
    // while the erase runs, however slow the machine
    await waitUntil(
      'the refused mails wait for a retry',
      async () =>
        (
          await t.db.query(
            `SELECT 1 FROM outbox WHERE crm_id = $1 AND status = 'PENDING' AND attempts >= 2
               AND next_attempt_at > now() + interval '2500 milliseconds'`,
            [b.p.crmId],
          )
        ).length >= 2,
    );
    const before = flatten(await upcoming(t, b.resource.reference)).map((s) => [s.start, s.capacity_left]);

    const res = await erase(b.p, { email: who.email });
    expect(res.statusCode, res.body).toBe(200);
    const { erased } = res.json();
    expect(erased).toMatchObject({ users: 1, customers: 1, participations: 2, idempotencyRecords: 1 });
    expect(erased.mails).toBeGreaterThanOrEqual(4);
    expect(erased.webhookEvents).toBeGreaterThanOrEqual(2);
    const mailsBefore = sink.mails.length;
    sink.rejecting = false;

    // a second call erases nothing, and the export finds nothing
    expect((await erase(b.p, { email: who.email })).json().erased).toEqual({
      users: 0,
      customers: 0,
      participations: 0,
      mails: 0,
      webhookEvents: 0,
      idempotencyRecords: 0,
    });
    expect((await erase(b.p, { mobile: who.mobile })).json().erased.participations).toBe(0);
    expect((await exportOf(b.p, { email: who.email })).json().consumer).toEqual({
      users: [],
      customers: [],
      participations: [],
      mails: [],
    });

    // the event says what was erased, and nothing of whom
    await waitUntil('consumer.erased arrives', () =>
      receiver.events(hookPath).some((e) => e.body.type === 'consumer.erased'),
    );
    const event = receiver.events(hookPath).find((e) => e.body.type === 'consumer.erased')!;
    expect(event.body.data).toEqual({ crmId: b.p.crmId, source: 'partner', erased });

    // the provider's pending notification still goes out, without the person; nothing goes to them
    await waitUntil('the pending provider mail goes out', settled, 40_000);
    const later = sink.mails.slice(mailsBefore);
    expect(later.length).toBeGreaterThan(0);
    for (const m of later) {
      expect(m.envelopeTo.map((a) => a.toLowerCase())).not.toContain(who.email.toLowerCase());
      expect(mentions(`${m.subject}\n${m.text}\n${m.html}\n${m.calendar?.content ?? ''}`, who)).toEqual([]);
    }

    // the places stay, anonymous, and the capacity with them
    expect(flatten(await upcoming(t, b.resource.reference)).map((s) => [s.start, s.capacity_left])).toEqual(before);
    const listed = await b.p.call('GET', `${b.base}/appointments`);
    const participants = (
      listed.json() as {
        participations: { name: string; email: string | null; mobile: string | null; state: string }[];
      }[]
    ).flatMap((a) => a.participations);
    expect(participants).toHaveLength(2);
    for (const x of participants) expect(x).toMatchObject({ name: '—', email: null, mobile: null, state: 'BOOKED' });

    // their links are gone
    for (const link of [first.cancelLink, second.cancelLink]) {
      const path = new URL(link).pathname;
      expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'POST', url: path })).statusCode).toBe(404);
      const slot = flatten(await upcoming(t, b.resource.reference))[3];
      expect(
        (await reschedule(t, tokenOf(link), { start: slot.start, end: slot.end, timeslot_uuid: slot.timeslot_uuid }))
          .statusCode,
      ).toBe(404);
    }

    // no endpoint, page, feed or delivery log shows them; no column of any table holds them
    await waitUntil(
      'every delivery settled',
      async () =>
        (
          await t.db.query(`SELECT 1 FROM webhook_deliveries WHERE status = 'PENDING' AND subscription_id = $1`, [
            hook.id,
          ])
        ).length === 0,
    );
    const shown = [
      await b.p.call('GET', `${b.base}/appointments`),
      await b.p.call('GET', `${b.base}/resource/${encodeURIComponent(b.resource.reference)}/timeslots`, undefined, {
        from: `${day}T00:00`,
        to: `${day}T23:59`,
      }),
      await b.p.call('GET', `/webhooks/${hook.id}/deliveries`),
      await upcoming(t, b.resource.reference),
      await t.app.inject({ method: 'GET', url: new URL(feed.url).pathname }),
      await exportOf(b.p, { email: who.email }),
    ];
    for (const r of shown) expect(mentions(r.body, who), r.body).toEqual([]);
    expect(await databaseMentions(needlesOf(who))).toEqual([]);
  }, 90_000);
});
