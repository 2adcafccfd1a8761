/**
 * CalDAV (DESIGN.md §7.6) against a real server, Debian's radicale: the provider's events block,
 * and every appointment with a REQUESTED or BOOKED participation is written back (UID = the
 * appointment's id, CONFIRMED, no consumer e-mail or mobile), removed when nothing live is left,
 * never counted as busy itself, and written later when the server was down (nothing lost).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  consumer,
  createTimeslots,
  flatten,
  publicCall,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { bookSlot, moveBodyFor, participationOfToken, reschedule } from '../helpers/lifecycleFixtures.js';
import { skipWithoutRadicale, startRadicale, type Radicale } from '../helpers/radicale.js';

const skip = skipWithoutRadicale();
let t: TestApp;
let dav: Radicale;
beforeAll(async () => {
  if (skip) return;
  dav = await startRadicale();
  t = await startTestApp({ calendarAllowPrivateNetworks: true, calendarPollMs: 50 }, undefined, { jobs: true });
});
afterAll(async () => {
  await t?.close();
  await dav?.close();
});

const auth = () => ({ authorization: `Basic ${Buffer.from(`${dav.username}:${dav.password}`).toString('base64')}` });

async function putRaw(collection: string, uid: string, start: string, end: string) {
  const body = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260501T000000Z',
    `DTSTART:${start}`,
    `DTEND:${end}`,
    'SUMMARY:Private',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
  const res = await fetch(`${collection}${uid}.ics`, {
    method: 'PUT',
    headers: { ...auth(), 'content-type': 'text/calendar' },
    body,
  });
  expect(res.status).toBeLessThan(300);
}

/** The event the service wrote for the appointment, or null. */
async function written(collection: string, appointmentId: string): Promise<string | null> {
  const res = await fetch(`${collection}${appointmentId}.ics`, { headers: auth() });
  return res.status === 404 ? null : res.text();
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = await read();
  while (!ok(value) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

async function ground(resource?: object): Promise<Booking> {
  const b = await setupBooking(t, { resource });
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 }]);
  return b;
}
const slotsOf = async (b: Booking) => flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));

