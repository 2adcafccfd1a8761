/**
 * Booking limits (issue 53, DESIGN 7.11, docs/api.md "Booking limits"): `bookingLimits` on a
 * resource (B3/B4) and `maxUpcomingBookingsPerConsumer` on a provider (C5/PUT). A1 leaves out the
 * dates and weeks at their limit in the provider's zone; A2, A3 and reschedule there answer 412
 * BOOKING_LIMIT; the partner's D6/D9 are not refused; a consumer at the provider's limit gets 409
 * CONSUMER_LIMIT on A3. The races are in booking-limits-race.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { book, bookBodyFor, consumer, createTimeslots, flatten, reserve, setupBooking, upcoming, type Booking, type ListedBookable } from '../helpers/bookingFixtures.js';
import { bookSlot, moveBodyFor, participationOfToken, reschedule } from '../helpers/lifecycleFixtures.js';
import { createAppointment, participate, createCustomer, type Scheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the clock stands at Monday 2026-06-01T08:00Z, 10:00 in Berlin (ISO week 2026-W23)
  t = await startTestApp({ bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000, publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

const ZONE = 'Europe/Berlin';
const enc = encodeURIComponent;

async function offer(timeslots: object[], limits?: object): Promise<Booking & { timeslots: { uuid: string }[] }> {
  const b = await setupBooking(t, { timeZone: ZONE });
  const created = timeslots.length > 0 ? await createTimeslots(b, timeslots) : [];
  if (limits) await setLimits(b, limits);
  return { ...b, timeslots: created };
}

async function setLimits(b: Booking, bookingLimits: object | null) {
  const res = await b.p.call('POST', `${b.base}/resources/${enc(b.resource.reference)}`, { bookingLimits });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().bookingLimits;
}

const listed = async (b: Booking) => flatten(await upcoming(t, b.resource.reference));
/** The listed starts as MM-DDTHH:mm in the provider's zone. */
const starts = async (b: Booking) => (await listed(b)).map((s) => s.start.slice(5, 16));
const at = (slots: ListedBookable[], start: string) => {
  const found = slots.find((s) => s.start.startsWith(start));
  if (!found) throw new Error(`no slot at ${start}: ${slots.map((s) => s.start).join(', ')}`);
  return found;
};

/** A2's body for a raster slot of a timeslot, listed or not (local times with the offset). */
const slotBody = (b: Booking & { timeslots: { uuid: string }[] }, i: number, from: string, to: string) => ({
  timeslot_uuid: b.timeslots[i].uuid,
  product_uuid: b.product.uuid,
  from,
  to,
});

const errorOf = (res: { statusCode: number; json(): { errors: { errorCode: string; message: string }[] } }) => ({ status: res.statusCode, ...res.json().errors[0] });

