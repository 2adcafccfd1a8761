/**
 * Booking windows per resource (docs/lifecycle.md): B3/B4 member `bookingWindow`; A1 lists only slots
 * inside it (also from its cache, as time passes); A2/A3 outside it are 412 BOOKING_WINDOW.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { setWindow } from '../helpers/lifecycleFixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the clock stands at 2026-06-01T08:00Z, 10:00 in Berlin
  t = await startTestApp({ bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000 });
});
afterAll(() => t.close());

async function offer(): Promise<Booking> {
  const b = await setupBooking(t, { timeZone: 'Europe/Berlin' });
  await createTimeslots(b, [
    { start: '2026-06-01T11:00', end: '2026-06-01T13:00', raster: 30 },
    { start: '2026-06-02T09:00', end: '2026-06-02T10:00', raster: 30 },
    { start: '2026-06-03T09:00', end: '2026-06-03T10:00', raster: 30 },
  ]);
  return b;
}

const starts = async (b: Booking) => flatten(await upcoming(t, b.resource.reference)).map((s) => s.start.slice(5, 16));

describe('bookingWindow on resources', () => {
  it('is answered with every member (null: no limit); given members replace stored ones, null clears', async () => {
    const b = await offer();
    const list = async () => (await b.p.call('GET', `${b.base}/resources`)).json()[0].bookingWindow;
    expect(await list()).toEqual({ minNoticeMinutes: null, maxAdvanceDays: null, cancelNoticeMinutes: null });
    expect((await setWindow(b, { minNoticeMinutes: 60, maxAdvanceDays: 7 })).bookingWindow).toEqual({
      minNoticeMinutes: 60,
      maxAdvanceDays: 7,
      cancelNoticeMinutes: null,
    });
    expect((await setWindow(b, { cancelNoticeMinutes: 1440, maxAdvanceDays: null })).bookingWindow).toEqual({
      minNoticeMinutes: 60,
      maxAdvanceDays: null,
      cancelNoticeMinutes: 1440,
    });
    expect(await list()).toEqual({ minNoticeMinutes: 60, maxAdvanceDays: null, cancelNoticeMinutes: 1440 });
    expect((await setWindow(b, null)).bookingWindow).toEqual({
      minNoticeMinutes: null,
      maxAdvanceDays: null,
      cancelNoticeMinutes: null,
    });

    const created = await b.p.call('POST', `${b.base}/resources`, {
      reference: 'windowed@crm',
      publicName: 'W',
      internalName: 'W',
      bookingWindow: { maxAdvanceDays: 0 },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().bookingWindow).toEqual({
      minNoticeMinutes: null,
      maxAdvanceDays: 0,
      cancelNoticeMinutes: null,
    });
  });

  it('refuses negative, fractional or unknown members with 400 naming the field', async () => {
    const b = await offer();
    const put = (bookingWindow: unknown) =>
      b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, { bookingWindow });
    for (const [window, field] of [
      [{ minNoticeMinutes: -1 }, 'body.bookingWindow.minNoticeMinutes'],
      [{ maxAdvanceDays: 1.5 }, 'body.bookingWindow.maxAdvanceDays'],
      [{ cancelNoticeMinutes: 'soon' }, 'body.bookingWindow.cancelNoticeMinutes'],
      [{ noticeMinutes: 5 }, 'body.bookingWindow.noticeMinutes'],
    ] as const) {
      const res = await put(window);
      expect(res.statusCode, JSON.stringify(window)).toBe(400);
      expect(res.json().errors[0].message).toContain(field);
    }
  });
});

describe('A1, A2 and A3 inside the booking window', () => {
  it('lists only slots at least minNotice ahead and refuses earlier ones with 412 BOOKING_WINDOW', async () => {
    const b = await offer();
    expect(await starts(b)).toEqual([
      '06-01T11:00',
      '06-01T11:30',
      '06-01T12:00',
      '06-01T12:30',
      '06-02T09:00',
      '06-02T09:30',
      '06-03T09:00',
      '06-03T09:30',
    ]);
    await setWindow(b, { minNoticeMinutes: 90 });
    const listed = await starts(b);
    expect(listed.slice(0, 2)).toEqual(['06-01T11:30', '06-01T12:00']);

    const tooSoon = {
      timeslot_uuid: flatten(await upcoming(t, b.resource.reference))[0].timeslot_uuid,
      from: '2026-06-01T09:00:00Z',
      to: '2026-06-01T09:30:00Z',
    };
    const res = await reserve(t, b.resource.reference, { ...tooSoon, product_uuid: b.product.uuid });
    expect(res.statusCode).toBe(412);
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'BOOKING_WINDOW' });
    expect(res.json().errors[0].message).toContain('90 minutes');
    const booked = await book(t, b.resource.reference, {
      start: '2026-06-01T11:00',
      end: '2026-06-01T11:30',
      timeslot_uuid: tooSoon.timeslot_uuid,
      product_uuid: b.product.uuid,
      ...consumer(),
    });
    expect(booked.statusCode).toBe(412);
    expect(booked.json().errors[0].errorCode).toBe('BOOKING_WINDOW');
  });

  it('drops a cached slot once it comes closer than minNotice, with no change in between', async () => {
    const b = await offer();
    await setWindow(b, { minNoticeMinutes: 60 });
    expect((await starts(b))[0]).toBe('06-01T11:00');
    t.clock.advance(60_000); // 10:01: 11:00 is 59 minutes ahead
    try {
      expect((await starts(b))[0]).toBe('06-01T11:30');
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('lists up to the end of the day maxAdvanceDays ahead in the provider zone, and refuses later slots', async () => {
    const b = await offer();
    await setWindow(b, { maxAdvanceDays: 1 });
    expect(await starts(b)).toEqual([
      '06-01T11:00',
      '06-01T11:30',
      '06-01T12:00',
      '06-01T12:30',
      '06-02T09:00',
      '06-02T09:30',
    ]);
    const [later] = flatten(await upcoming(t, b.resource.reference)).slice(-1);
    const third = { ...later, start: '2026-06-03T09:00:00+02:00', end: '2026-06-03T09:30:00+02:00' };
    const all = await t.db.query<{ id: string }>(
      `SELECT id FROM timeslots WHERE resource_id = $1 AND start_at = '2026-06-03T07:00:00Z'`,
      [b.resource.uuid],
    );
    third.timeslot_uuid = all[0].id;
    const held = await reserve(t, b.resource.reference, reserveBodyFor(third, b.product.uuid));
    expect(held.statusCode).toBe(412);
    expect(held.json().errors[0].errorCode).toBe('BOOKING_WINDOW');
    expect((await book(t, b.resource.reference, bookBodyFor(third, b.product.uuid))).statusCode).toBe(412);

    // at midnight in Berlin (22:00 UTC) the window moves a day on, also for a cached answer
    t.clock.set('2026-06-01T22:00:00Z');
    try {
      expect(await starts(b)).toEqual(['06-02T09:00', '06-02T09:30', '06-03T09:00', '06-03T09:30']);
      expect((await reserve(t, b.resource.reference, reserveBodyFor(third, b.product.uuid))).statusCode).toBe(201);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('checks the window when A3 completes a hold too', async () => {
    const b = await offer();
    const [slot] = flatten(await upcoming(t, b.resource.reference));
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid));
    expect(held.statusCode).toBe(201);
    await setWindow(b, { minNoticeMinutes: 120 });
    const res = await book(
      t,
      b.resource.reference,
      bookBodyFor(slot, b.product.uuid, held.json().participation.customer_uuid),
    );
    expect(res.statusCode).toBe(412);
    expect(res.json().errors[0].errorCode).toBe('BOOKING_WINDOW');
  });
});
