/**
 * Reminders (docs/lifecycle.md): one `booking-reminder` per BOOKED participation and offset, delivered
 * through SMTP with ICS and cancel link; never twice (also with several runs at once and on another
 * instance), never for a cancelled booking or one made after its reminder time; a moved booking's
 * reminders follow its new start; the provider's list replaces REMINDER_MINUTES_BEFORE.
 * The database decides "booked before the reminder time" with its own clock, so the test clock is
 * set to the real time here.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendDueReminders } from '../../src/booking/reminders.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  consumer,
  createTimeslots,
  flatten,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { currentBackend } from '../helpers/db.js';
import { bookSlot, moveBodyFor, participationOfToken, reschedule } from '../helpers/lifecycleFixtures.js';
import { SmtpSink } from '../helpers/smtpSink.js';

let sink: SmtpSink;
let t: TestApp;
beforeAll(async () => {
  sink = await SmtpSink.start();
  t = await startTestApp(
    { smtpUrl: sink.url, mailPollMs: 50, publicBaseUrl: 'https://book.example', reminderMinutesBefore: [1440, 60] },
    undefined,
    { jobs: true },
  );
});
afterAll(async () => {
  await t.close();
  await sink.close();
});
beforeEach(() => t.clock.set(new Date()));

const MIN = 60_000;
/** Whole hours in Berlin, `days` from now. */
const dayAhead = (days: number, hour: number) =>
  DateTime.now().setZone('Europe/Berlin').plus({ days }).set({ hour, minute: 0, second: 0, millisecond: 0 });

async function offer(options: Parameters<typeof setupBooking>[1] = {}, day = dayAhead(3, 9)): Promise<Booking> {
  const b = await setupBooking(t, { timeZone: 'Europe/Berlin', product: { name: 'Besichtigung' }, ...options });
  await createTimeslots(b, [{ start: day.toISO(), end: day.plus({ hours: 3 }).toISO(), raster: 60 }]);
  return b;
}

const slotsOf = async (b: Booking) => flatten(await upcoming(t, b.resource.reference));
const run = (at: number) => sendDueReminders({ db: t.db, config: t.config }, new Date(at));
const reminderMails = (crmId: string) =>
  t.db.query<{ recipient: string; payload: { appointment: { start: string }; cancelLink: string } }>(
    `SELECT recipient, payload FROM outbox WHERE crm_id = $1 AND template = 'booking-reminder' ORDER BY created_at`,
    [crmId],
  );