describe('bookingLimits on resources (B3/B4)', () => {
  it('is answered with both members (null: none); B4 replaces the whole object, null clears it', async () => {
    const b = await offer([]);
    const list = async () => (await b.p.call('GET', `${b.base}/resources`)).json()[0].bookingLimits;
    expect(await list()).toEqual({ perDay: null, perWeek: null });
    expect(await setLimits(b, { perDay: 3 })).toEqual({ perDay: 3, perWeek: null });
    expect(await setLimits(b, { perWeek: 10 })).toEqual({ perDay: null, perWeek: 10 });
    expect(await setLimits(b, { perDay: 2, perWeek: 5 })).toEqual({ perDay: 2, perWeek: 5 });
    expect(await list()).toEqual({ perDay: 2, perWeek: 5 });
    // a B4 without the member leaves the limits as they are
    const renamed = await b.p.call('POST', `${b.base}/resources/${enc(b.resource.reference)}`, { publicName: 'Renamed' });
    expect(renamed.json().bookingLimits).toEqual({ perDay: 2, perWeek: 5 });
    expect(await setLimits(b, { perDay: null })).toEqual({ perDay: null, perWeek: null });
    await setLimits(b, { perDay: 1 });
    expect(await setLimits(b, null)).toEqual({ perDay: null, perWeek: null });

    const created = await b.p.call('POST', `${b.base}/resources`, { reference: 'limited@crm', publicName: 'L', internalName: 'L', bookingLimits: { perWeek: 4 } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().bookingLimits).toEqual({ perDay: null, perWeek: 4 });
  });

  it('refuses zero, negative, fractional, non-numeric or unknown members with 400 naming the field', async () => {
    const b = await offer([]);
    for (const [limits, field] of [
      [{ perDay: 0 }, 'body.bookingLimits.perDay'],
      [{ perDay: -2 }, 'body.bookingLimits.perDay'],
      [{ perWeek: 1.5 }, 'body.bookingLimits.perWeek'],
      [{ perWeek: 'many' }, 'body.bookingLimits.perWeek'],
      [{ perMonth: 5 }, 'body.bookingLimits.perMonth'],
      [7, 'body.bookingLimits'],
    ] as const) {
      const res = await b.p.call('POST', `${b.base}/resources/${enc(b.resource.reference)}`, { bookingLimits: limits });
      expect(res.statusCode, JSON.stringify(limits)).toBe(400);
      expect(res.json().errors[0].message).toContain(field);
    }
    expect((await b.p.call('GET', `${b.base}/resources`)).json()[0].bookingLimits).toEqual({ perDay: null, perWeek: null });
  });
});

describe('maxUpcomingBookingsPerConsumer on providers (C5, PUT)', () => {
  it('is answered (null: none), set by C5 and PUT, cleared by null, and refused below 1 with 400 naming the field', async () => {
    const b = await setupBooking(t);
    const path = `/provider/${enc(b.provider.providerRef)}`;
    expect((await b.p.call('GET', path)).json().provider.maxUpcomingBookingsPerConsumer).toBeNull();
    const put = (value: unknown) => b.p.call('PUT', path, { maxUpcomingBookingsPerConsumer: value });
    expect((await put(2)).json().provider.maxUpcomingBookingsPerConsumer).toBe(2);
    expect((await b.p.call('GET', path)).json().provider.maxUpcomingBookingsPerConsumer).toBe(2);
    expect((await b.p.call('PUT', path, { name: 'Renamed' })).json().provider.maxUpcomingBookingsPerConsumer).toBe(2);
    expect((await put(null)).json().provider.maxUpcomingBookingsPerConsumer).toBeNull();
    for (const bad of [0, -1, 2.5, 'two']) {
      const res = await put(bad);
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().errors[0].message).toContain('body.maxUpcomingBookingsPerConsumer');
    }

    const created = await b.p.call('POST', '/provider', {
      reference: 'limited-provider@crm',
      ownerReference: b.provider.ownerRef,
      accountReference: b.provider.accountRef,
      name: 'Limited',
      maxUpcomingBookingsPerConsumer: 3,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().provider.maxUpcomingBookingsPerConsumer).toBe(3);
  });
});

describe('a date at its limit', () => {
  const timeslots = [
    { start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 },
    // 23:00 and 23:30 are the 2nd in Berlin, 00:00 and 00:30 the 3rd (in UTC all four are the 2nd)
    { start: '2026-06-02T23:00', end: '2026-06-03T01:00', raster: 30 },
    { start: '2026-06-03T09:00', end: '2026-06-03T10:00', raster: 30 },
  ];

  it('is left out of A1 in the provider zone; A2 and A3 there answer 412 BOOKING_LIMIT saying which limit; a hold counts once', async () => {
    const b = await offer(timeslots, { perDay: 2 });
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:00'));
    const held = await reserve(t, b.resource.reference, slotBody(b, 0, '2026-06-02T09:30:00+02:00', '2026-06-02T10:00:00+02:00'));
    expect(held.statusCode, held.body).toBe(201);
    // two live participations on the 2nd (a booking and a hold): its slots are gone, the 3rd's stay
    expect(await starts(b)).toEqual(['06-03T00:00', '06-03T00:30', '06-03T09:00', '06-03T09:30']);

    const message = "2026-06-02 (Europe/Berlin) has reached this resource's limit of 2 bookings a day; choose another day";
    const reserved = await reserve(t, b.resource.reference, slotBody(b, 1, '2026-06-02T23:30:00+02:00', '2026-06-03T00:00:00+02:00'));
    expect(errorOf(reserved)).toEqual({ status: 412, errorCode: 'BOOKING_LIMIT', message: `body.from: ${message}` });
    const body = { start: '2026-06-02T10:00', end: '2026-06-02T10:30', timeslot_uuid: b.timeslots[0].uuid, product_uuid: b.product.uuid, ...consumer() };
    expect(errorOf(await book(t, b.resource.reference, body))).toEqual({ status: 412, errorCode: 'BOOKING_LIMIT', message: `body.start: ${message}` });

    // the hold, converted by A3, is not counted twice
    const holdSlot = { start: '2026-06-02T09:30:00+02:00', end: '2026-06-02T10:00:00+02:00', timeslot_uuid: b.timeslots[0].uuid } as ListedBookable;
    const converted = await book(t, b.resource.reference, bookBodyFor(holdSlot, b.product.uuid, held.json().participation.customer_uuid));
    expect(converted.statusCode, converted.body).toBe(201);
    expect(await starts(b)).toEqual(['06-03T00:00', '06-03T00:30', '06-03T09:00', '06-03T09:30']);
    // the next date has its own count
    expect((await reserve(t, b.resource.reference, slotBody(b, 1, '2026-06-03T00:00:00+02:00', '2026-06-03T00:30:00+02:00'))).statusCode).toBe(201);

    // without the limit the date is listed again, at once
    await setLimits(b, null);
    expect((await starts(b)).filter((s) => s.startsWith('06-02'))).toEqual(['06-02T10:00', '06-02T10:30', '06-02T23:00', '06-02T23:30']);
  });

  it('comes back in A1 when a hold on it expires, also from the cache, with no change in between', async () => {
    const b = await offer(timeslots, { perDay: 1 });
    const held = await reserve(t, b.resource.reference, slotBody(b, 0, '2026-06-02T09:00:00+02:00', '2026-06-02T09:30:00+02:00'));
    expect(held.statusCode, held.body).toBe(201);
    expect((await starts(b)).some((s) => s.startsWith('06-02'))).toBe(false);
    const [{ hold_until }] = await t.db.query<{ hold_until: Date }>('SELECT hold_until FROM participations WHERE id = $1', [held.json().participation.uuid]);
    t.clock.set(new Date(hold_until.getTime() + 1000));
    try {
      expect((await starts(b)).filter((s) => s.startsWith('06-02'))).toHaveLength(6);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it("does not refuse the partner's D6 and D9, whose bookings count for the public flow", async () => {
    const b = await offer(timeslots, { perDay: 1 });
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:00'));
    const s: Scheduling = { p: b.p, provider: b.provider, productRef: b.product.reference, resourceRef: b.resource.reference, base: b.base };
    const appointment = await createAppointment(s, { start: '2026-06-02T14:00', end: '2026-06-02T15:00', capacity: 3 });
    const customer = await createCustomer(s);
    const joined = await participate(s, { appointmentReference: appointment.reference, customerReference: customer.customerReference });
    expect(joined.statusCode, joined.body).toBe(201);
    // the group appointment has places left, but its date is over the limit: not listed, and not joinable
    const slots = await listed(b);
    expect(slots.filter((x) => x.start.startsWith('2026-06-02'))).toEqual([]);
    const join = await reserve(t, b.resource.reference, { appointment_uuid: appointment.uuid, product_uuid: b.product.uuid, from: '2026-06-02T14:00', to: '2026-06-02T15:00' });
    expect(errorOf(join)).toMatchObject({ status: 412, errorCode: 'BOOKING_LIMIT' });
  });
});

describe('a week at its limit', () => {
  it('crossing a month: A1 leaves out the ISO week, A2 there answers 412 BOOKING_LIMIT naming the week', async () => {
    // ISO week 2026-W27 runs from Monday 2026-06-29 to Sunday 2026-07-05
    const b = await offer(
      [
        { start: '2026-06-28T09:00', end: '2026-06-28T10:00', raster: 30 },
        { start: '2026-06-30T09:00', end: '2026-06-30T10:00', raster: 30 },
        { start: '2026-07-02T09:00', end: '2026-07-02T10:00', raster: 30 },
        { start: '2026-07-05T23:00', end: '2026-07-06T00:30', raster: 30 },
      ],
      { perWeek: 2 },
    );
    await bookSlot(t, b, at(await listed(b), '2026-06-30T09:00'));
    await bookSlot(t, b, at(await listed(b), '2026-07-02T09:00'));
    expect(await starts(b)).toEqual(['06-28T09:00', '06-28T09:30', '07-06T00:00']);
    const res = await reserve(t, b.resource.reference, slotBody(b, 3, '2026-07-05T23:30:00+02:00', '2026-07-06T00:00:00+02:00'));
    expect(errorOf(res)).toEqual({
      status: 412,
      errorCode: 'BOOKING_LIMIT',
      message: "body.from: the week 2026-W27 (Monday 2026-06-29 to Sunday 2026-07-05, Europe/Berlin) has reached this resource's limit of 2 bookings a week; choose another week",
    });
    expect((await reserve(t, b.resource.reference, slotBody(b, 3, '2026-07-06T00:00:00+02:00', '2026-07-06T00:30:00+02:00'))).statusCode).toBe(201);
  });

  it('across the autumn clock change: the week ends at Monday midnight local time, 169 hours after it began', async () => {
    t.clock.set('2026-10-19T06:00:00Z'); // Monday 08:00 CEST, ISO week 2026-W43, which ends on Sunday the 25th at 24:00 CET
    try {
      const b = await offer(
        [
          { start: '2026-10-19T09:00', end: '2026-10-19T10:00', raster: 30 },
          // 23:00 and 23:30 CET on Sunday are still W43; 00:00 and 00:30 on Monday are W44
          { start: '2026-10-25T23:00', end: '2026-10-26T01:00', raster: 30 },
        ],
        { perWeek: 1 },
      );
      await bookSlot(t, b, at(await listed(b), '2026-10-19T09:00'));
      expect(await starts(b)).toEqual(['10-26T00:00', '10-26T00:30']);
      const sunday = await reserve(t, b.resource.reference, slotBody(b, 1, '2026-10-25T23:30:00+01:00', '2026-10-26T00:00:00+01:00'));
      expect(errorOf(sunday)).toMatchObject({ status: 412, errorCode: 'BOOKING_LIMIT' });
      expect(errorOf(sunday).message).toContain('2026-W43 (Monday 2026-10-19 to Sunday 2026-10-25, Europe/Berlin)');
      expect((await reserve(t, b.resource.reference, slotBody(b, 1, '2026-10-26T00:00:00+01:00', '2026-10-26T00:30:00+01:00'))).statusCode).toBe(201);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });
});

describe('reschedule and the limits', () => {
  it('refuses a move onto a date at its limit with 412 BOOKING_LIMIT and leaves the booking; a move within that date passes', async () => {
    const b = await offer(
      [
        // group slots: two consumers share the 09:00 appointment
        { start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30, defaultCapacity: 2 },
        { start: '2026-06-03T09:00', end: '2026-06-03T10:00', raster: 30 },
      ],
      { perDay: 2 },
    );
    const first = await bookSlot(t, b, at(await listed(b), '2026-06-02T09:00'));
    const nine = at(await listed(b), '2026-06-02T09:00');
    expect(nine.kind).toBe('models.LotAppointment');
    await bookSlot(t, b, nine);
    const other = await bookSlot(t, b, at(await listed(b), '2026-06-03T09:00'));

    // the 2nd is at its limit: moving there from the 3rd is refused, and nothing changes
    const tenOnTheSecond = { start: '2026-06-02T10:00:00+02:00', end: '2026-06-02T10:30:00+02:00', timeslot_uuid: b.timeslots[0].uuid } as ListedBookable;
    const refused = await reschedule(t, other.token, moveBodyFor(tenOnTheSecond));
    expect(errorOf(refused)).toEqual({
      status: 412,
      errorCode: 'BOOKING_LIMIT',
      message: "body.start: 2026-06-02 (Europe/Berlin) has reached this resource's limit of 2 bookings a day; choose another day",
    });
    expect((await participationOfToken(t, other.token)).appointment_id).toBe(other.appointment_uuid);

    // a booking on the 2nd moves within the 2nd: the count stays 2 (its old group appointment stays, with the other consumer)
    const moved = await reschedule(t, first.token, moveBodyFor(tenOnTheSecond));
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await participationOfToken(t, first.token)).start_at.toISOString()).toBe('2026-06-02T08:00:00.000Z');
  });
});

describe('maxUpcomingBookingsPerConsumer on A3', () => {
  it('refuses the consumer (by e-mail, any case) at the limit with 409 CONSUMER_LIMIT, keeps the hold, and counts only upcoming bookings', async () => {
    const b = await offer([{ start: '2026-06-02T09:00', end: '2026-06-02T12:00', raster: 30 }]);
    const set = await b.p.call('PUT', `/provider/${enc(b.provider.providerRef)}`, { maxUpcomingBookingsPerConsumer: 2 });
    expect(set.statusCode, set.body).toBe(200);
    const who = consumer();
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:00'), who);
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:30'), { ...who, email: who.email.toUpperCase() });

    const slot = at(await listed(b), '2026-06-02T10:00');
    const held = await reserve(t, b.resource.reference, { timeslot_uuid: slot.timeslot_uuid, product_uuid: b.product.uuid, from: slot.start, to: slot.end });
    expect(held.statusCode, held.body).toBe(201);
    const placeholder = held.json().participation.customer_uuid;
    const refused = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, placeholder, { ...who, email: who.email.replace(/^c/, 'C') }));
    expect(errorOf(refused)).toEqual({
      status: 409,
      errorCode: 'CONSUMER_LIMIT',
      message: 'body.email: this consumer already has as many upcoming bookings with this provider as it allows (2); cancel one or wait until one has taken place',
    });
    const [hold] = await t.db.query<{ state: string }>('SELECT state FROM participations WHERE placeholder_id = $1', [placeholder]);
    expect(hold.state).toBe('RESERVED');
    // another consumer books the held slot's neighbour; the limit is per consumer
    expect((await book(t, b.resource.reference, bookBodyFor(at(await listed(b), '2026-06-02T10:30'), b.product.uuid))).statusCode).toBe(201);

    // once the first booking has begun, it is no longer upcoming
    t.clock.set('2026-06-02T07:00:01Z');
    try {
      const later = at(await listed(b), '2026-06-02T11:00');
      expect((await book(t, b.resource.reference, bookBodyFor(later, b.product.uuid, undefined, who))).statusCode).toBe(201);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });
});
