/**
 * PERSONAL_DATA_RETENTION_DAYS (docs/privacy.md): the retention job erases the personal data of
 * participations whose appointment ended before the cutoff, as an erasure does; a customer with a
 * newer booking keeps theirs. And no log line at info or below shows a consumer (book, cancel,
 * export and erase under a capturing logger at trace level).
 */
import { Writable } from 'node:stream';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/logging.js';
import { eraseExpiredPersonalData } from '../../src/privacy/retention.js';
import { currentBackend } from '../helpers/db.js';
import { startTestApp, TestClock, uniqueId, type TestApp } from '../helpers/app.js';
import { book, bookBodyFor, createTimeslots, flatten, setupBooking, upcoming } from '../helpers/bookingFixtures.js';
import { createAppointment, createCustomer, participate, setupScheduling } from '../helpers/schedulingFixtures.js';
import { subscribe } from '../helpers/webhookFixtures.js';

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  const stream = new Writable({
    write: (chunk, _enc, done) => {
      lines.push(String(chunk));
      done();
    },
  });
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000 }, new TestClock(new Date()), {
    logger: { ...loggerOptions('trace'), stream },
  });
});
afterAll(() => t.close());

const day = (offset: number) => DateTime.now().setZone('Europe/Berlin').plus({ days: offset }).toISODate();

