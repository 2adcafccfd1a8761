/**
 * Booking limits (issue 53, DESIGN 7.11, docs/api.md "Booking limits"): `bookingLimits` on a
 * resource (B3/B4) and `maxUpcomingBookingsPerConsumer` on a provider (C5/PUT). A1 leaves out the
 * dates and weeks at their limit in the provider's zone; A2, A3 and reschedule there answer 412
 * BOOKING_LIMIT; the partner's D6/D9 are not refused; a consumer at the provider's limit gets 409
 * CONSUMER_LIMIT on A3. The races are in booking-limits-race.test.ts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  reserve,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';
import { bookSlot, moveBodyFor, participationOfToken, reschedule } from '../helpers/lifecycleFixtures.js';
import { createAppointment, participate, createCustomer, type Scheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the clock stands at Monday 2026-06-01T08:00Z, 10:00 in Berlin (ISO week 2026-W23)
  const unlimited = { bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 100_000 };
  t = await startTestApp({ ...unlimited, publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

const enc = encodeURIComponent;
const NOW = '2026-06-01T08:00:00Z';

type Offer = Booking & { timeslots: { uuid: string }[] };

/** A provider in Berlin with a resource, its timeslots (D1) and, if given, its limits (B4). */
async function offer(timeslots: object[], limits?: object): Promise<Offer> {
  const b = await setupBooking(t, { timeZone: 'Europe/Berlin' });
  const created = timeslots.length > 0 ? await createTimeslots(b, timeslots) : [];
  if (limits) await setLimits(b, limits);
  return { ...b, timeslots: created };
}

async function setLimits(b: Booking, bookingLimits: unknown) {
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

/** A raster slot of the offer's i-th timeslot, listed or not; times as instants with their offset. */
const slot = (b: Offer, i: number, start: string, end: string) =>
  ({ kind: 'models.Bookable', timeslot_uuid: b.timeslots[i].uuid, start, end }) as ListedBookable;
/** A2 on that slot. */
const hold = (b: Offer, i: number, from: string, to: string) =>
  reserve(t, b.resource.reference, { timeslot_uuid: b.timeslots[i].uuid, product_uuid: b.product.uuid, from, to });
/** A3 with that body. */
const bookBody = (b: Booking, body: object) => book(t, b.resource.reference, body);

const errorOf = (res: LightMyRequestResponse) => ({ status: res.statusCode, ...res.json().errors[0] });
const limitReached = (field: string, text: string) => ({
  status: 412,
  errorCode: 'BOOKING_LIMIT',
  message: `${field}: ${text}`,
});
const SECOND_FULL =
  "2026-06-02 (Europe/Berlin) has reached this resource's limit of 2 bookings a day; choose another day";

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
    const path = `${b.base}/resources/${enc(b.resource.reference)}`;
    const renamed = await b.p.call('POST', path, { publicName: 'Renamed' });
    expect(renamed.json().bookingLimits).toEqual({ perDay: 2, perWeek: 5 });
    expect(await setLimits(b, { perDay: null })).toEqual({ perDay: null, perWeek: null });
    await setLimits(b, { perDay: 1 });
    expect(await setLimits(b, null)).toEqual({ perDay: null, perWeek: null });

    const body = { reference: 'limited@crm', publicName: 'L', internalName: 'L', bookingLimits: { perWeek: 4 } };
    const created = await b.p.call('POST', `${b.base}/resources`, body);
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
    const [resource] = (await b.p.call('GET', `${b.base}/resources`)).json();
    expect(resource.bookingLimits).toEqual({ perDay: null, perWeek: null });
  });
});

describe('maxUpcomingBookingsPerConsumer on providers (C5, PUT)', () => {
  it('is answered (null: none), set by C5 and PUT, cleared by null, refused below 1 naming the field', async () => {
    const b = await setupBooking(t);
    const path = `/provider/${enc(b.provider.providerRef)}`;
    const maxOf = (res: LightMyRequestResponse) => res.json().provider.maxUpcomingBookingsPerConsumer;
    const put = (value: unknown) => b.p.call('PUT', path, { maxUpcomingBookingsPerConsumer: value });
    expect(maxOf(await b.p.call('GET', path))).toBeNull();
    expect(maxOf(await put(2))).toBe(2);
    expect(maxOf(await b.p.call('GET', path))).toBe(2);
    expect(maxOf(await b.p.call('PUT', path, { name: 'Renamed' }))).toBe(2);
    expect(maxOf(await put(null))).toBeNull();
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
    expect(maxOf(created)).toBe(3);
  });
});