async function waitForMail(address: string, subject: RegExp, timeoutMs = 25_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = sink.to(address).find((m) => subject.test(m.subject));
    if (found) return found;
    if (Date.now() > until) throw new Error(`no mail ${subject} to ${address}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('reminders', () => {
  it('sends one reminder per offset when it is due, with ICS and cancel link, and never again', async () => {
    const b = await offer();
    const [slot] = await slotsOf(b);
    const who = consumer({ locale: 'en' });
    const booked = await bookSlot(t, b, slot, who);
    const start = Date.parse(slot.start);

    expect(await run(start - 1440 * MIN - 1000)).toBe(0);
    expect(await run(start - 1440 * MIN + 1000)).toBe(1);
    expect(await run(start - 1440 * MIN + 2000)).toBe(0);
    expect(await run(start - 60 * MIN + 1000)).toBe(1);
    expect(await run(start - 30 * MIN)).toBe(0);
    const rows = await reminderMails(b.p.crmId);
    expect(rows.map((r) => r.recipient)).toEqual([who.email, who.email]);
    expect(rows[0].payload.cancelLink).toBe(booked.cancelLink);

    const mail = await waitForMail(who.email, /^Reminder: Besichtigung on /);
    expect(mail.text).toContain('This is a reminder of your upcoming appointment.');
    expect(mail.text).toContain(booked.cancelLink);
    expect(mail.calendar?.method).toBe('REQUEST');
    const confirmation = await waitForMail(who.email, /^Booking confirmed/);
    const uid = (m: typeof mail) => /^UID:(.*)$/m.exec(m.calendar!.content.replace(/\r?\n[ \t]/g, ''))?.[1].trim();
    expect(uid(mail)).toBe(uid(confirmation));
  });

  it('never reminds of a cancelled booking, nor of one made after its reminder time', async () => {
    // 24 hours before this slot has passed already when it is booked: only the 60-minute reminder is left
    const late = await setupBooking(t, { timeZone: 'Europe/Berlin' });
    const soon = DateTime.now().setZone('Europe/Berlin').plus({ hours: 5 }).startOf('hour');
    await createTimeslots(late, [{ start: soon.toISO(), end: soon.plus({ hours: 1 }).toISO(), raster: 60 }]);
    const [lateSlot] = await slotsOf(late);
    await bookSlot(t, late, lateSlot);
    expect(await run(Date.parse(lateSlot.start) - 60 * MIN + 1000)).toBe(1);
    expect(await reminderMails(late.p.crmId)).toHaveLength(1);

    const b = await offer();
    const [first] = await slotsOf(b);
    const cancelled = await bookSlot(t, b, first);
    expect((await t.app.inject({ method: 'POST', url: new URL(cancelled.cancelLink).pathname })).statusCode).toBe(200);
    expect(
      await t.db.query('SELECT 1 FROM reminders WHERE participation_id = $1', [cancelled.token.split('.')[0]]),
    ).toHaveLength(0);
    expect(await run(Date.parse(first.start) - 1000)).toBe(0);
    expect(await reminderMails(b.p.crmId)).toHaveLength(0);
  });

  it("follows a moved booking's new start", async () => {
    const b = await offer();
    const [first, , third] = await slotsOf(b);
    const booked = await bookSlot(t, b, first);
    const moved = await reschedule(t, booked.token, moveBodyFor(third));
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await participationOfToken(t, booked.token)).start_at.toISOString()).toBe(
      new Date(third.start).toISOString(),
    );

    // at the old time's hour-before reminder only the new time's day-before one is due; then its hour-before one
    expect(await run(Date.parse(first.start) - 60 * MIN + 1000)).toBe(1);
    expect(await run(Date.parse(third.start) - 60 * MIN + 1000)).toBe(1);
    const rows = await reminderMails(b.p.crmId);
    expect(rows.map((r) => Date.parse(r.payload.appointment.start))).toEqual([
      Date.parse(third.start),
      Date.parse(third.start),
    ]);
  });

  it("uses the provider's reminderMinutesBefore over the default, [] for none, re-planning upcoming ones", async () => {
    const b = await offer();
    const [slot, other] = await slotsOf(b);
    await bookSlot(t, b, slot);
    const put = await b.p.call('PUT', `/provider/${encodeURIComponent(b.provider.providerRef)}`, {
      reminderMinutesBefore: [120, 120, 30],
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().provider.reminderMinutesBefore).toEqual([120, 30]);
    await bookSlot(t, b, other);
    const offsets = await t.db.query<{ minutes_before: number }>(
      `SELECT DISTINCT minutes_before FROM reminders r JOIN participations p ON p.id = r.participation_id
         WHERE p.crm_id = $1 ORDER BY 1`,
      [b.p.crmId],
    );
    expect(offsets.map((o) => o.minutes_before)).toEqual([30, 120]);

    expect(
      (await b.p.call('PUT', `/provider/${encodeURIComponent(b.provider.providerRef)}`, { reminderMinutesBefore: [] }))
        .statusCode,
    ).toBe(200);
    expect(await run(Date.parse(other.start) - 1000)).toBe(0);
    const bad = await b.p.call('PUT', `/provider/${encodeURIComponent(b.provider.providerRef)}`, {
      reminderMinutesBefore: [0],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].message).toContain('body.reminderMinutesBefore');
  });

  it("the service's own job sends a reminder once its time has come, not before", async () => {
    const b = await setupBooking(t, { timeZone: 'Europe/Berlin', product: { name: 'Besichtigung' } });
    const start = DateTime.now().plus({ minutes: 60, seconds: 3 }).set({ millisecond: 0 });
    await createTimeslots(b, [{ start: start.toISO(), end: start.plus({ minutes: 30 }).toISO(), raster: 30 }]);
    const who = consumer();
    await bookSlot(t, b, (await slotsOf(b))[0], who);
    // the job runs every 10 s: waited for, with a generous ceiling, never timed
    const mail = await waitForMail(who.email, /^Erinnerung: Besichtigung am /, 75_000);
    // written at or after its time (start - 60 min), by the database's clock
    const [written] = await t.db.query<{ early: boolean }>(
      `SELECT created_at < $2::timestamptz AS early FROM outbox WHERE recipient = $1 AND template = 'booking-reminder'`,
      [who.email, new Date(start.toMillis() - 60 * MIN)],
    );
    expect(written.early).toBe(false);
    expect(mail.text).toContain('wir möchten Sie an Ihren Termin erinnern.');
  }, 120_000);

  it('sends exactly once when several runs claim at the same time', async () => {
    const b = await offer();
    const slots = await slotsOf(b);
    for (const s of slots) await bookSlot(t, b, s);
    // the day-before reminders of all and the hour-before one of the first are due then
    const at = Date.parse(slots[0].start) - 60 * MIN + 1000;
    const runs = [run(at), run(at), run(at)];
    if (currentBackend() === 'postgres') {
      // a second instance on the same database
      const other = await t.database.openAnother();
      runs.push(sendDueReminders({ db: other, config: t.config }, new Date(at)));
    }
    const sent = (await Promise.all(runs)).reduce((a, n) => a + n, 0);
    expect(sent).toBe(slots.length + 1);
    expect(await reminderMails(b.p.crmId)).toHaveLength(slots.length + 1);
    expect(await run(at + 1000)).toBe(0);
  });
});
