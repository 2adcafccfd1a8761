/**
 * Rescheduling through the cancel token (docs/lifecycle.md), through HTTP with mails delivered to a real
 * SMTP server: one transaction takes the new place and frees the old one, the participation keeps
 * its id and reference, the calendar entry its UID with a higher SEQUENCE; a refusal changes nothing;
 * concurrent moves into one place leave exactly one winner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  consumer,
  createTimeslots,
  flatten,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';
import { bookSlot, moveBodyFor, participationOfToken, reschedule, setWindow } from '../helpers/lifecycleFixtures.js';
import { SmtpSink, type ReceivedMail } from '../helpers/smtpSink.js';

let sink: SmtpSink;
let t: TestApp;
beforeAll(async () => {
  sink = await SmtpSink.start();
  // the test clock stands at 2026-06-01T08:00Z (10:00 in Berlin)
  t = await startTestApp(
    { smtpUrl: sink.url, mailPollMs: 50, publicBaseUrl: 'https://book.example', bookingRateLimitPerMinute: 100_000 },
    undefined,
    { jobs: true },
  );
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

async function mailsTo(address: string, count: number, timeoutMs = 25_000): Promise<ReceivedMail[]> {
  const until = Date.now() + timeoutMs;
  while (sink.to(address).length < count) {
    if (Date.now() > until)
      throw new Error(
        `expected ${count} mails to ${address}, got ${sink
          .to(address)
          .map((m) => m.subject)
          .join(' | ')}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
  await new Promise((r) => setTimeout(r, 200));
  return sink.to(address);
}

const unfold = (ics: string) => ics.replace(/\r?\n[ \t]/g, '');
const icsField = (ics: string, name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(unfold(ics))?.[1]?.trim();

async function offer(
  options: Parameters<typeof setupBooking>[1] = {},
  timeslots: object[] = [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00', raster: 60 }],
) {
  const b = await setupBooking(t, { product: { name: 'Besichtigung' }, ...options });
  await createTimeslots(b, timeslots);
  return b;
}

const listed = async (b: Booking) => flatten(await upcoming(t, b.resource.reference));
const at = (slots: ListedBookable[], hhmm: string) => {
  const found = slots.find((s) => s.start.includes(`T${hhmm}`));
  if (!found) throw new Error(`no slot at ${hhmm}: ${slots.map((s) => s.start).join(', ')}`);
  return found;
};

async function providerEmail(b: Booking): Promise<string> {
  const [row] = await t.db.query<{ email: string }>('SELECT email FROM providers WHERE reference = $1', [
    b.provider.providerRef,
  ]);
  return row.email;
}

describe('reschedule through the cancel link', () => {
  it('moves a booking in one step: same participation, new slot, old one free, same UID, higher SEQUENCE', async () => {
    const b = await offer();
    const who = consumer({ firstname: 'Erika', lastname: 'Muster' });
    const booked = await bookSlot(t, b, at(await listed(b), '09:00'), who);
    const before = await participationOfToken(t, booked.token);
    const [confirmation] = await mailsTo(who.email, 1);

    const res = await reschedule(t, booked.token, moveBodyFor(at(await listed(b), '11:00')));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const moved = res.json().createdAppointment;
    expect(moved).toMatchObject({
      kind: 'models.LotAppointment',
      start: '2026-06-02T11:00:00+02:00',
      end: '2026-06-02T12:00:00+02:00',
      capacity: 1,
      capacity_left: 0,
    });
    expect(moved.cancelLink).toBe(booked.cancelLink);

    const after = await participationOfToken(t, booked.token);
    expect(after).toMatchObject({
      id: before.id,
      reference: before.reference,
      state: 'BOOKED',
      appointment_id: moved.appointment_uuid,
    });
    expect(after.appointment_id).not.toBe(before.appointment_id);
    // the old public-flow appointment is gone, its slot offered again; the new one is taken
    expect(await t.db.query('SELECT 1 FROM appointments WHERE id = $1', [before.appointment_id])).toHaveLength(0);
    expect((await listed(b)).map((s) => s.start)).toEqual(['2026-06-02T09:00:00+02:00', '2026-06-02T10:00:00+02:00']);

    const [, rescheduled] = await mailsTo(who.email, 2);
    expect(rescheduled.subject).toBe('Termin verschoben: Besichtigung am 2. Juni 2026');
    expect(rescheduled.text).toMatch(/Wann: +Dienstag, 2\. Juni 2026, 11:00–12:00 Uhr/);
    expect(rescheduled.text).toMatch(/Bisher: +Dienstag, 2\. Juni 2026, 09:00–10:00 Uhr/);
    expect(rescheduled.text).toContain(booked.cancelLink);
    expect(rescheduled.calendar?.method).toBe('REQUEST');
    const invite = confirmation.calendar!.content;
    const update = rescheduled.calendar!.content;
    expect(icsField(update, 'UID')).toBe(icsField(invite, 'UID'));
    expect(Number(icsField(update, 'SEQUENCE'))).toBeGreaterThan(Number(icsField(invite, 'SEQUENCE')));
    expect(icsField(update, 'DTSTART')).toBe('20260602T090000Z');

    const providerMails = await mailsTo(await providerEmail(b), 2);
    expect(providerMails[1].subject).toBe('Termin verschoben: Besichtigung am 2. Juni 2026 (Erika Muster)');
    expect(providerMails[1].calendar).toBeUndefined();

    // the link still cancels, now the moved booking, with the same UID and a still higher SEQUENCE
    const cancelled = await t.app.inject({ method: 'POST', url: new URL(booked.cancelLink).pathname });
    expect(cancelled.statusCode).toBe(200);
    const [, , cancelMail] = await mailsTo(who.email, 3);
    expect(icsField(cancelMail.calendar!.content, 'UID')).toBe(icsField(invite, 'UID'));
    expect(Number(icsField(cancelMail.calendar!.content, 'SEQUENCE'))).toBeGreaterThan(
      Number(icsField(update, 'SEQUENCE')),
    );
  });

  it('moves to a time that overlaps the old one (the old appointment no longer blocks it)', async () => {
    const b = await offer({ product: { name: 'Lang', minDuration: 60 } }, [
      { start: '2026-06-02T09:00', end: '2026-06-02T12:00', raster: 30 },
    ]);
    const booked = await bookSlot(t, b, at(await listed(b), '09:00'));
    const res = await reschedule(
      t,
      booked.token,
      moveBodyFor({
        ...at(await listed(b), '10:00'),
        start: '2026-06-02T09:30:00+02:00',
        end: '2026-06-02T10:30:00+02:00',
      }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().createdAppointment.start).toBe('2026-06-02T09:30:00+02:00');
  });

  it('leaves the booking for a taken slot (412 "201"), one past the window (412) or no slot (400)', async () => {
    const b = await offer();
    const mine = await bookSlot(t, b, at(await listed(b), '09:00'));
    const target = at(await listed(b), '10:00');
    await bookSlot(t, b, target);
    const before = await participationOfToken(t, mine.token);
    const mailsBefore = (await t.db.query('SELECT 1 FROM outbox WHERE crm_id = $1', [b.p.crmId])).length;

    const taken = await reschedule(t, mine.token, moveBodyFor(target));
    expect(taken.statusCode, taken.body).toBe(412);
    expect(taken.json().errors[0].errorCode).toBe('201');

    // 11:00 tomorrow is 25 hours ahead: inside a notice of 25.5 hours
    const window = await setWindow(b, { minNoticeMinutes: 24 * 60 + 90 });
    expect(window.bookingWindow).toEqual({ minNoticeMinutes: 1530, maxAdvanceDays: null, cancelNoticeMinutes: null });
    const free = { start: '2026-06-02T11:00', end: '2026-06-02T12:00', timeslot_uuid: target.timeslot_uuid };
    const windowed = await reschedule(t, mine.token, free);
    expect(windowed.statusCode).toBe(412);
    expect(windowed.json().errors[0].errorCode).toBe('BOOKING_WINDOW');
    await setWindow(b, null);

    const notASlot = await reschedule(t, mine.token, { ...free, end: '2026-06-02T11:30' });
    expect(notASlot.statusCode).toBe(400);
    expect(notASlot.json().errors[0].message).toContain('body.start');

    expect(await participationOfToken(t, mine.token)).toEqual(before);
    expect((await t.db.query('SELECT 1 FROM outbox WHERE crm_id = $1', [b.p.crmId])).length).toBe(mailsBefore);
  });

  it('answers 404 to a forged token, 409 for a cancelled booking, 200 without mail for its own slot', async () => {
    const b = await offer();
    const slot = at(await listed(b), '09:00');
    const booked = await bookSlot(t, b, slot);
    const forged = await reschedule(t, `${booked.token.split('.')[0]}.AAAA`, moveBodyFor(slot));
    expect(forged.statusCode).toBe(404);

    const same = await reschedule(t, booked.token, {
      start: booked.start,
      end: booked.end,
      timeslot_uuid: booked.appointment_uuid,
    });
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json().createdAppointment.appointment_uuid).toBe(booked.appointment_uuid);
    await new Promise((r) => setTimeout(r, 300));
    expect(
      await t.db.query(`SELECT 1 FROM outbox WHERE crm_id = $1 AND template LIKE 'booking-rescheduled%'`, [b.p.crmId]),
    ).toHaveLength(0);

    expect((await t.app.inject({ method: 'POST', url: new URL(booked.cancelLink).pathname })).statusCode).toBe(200);
    const cancelled = await reschedule(t, booked.token, moveBodyFor(at(await listed(b), '10:00')));
    expect(cancelled.statusCode).toBe(409);
    expect(cancelled.json().errors[0].errorCode).toBe('INVALID_TRANSITION');
  });

  it('refuses inside the cancel notice with 409, and the manage page explains it', async () => {
    // the clock stands at 10:00 Berlin; the booking is at 11:00 today, the notice two hours
    const b = await offer({}, [{ start: '2026-06-01T11:00', end: '2026-06-01T13:00', raster: 60 }]);
    const booked = await bookSlot(t, b, at(await listed(b), '11:00'));
    await setWindow(b, { cancelNoticeMinutes: 120 });
    const res = await reschedule(t, booked.token, moveBodyFor(at(await listed(b), '12:00')));
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'CANCEL_NOTICE' });
    const page = await t.app.inject({ method: 'GET', url: `${new URL(booked.cancelLink).pathname}?lang=en` });
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('Too late to change');
    expect(page.body).toContain(
      'Less than 2 hours before it starts, this appointment can no longer be cancelled or moved online.',
    );
    expect(page.body).not.toContain('<form');
    const cancel = await t.app.inject({ method: 'POST', url: new URL(booked.cancelLink).pathname });
    expect(cancel.statusCode).toBe(409);
    expect((await participationOfToken(t, booked.token)).state).toBe('BOOKED');
  });

  it('the manage page offers another time with the slot picker, and the cancel form', async () => {
    const b = await offer();
    const booked = await bookSlot(t, b, at(await listed(b), '09:00'), consumer({ locale: 'en' }));
    const page = await t.app.inject({ method: 'GET', url: new URL(booked.cancelLink).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Manage your booking</h1>');
    expect(page.body).toContain('<h2>Choose another time</h2>');
    expect(page.body).toContain(`data-ref="${b.resource.uuid}"`);
    expect(page.body).toContain(`data-prd-ref="${b.product.uuid}"`);
    expect(page.body).toContain('<script src="../widget.js"></script><script src="../widget/manage.js"></script>');
    expect(page.body).toMatch(/<form method="post"><button type="submit">Cancel the appointment<\/button><\/form>/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await t.app.inject({ method: 'GET', url: '/widget/manage.js' })).statusCode).toBe(200);
  });
});

describe('concurrent reschedules into one place', () => {
  it('exactly one of them wins; every other booking stays where it was', async () => {
    const RACERS = 8;
    const b = await offer({}, [
      { start: '2026-06-03T08:00', end: `2026-06-03T${String(8 + RACERS + 1).padStart(2, '0')}:00`, raster: 60 },
    ]);
    const slots = await listed(b);
    const target = slots[RACERS];
    const bookings = await Promise.all(slots.slice(0, RACERS).map((s) => bookSlot(t, b, s)));
    const before = await Promise.all(bookings.map((x) => participationOfToken(t, x.token)));

    const answers = await Promise.all(bookings.map((x) => reschedule(t, x.token, moveBodyFor(target))));
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses, answers.map((a) => a.body).join('\n')).toEqual([200, ...Array(RACERS - 1).fill(412)]);

    const after = await Promise.all(bookings.map((x) => participationOfToken(t, x.token)));
    const winner = answers.findIndex((a) => a.statusCode === 200);
    after.forEach((p, i) => {
      expect(p.state).toBe('BOOKED');
      if (i === winner) expect(p.appointment_id).toBe(answers[winner].json().createdAppointment.appointment_uuid);
      else expect(p.appointment_id).toBe(before[i].appointment_id);
    });
    const [{ n }] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM participations p JOIN appointments a ON a.id = p.appointment_id
        WHERE a.resource_id = $1 AND a.start_at = $2 AND p.state = 'BOOKED'`,
      [b.resource.uuid, new Date(target.start)],
    );
    expect(n).toBe(1);
  });
});