describe.skipIf(skip)('a CalDAV calendar', () => {
  it('blocks with its events, and gets the bookings written back; they never block themselves', async () => {
    const b = await ground();
    const collection = await dav.makeCalendar(`work-${Date.now()}`);
    await putRaw(collection, 'dentist', '20260602T073000Z', '20260602T080000Z'); // 09:30 Berlin
    const res = await b.p.call('POST', `${b.base}/calendar-subscriptions`, {
      resourceReference: b.resource.reference,
      caldav: { url: collection, username: dav.username, password: dav.password },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { subscription } = res.json();
    expect(subscription).toMatchObject({ kind: 'caldav', status: 'OK', busyCount: 1 });
    expect(res.body).not.toContain(dav.password);
    const slots = await slotsOf(b);
    expect(slots.map((s) => s.start.slice(11, 16))).toEqual(['09:00', '10:00', '10:30']);

    const booked = await bookSlot(
      t,
      b,
      slots[0],
      consumer({ email: 'anna.consumer@example.org', mobile: '+4917612345678' }),
    );
    const event = await eventually(
      () => written(collection, booked.appointment_uuid),
      (e) => e !== null,
    );
    expect(event).toContain(`UID:${booked.appointment_uuid}`);
    expect(event).toContain('STATUS:CONFIRMED');
    expect(event).not.toContain('anna.consumer');
    expect(event).not.toContain('12345678');

    // its own event does not count as busy on the next read
    const sync = await b.p.call('POST', `${b.base}/calendar-subscriptions/${subscription.id}/sync`);
    expect(sync.json().subscription).toMatchObject({ status: 'OK', busyCount: 1 });

    // cancelled: nothing live is left, the event goes
    const cancel = await publicCall(t, 'POST', `/cancel/${encodeURIComponent(booked.token)}`);
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(
      await eventually(
        () => written(collection, booked.appointment_uuid),
        (e) => e === null,
      ),
    ).toBeNull();
  });

  it('writes a request as TENTATIVE, a booking as CONFIRMED, and follows a reschedule', async () => {
    const b = await ground({ channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } });
    const collection = await dav.makeCalendar(`moves-${Date.now()}`);
    const res = await b.p.call('POST', `${b.base}/calendar-subscriptions`, {
      caldav: { url: collection, username: dav.username, password: dav.password },
    });
    expect(res.statusCode, res.body).toBe(201);
    const slots = await slotsOf(b);
    const booked = await bookSlot(t, b, slots[0]);
    expect(
      await eventually(
        () => written(collection, booked.appointment_uuid),
        (e) => e?.includes('STATUS:TENTATIVE') ?? false,
      ),
    ).toContain('STATUS:TENTATIVE');

    const { reference } = await participationOfToken(t, booked.token);
    const confirm = await b.p.call('POST', `${b.base}/participations/${encodeURIComponent(reference)}`, {
      state: 'BOOKED',
    });
    expect(confirm.statusCode, confirm.body).toBe(200);
    expect(
      await eventually(
        () => written(collection, booked.appointment_uuid),
        (e) => e?.includes('STATUS:CONFIRMED') ?? false,
      ),
    ).toContain('STATUS:CONFIRMED');

    const later = (await slotsOf(b)).find((s) => s.start.slice(11, 16) === '10:30')!;
    const moved = await reschedule(t, booked.token, moveBodyFor(later));
    expect(moved.statusCode, moved.body).toBe(200);
    const [row] = await t.db.query<{ appointment_id: string }>(
      'SELECT appointment_id FROM participations WHERE reference = $1',
      [reference],
    );
    expect(row.appointment_id).not.toBe(booked.appointment_uuid);
    const event = await eventually(
      () => written(collection, row.appointment_id),
      (e) => e !== null,
    );
    expect(event).toMatch(/DTSTART[^\r\n]*20260602T083000Z/);
    expect(
      await eventually(
        () => written(collection, booked.appointment_uuid),
        (e) => e === null,
      ),
    ).toBeNull();
  });

  it('refuses a wrong password with 422 and stores nothing', async () => {
    const b = await ground();
    const collection = await dav.makeCalendar(`locked-${Date.now()}`);
    const res = await b.p.call('POST', `${b.base}/calendar-subscriptions`, {
      caldav: { url: collection, username: dav.username, password: 'wrong' },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].errorCode).toBe('CALENDAR_UNREADABLE');
    expect((await b.p.call('GET', `${b.base}/calendar-subscriptions`)).json().subscriptions).toEqual([]);
  });

  it('writes what changed while the server was down once it is back', async () => {
    const b = await ground();
    const collection = await dav.makeCalendar(`flaky-${Date.now()}`);
    const res = await b.p.call('POST', `${b.base}/calendar-subscriptions`, {
      caldav: { url: collection, username: dav.username, password: dav.password },
    });
    expect(res.statusCode, res.body).toBe(201);
    await dav.stop();
    let booked: Awaited<ReturnType<typeof bookSlot>> | undefined;
    try {
      const [first] = await slotsOf(b);
      booked = await bookSlot(t, b, first);
      const failed = await eventually(
        () =>
          t.db.query<{ attempts: number; last_error: string | null }>(
            'SELECT attempts, last_error FROM calendar_writes WHERE appointment_id = $1',
            [booked!.appointment_uuid],
          ),
        (rows) => rows[0]?.last_error != null,
      );
      expect(failed[0].attempts).toBeGreaterThanOrEqual(1);
    } finally {
      await dav.start();
    }
    // the retry is due after its backoff (on the service's clock)
    t.clock.advance(3_600_000);
    const event = await eventually(
      () => written(collection, booked.appointment_uuid),
      (e) => e !== null,
    );
    expect(event).toContain('STATUS:CONFIRMED');
    // the job removes the pending write after the server took it: a moment after the event shows
    const pending = () =>
      t.db.query('SELECT 1 FROM calendar_writes WHERE appointment_id = $1', [booked.appointment_uuid]);
    expect(await eventually(pending, (rows) => rows.length === 0)).toEqual([]);
  });
});