describe('a date at its limit', () => {
  const timeslots = [
    { start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 },
    // 23:00 and 23:30 are the 2nd in Berlin, 00:00 and 00:30 the 3rd (in UTC all four are the 2nd)
    { start: '2026-06-02T23:00', end: '2026-06-03T01:00', raster: 30 },
    { start: '2026-06-03T09:00', end: '2026-06-03T10:00', raster: 30 },
  ];
  const THIRD = ['06-03T00:00', '06-03T00:30', '06-03T09:00', '06-03T09:30'];

  it('is left out of A1 in the provider zone; A2 and A3 there get 412 BOOKING_LIMIT; a hold counts once', async () => {
    const b = await offer(timeslots, { perDay: 2 });
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:00'));
    const held = await hold(b, 0, '2026-06-02T09:30:00+02:00', '2026-06-02T10:00:00+02:00');
    expect(held.statusCode, held.body).toBe(201);
    // two live participations on the 2nd (a booking and a hold): its slots are gone, the 3rd's stay
    expect(await starts(b)).toEqual(THIRD);

    const late = await hold(b, 1, '2026-06-02T23:30:00+02:00', '2026-06-03T00:00:00+02:00');
    expect(errorOf(late)).toEqual(limitReached('body.from', SECOND_FULL));
    const ten = slot(b, 0, '2026-06-02T10:00', '2026-06-02T10:30');
    const booked = await bookBody(b, bookBodyFor(ten, b.product.uuid));
    expect(errorOf(booked)).toEqual(limitReached('body.start', SECOND_FULL));

    // the hold, converted by A3, is not counted twice
    const heldSlot = slot(b, 0, '2026-06-02T09:30:00+02:00', '2026-06-02T10:00:00+02:00');
    const converted = await bookBody(b, bookBodyFor(heldSlot, b.product.uuid, held.json().participation.customer_uuid));
    expect(converted.statusCode, converted.body).toBe(201);
    expect(await starts(b)).toEqual(THIRD);
    // the next date has its own count
    expect((await hold(b, 1, '2026-06-03T00:00:00+02:00', '2026-06-03T00:30:00+02:00')).statusCode).toBe(201);

    // without the limit the date is listed again, at once
    await setLimits(b, null);
    const second = (await starts(b)).filter((s) => s.startsWith('06-02'));
    expect(second).toEqual(['06-02T10:00', '06-02T10:30', '06-02T23:00', '06-02T23:30']);
  });

  it('comes back in A1 when a hold on it expires, also from the cache, with no change in between', async () => {
    const b = await offer(timeslots, { perDay: 1 });
    const held = await hold(b, 0, '2026-06-02T09:00:00+02:00', '2026-06-02T09:30:00+02:00');
    expect(held.statusCode, held.body).toBe(201);
    expect((await starts(b)).some((s) => s.startsWith('06-02'))).toBe(false);
    const id = held.json().participation.uuid;
    const sql = 'SELECT hold_until FROM participations WHERE id = $1';
    const [{ hold_until }] = await t.db.query<{ hold_until: Date }>(sql, [id]);
    t.clock.set(new Date(hold_until.getTime() + 1000));
    try {
      expect((await starts(b)).filter((s) => s.startsWith('06-02'))).toHaveLength(6);
    } finally {
      t.clock.set(NOW);
    }
  });

  it("does not refuse the partner's D6 and D9, whose bookings count for the public flow", async () => {
    const b = await offer(timeslots, { perDay: 1 });
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:00'));
    const s: Scheduling = { ...b, productRef: b.product.reference, resourceRef: b.resource.reference };
    const appointment = await createAppointment(s, { start: '2026-06-02T14:00', end: '2026-06-02T15:00', capacity: 3 });
    const customer = await createCustomer(s);
    const { customerReference } = customer;
    const joined = await participate(s, { appointmentReference: appointment.reference, customerReference });
    expect(joined.statusCode, joined.body).toBe(201);
    // the group appointment has places left, but its date is over the limit: not listed, and not joinable
    expect((await listed(b)).filter((x) => x.start.startsWith('2026-06-02'))).toEqual([]);
    const body = { appointment_uuid: appointment.uuid, product_uuid: b.product.uuid, from: '2026-06-02T14:00' };
    const join = await reserve(t, b.resource.reference, { ...body, to: '2026-06-02T15:00' });
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
    const sunday = await hold(b, 3, '2026-07-05T23:30:00+02:00', '2026-07-06T00:00:00+02:00');
    const week = 'the week 2026-W27 (Monday 2026-06-29 to Sunday 2026-07-05, Europe/Berlin)';
    const text = `${week} has reached this resource's limit of 2 bookings a week; choose another week`;
    expect(errorOf(sunday)).toEqual(limitReached('body.from', text));
    expect((await hold(b, 3, '2026-07-06T00:00:00+02:00', '2026-07-06T00:30:00+02:00')).statusCode).toBe(201);
  });

  it('across the autumn clock change: the week ends at Monday midnight local time, 169 hours on', async () => {
    // Monday 08:00 CEST, ISO week 2026-W43, which ends on Sunday the 25th at 24:00 CET
    t.clock.set('2026-10-19T06:00:00Z');
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
      const sunday = await hold(b, 1, '2026-10-25T23:30:00+01:00', '2026-10-26T00:00:00+01:00');
      expect(errorOf(sunday)).toMatchObject({ status: 412, errorCode: 'BOOKING_LIMIT' });
      expect(errorOf(sunday).message).toContain('2026-W43 (Monday 2026-10-19 to Sunday 2026-10-25, Europe/Berlin)');
      expect((await hold(b, 1, '2026-10-26T00:00:00+01:00', '2026-10-26T00:30:00+01:00')).statusCode).toBe(201);
    } finally {
      t.clock.set(NOW);
    }
  });
});