describe('retention', () => {
  it('erases participations that ended before the cutoff, and the people left with nothing newer', async () => {
    const s = await setupScheduling(t);
    await subscribe(s.p, 'https://hooks.example/retention');
    const old = await createAppointment(s, { start: `${day(-40)}T10:00`, end: `${day(-40)}T11:00`, capacity: 3 });
    const recent = await createAppointment(s, { start: `${day(-2)}T10:00`, end: `${day(-2)}T11:00`, capacity: 3 });
    const gone = await createCustomer(s, {
      userName: 'Gerda Gone',
      email: `${uniqueId('g')}@consumer.example`,
      mobile: '+49 1 111',
    });
    const kept = await createCustomer(s, { userName: 'Karl Kept', email: `${uniqueId('k')}@consumer.example` });
    for (const [a, c] of [
      [old, gone],
      [old, kept],
      [recent, kept],
    ] as const) {
      const res = await participate(s, {
        appointmentReference: a.reference,
        customerReference: c.customerReference,
        state: 'BOOKED',
        message: `from ${c.userName}`,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const cutoff = DateTime.now().minus({ days: 30 }).toJSDate();
    const erased = await eraseExpiredPersonalData(t.db, cutoff, { batch: 1 });
    expect(erased).toBe(2);
    expect(await eraseExpiredPersonalData(t.db, cutoff)).toBe(0);

    const list = (
      await s.p.call('GET', `${s.base}/appointments`, undefined, { from: `${day(-41)}T00:00`, to: `${day(0)}T00:00` })
    ).json() as {
      reference: string;
      capacityLeft: number;
      participations: { name: string | null; email: string | null; messages: string[] }[];
    }[];
    const oldView = list.find((a) => a.reference === old.reference)!;
    expect(oldView.capacityLeft).toBe(1);
    expect(oldView.participations.map((p) => p.email)).toEqual([null, null]);
    expect(oldView.participations.flatMap((p) => p.messages)).toEqual([]);
    expect(oldView.participations.map((p) => p.name).sort()).toEqual([null, '—']);
    const recentView = list.find((a) => a.reference === recent.reference)!;
    expect(recentView.participations).toEqual([
      expect.objectContaining({ name: 'Karl Kept', email: kept.email, messages: ['from Karl Kept'] }),
    ]);
    expect(
      (await s.p.call('GET', `${s.base}/customers/${encodeURIComponent(gone.customerReference)}`)).json().customer,
    ).toMatchObject({ userName: '—', email: null, mobile: null });
    expect(
      (await s.p.call('GET', `${s.base}/customers/${encodeURIComponent(kept.customerReference)}`)).json().customer,
    ).toMatchObject({ userName: 'Karl Kept' });
    // the mails and webhook events about the old bookings are
    // scrubbed, each of its own person; the recent one's keep Karl
    const mentions = async (text: string) => {
      const [row] = await t.db.query<{ mails: number; events: number }>(
        `SELECT (SELECT count(*)::int FROM outbox WHERE crm_id = $1 AND (payload::text ILIKE $2
           OR recipient ILIKE $2)) AS mails,
                (SELECT count(*)::int FROM webhook_events WHERE crm_id = $1 AND body ILIKE $2) AS events`,
        [s.p.crmId, `%${text}%`],
      );
      return row;
    };
    expect(await mentions('Gerda Gone')).toEqual({ mails: 0, events: 0 });
    expect(await mentions(gone.email)).toEqual({ mails: 0, events: 0 });
    expect((await mentions('from Karl Kept')).events).toBe(1);
  });

  it.runIf(currentBackend() === 'postgres')(
    'is safe on several instances: each participation is erased once',
    async () => {
      const s = await setupScheduling(t);
      const a = await createAppointment(s, { start: `${day(-50)}T10:00`, end: `${day(-50)}T11:00`, capacity: 40 });
      for (let i = 0; i < 40; i++) {
        const c = await createCustomer(s, { userName: `Person ${i}`, email: `${uniqueId('m')}@consumer.example` });
        expect(
          (
            await participate(s, {
              appointmentReference: a.reference,
              customerReference: c.customerReference,
              state: 'BOOKED',
            })
          ).statusCode,
        ).toBe(201);
      }
      const other = await t.database.openAnother();
      const cutoff = DateTime.now().minus({ days: 45 }).toJSDate();
      const counts = await Promise.all([
        eraseExpiredPersonalData(t.db, cutoff, { batch: 5 }),
        eraseExpiredPersonalData(other, cutoff, { batch: 5 }),
      ]);
      expect(counts[0] + counts[1]).toBe(40);
      const [{ n }] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM customers WHERE crm_id = $1 AND erased_at IS NOT NULL AND user_name = '—'`,
        [s.p.crmId],
      );
      expect(n).toBe(40);
    },
  );
});

describe('logs', () => {
  it('show no consumer e-mail, mobile or name at any level while booking, cancelling, exporting, erasing', async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: `${day(3)}T09:00`, end: `${day(3)}T10:00`, raster: 30 }]);
    const id = uniqueId('l').slice(2);
    const who = {
      email: `Log.${id}@consumer.example`,
      firstname: `Lotte${id}`,
      lastname: `Logmann${id}`,
      mobile: `+49 171 ${String(parseInt(id, 16) % 10_000_000).padStart(7, '1')}`,
    };
    const from = lines.length;
    const [slot] = flatten(await upcoming(t, b.resource.reference));
    const booked = await book(t, b.resource.reference, {
      ...bookBodyFor(slot, b.product.uuid, undefined, who),
      message: `${who.firstname} here`,
    });
    expect(booked.statusCode, booked.body).toBe(201);
    const cancel = new URL(booked.json().createdAppointment.cancelLink).pathname;
    expect((await t.app.inject({ method: 'POST', url: cancel })).statusCode).toBe(200);
    expect((await b.p.call('GET', '/consumer-data', undefined, { email: who.email })).statusCode).toBe(200);
    expect((await b.p.call('GET', '/consumer-data', undefined, { mobile: who.mobile })).statusCode).toBe(200);
    expect((await b.p.call('POST', '/consumer-data/erase', { email: who.email })).statusCode).toBe(200);
    expect((await b.p.call('GET', '/consumer-data', undefined, { email: 'not-an-address' })).statusCode).toBe(200);
    const written = lines.slice(from).join('');
    expect(written).toContain('consumer-data?email=[redacted]');
    for (const needle of [
      who.email,
      who.email.toLowerCase(),
      encodeURIComponent(who.email),
      who.mobile,
      encodeURIComponent(who.mobile),
      who.firstname,
      who.lastname,
    ]) {
      expect(written.toLowerCase()).not.toContain(needle.toLowerCase());
    }
  });
});