describe('reschedule and the limits', () => {
  it('refuses a move onto a date at its limit (412 BOOKING_LIMIT, no change); a move within it passes', async () => {
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
    const ten = slot(b, 0, '2026-06-02T10:00:00+02:00', '2026-06-02T10:30:00+02:00');
    const refused = await reschedule(t, other.token, moveBodyFor(ten));
    expect(errorOf(refused)).toEqual(limitReached('body.start', SECOND_FULL));
    expect((await participationOfToken(t, other.token)).appointment_id).toBe(other.appointment_uuid);

    // a booking on the 2nd moves within the 2nd: the count stays 2 (its old group appointment stays,
    // with the other consumer, so only leaving the moving booking out of the count lets it pass)
    const moved = await reschedule(t, first.token, moveBodyFor(ten));
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await participationOfToken(t, first.token)).start_at.toISOString()).toBe('2026-06-02T08:00:00.000Z');
  });
});

describe('maxUpcomingBookingsPerConsumer on A3', () => {
  it('refuses a consumer (e-mail in any case) at the limit: 409 CONSUMER_LIMIT, the hold stays', async () => {
    const b = await offer([{ start: '2026-06-02T09:00', end: '2026-06-02T12:00', raster: 30 }]);
    const provider = `/provider/${enc(b.provider.providerRef)}`;
    const set = await b.p.call('PUT', provider, { maxUpcomingBookingsPerConsumer: 2 });
    expect(set.statusCode, set.body).toBe(200);
    const who = consumer();
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:00'), who);
    await bookSlot(t, b, at(await listed(b), '2026-06-02T09:30'), { ...who, email: who.email.toUpperCase() });

    const ten = at(await listed(b), '2026-06-02T10:00');
    const held = await hold(b, 0, ten.start, ten.end);
    expect(held.statusCode, held.body).toBe(201);
    const placeholder = held.json().participation.customer_uuid;
    const sameEmail = { ...who, email: who.email.replace(/^c/, 'C') };
    const refused = await bookBody(b, bookBodyFor(ten, b.product.uuid, placeholder, sameEmail));
    expect(errorOf(refused)).toEqual({
      status: 409,
      errorCode: 'CONSUMER_LIMIT',
      message:
        'body.email: this consumer already has as many upcoming bookings with this provider as it allows (2); ' +
        'cancel one or wait until one has taken place',
    });
    const sql = 'SELECT state FROM participations WHERE placeholder_id = $1';
    const [{ state }] = await t.db.query<{ state: string }>(sql, [placeholder]);
    expect(state).toBe('RESERVED');
    // another consumer books the held slot's neighbour; the limit is per consumer
    const neighbour = bookBodyFor(at(await listed(b), '2026-06-02T10:30'), b.product.uuid);
    expect((await bookBody(b, neighbour)).statusCode).toBe(201);

    // once the first booking has begun, it is no longer upcoming
    t.clock.set('2026-06-02T07:00:01Z');
    try {
      const later = bookBodyFor(at(await listed(b), '2026-06-02T11:00'), b.product.uuid, undefined, who);
      expect((await bookBody(b, later)).statusCode).toBe(201);
    } finally {
      t.clock.set(NOW);
    }
  });
});
