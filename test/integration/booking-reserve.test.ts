import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
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
import { createProduct } from '../helpers/offeringsFixtures.js';
import { sweepExpiredHolds } from '../../src/booking/holdSweeper.js';

let t: TestApp;
const MAX_HOLDS = 3;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, maxHoldsPerIp: MAX_HOLDS, reservationHoldSeconds: 180 });
});
afterAll(() => t.close());

/** Each test reserves from its own address, so the per-IP cap of one test does not touch another. */
const octet = () => Math.floor(Math.random() * 250);
const fromIp = () => ({ 'x-forwarded-for': `10.${octet()}.${octet()}.${octet()}` });

async function firstSlot(b: Booking, over: object = {}) {
  const [ts] = await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00', ...over }]);
  const [slot] = flatten(await upcoming(t, b.resource.reference));
  return { ts, slot };
}

const errorOf = (res: { json(): { errors: { errorCode: string; message: string }[] } }) => res.json().errors[0];

describe('A2 reserve_appointment', () => {
  it('holds a listed bookable with 201 and answers the reservation exactly as the spec describes it', async () => {
    const b = await setupBooking(t, {
      resource: { address: { street: 'Hauptstr.', number: '5', zip: '10115', city: 'Berlin' } },
    });
    const { ts, slot } = await firstSlot(b, { defaultCapacity: 2 });
    const res = await reserve(
      t,
      b.resource.reference,
      {
        timeslot_uuid: ts.uuid,
        product_uuid: b.product.uuid,
        from: '2026-06-02T07:00:00Z',
        to: '2026-06-02T07:30:00Z',
      },
      undefined,
      fromIp(),
    );
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    const p = body.participation;
    expect(body).toEqual({
      'api-info': { version: '1' },
      participation: {
        uuid: p.uuid,
        appointment_uuid: p.appointment_uuid,
        timeslot_uuid: ts.uuid,
        resource_uuid: b.resource.uuid,
        product_uuid: b.product.uuid,
        from: '2026-06-02T07:00:00Z',
        to: '2026-06-02T07:30:00Z',
        appointment_capacity: 2,
        appointment_capacity_left: 1,
        customer_uuid: p.customer_uuid,
        customer_mobile: null,
        customer_fullName: null,
        customer_email: null,
        customer_note: null,
        state: 'RESERVED',
        formatedAddress: 'Hauptstr. 5, 10115 Berlin, DE',
        messages: [],
      },
      appointments: [
        {
          uuid: p.appointment_uuid,
          kind: 'models.LotAppointment',
          product_id: b.product.uuid,
          product_name: 'Viewing',
          resource_id: b.resource.uuid,
          from: '2026-06-02T07:00:00Z',
          to: '2026-06-02T07:30:00Z',
          state: 'ACTIVE',
          capacity: 2,
          capacity_left: 1,
          customers: [
            {
              customer_placeholder_id: p.customer_uuid,
              customer_uuid: p.customer_uuid,
              participationState: 'RESERVED',
              participation_id: p.uuid,
            },
          ],
        },
      ],
    });
    expect(slot.start).toBe('2026-06-02T09:00:00+02:00');
    const [row] = await t.db.query<{ hold_until: Date; placeholder_id: string; timeslot_id: string; capacity: number }>(
      `SELECT pa.hold_until, pa.placeholder_id, a.timeslot_id, a.capacity FROM participations pa JOIN appointments a
         ON a.id = pa.appointment_id WHERE pa.id = $1`,
      [p.uuid],
    );
    expect(row).toEqual({
      hold_until: new Date(t.clock.now().getTime() + 180_000),
      placeholder_id: p.customer_uuid,
      timeslot_id: ts.uuid,
      capacity: 2,
    });
  });

  it('takes the place at once: the slot disappears from A1 and a second hold gets 412 with errorCode 201', async () => {
    const b = await setupBooking(t);
    const { slot } = await firstSlot(b);
    expect(
      (await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp())).statusCode,
    ).toBe(201);
    expect(flatten(await upcoming(t, b.resource.reference)).map((x) => x.start)).not.toContain(slot.start);
    const second = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
    expect(second.statusCode).toBe(412);
    expect(errorOf(second).errorCode).toBe('201');
  });

  it('answers 412 errorCode 201 for a full LotAppointment and for a slot overlapping another appointment', async () => {
    const b = await setupBooking(t);
    const { slot } = await firstSlot(b, { defaultCapacity: 1 });
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
    const appointmentUuid = held.json().participation.appointment_uuid;
    const full = await reserve(
      t,
      b.resource.reference,
      { appointment_uuid: appointmentUuid, product_uuid: b.product.uuid, from: slot.start, to: slot.end },
      undefined,
      fromIp(),
    );
    expect([full.statusCode, errorOf(full).errorCode]).toEqual([412, '201']);
    const create = await b.p.call('POST', `${b.base}/appointments`, {
      reference: `${uniqueId('apt')}@crm`,
      start: '2026-06-02T09:45',
      end: '2026-06-02T10:15',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
      capacity: 1,
    });
    expect(create.statusCode, create.body).toBe(201);
    const overlapped = await reserve(
      t,
      b.resource.reference,
      { ...reserveBodyFor(slot, b.product.uuid), from: '2026-06-02T09:30', to: '2026-06-02T10:00' },
      undefined,
      fromIp(),
    );
    expect([overlapped.statusCode, errorOf(overlapped).errorCode]).toEqual([412, '201']);
  });

  it('joins the appointment a timeslot slot already has while places are left', async () => {
    const b = await setupBooking(t);
    const { slot } = await firstSlot(b, { defaultCapacity: 2 });
    const first = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
    const second = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().participation.appointment_uuid).toBe(first.json().participation.appointment_uuid);
    expect(second.json().participation.appointment_capacity_left).toBe(0);
    // the other holder shows up as a state only: no placeholder (it is the key to that hold), no personal data
    expect(second.json().appointments[0].customers).toEqual([
      {
        customer_placeholder_id: null,
        customer_uuid: null,
        participationState: 'RESERVED',
        participation_id: first.json().participation.uuid,
      },
      expect.objectContaining({ customer_placeholder_id: second.json().participation.customer_uuid }),
    ]);
    const third = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
    expect([third.statusCode, errorOf(third).errorCode]).toEqual([412, '201']);
  });

  it('reserves and books a partner appointment of a product the resource does not offer, as A1 lists it', async () => {
    const b = await setupBooking(t);
    // two products on the resource: A1 without prdRef then lists appointments of any product
    const second = await createProduct(b.p, b.provider.providerRef, { name: 'Second' });
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      products: [b.product.reference, second.reference],
    });
    const special = await createProduct(b.p, b.provider.providerRef, { name: 'Special tour' });
    const made = await b.p.call('POST', `${b.base}/appointments`, {
      reference: `${uniqueId('apt')}@crm`,
      start: '2026-06-02T14:00',
      end: '2026-06-02T15:00',
      resourceReference: b.resource.reference,
      productReference: special.reference,
      capacity: 2,
      acceptBookings: true,
    });
    expect(made.statusCode, made.body).toBe(201);
    const [lot] = flatten(await upcoming(t, b.resource.reference));
    expect(lot).toMatchObject({ kind: 'models.LotAppointment', product_uuid: special.uuid });
    const held = await reserve(t, b.resource.reference, reserveBodyFor(lot, special.uuid), undefined, fromIp());
    expect(held.statusCode, held.body).toBe(201);
    const booked = await book(t, b.resource.reference, {
      ...bookBodyFor(lot, special.uuid, held.json().participation.customer_uuid),
      product_uuid: undefined,
    });
    expect(booked.statusCode, booked.body).toBe(201);
    expect(booked.json().createdAppointment).toMatchObject({
      product_uuid: special.uuid,
      product_name: 'Special tour',
      capacity_left: 1,
    });
    const wrong = await reserve(t, b.resource.reference, reserveBodyFor(lot, b.product.uuid), undefined, fromIp());
    expect([wrong.statusCode, errorOf(wrong).errorCode]).toEqual([412, '201']);
  });

  it("never shows another consumer's name, email or mobile", async () => {
    const b = await setupBooking(t);
    const { slot } = await firstSlot(b, { defaultCapacity: 3 });
    const secret = consumer({
      email: 'secret.person@consumer.example',
      firstname: 'Secretia',
      lastname: 'Hidden',
      mobile: '+4917099999',
    });
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, secret))).statusCode).toBe(
      201,
    );
    const [lot] = flatten(await upcoming(t, b.resource.reference));
    const res = await reserve(t, b.resource.reference, reserveBodyFor(lot, b.product.uuid), undefined, fromIp());
    expect(res.statusCode, res.body).toBe(201);
    expect(res.body).not.toMatch(/Secretia|Hidden|secret\.person|4917099999/);
    expect(JSON.stringify(flatten(await upcoming(t, b.resource.reference)))).not.toMatch(
      /Secretia|Hidden|secret\.person|4917099999/,
    );
  });

  it('rejects times that are not a slot of the timeslot with 400 naming the fields', async () => {
    const b = await setupBooking(t);
    const { ts } = await firstSlot(b);
    for (const [from, to] of [
      ['2026-06-02T09:10', '2026-06-02T09:40'],
      ['2026-06-02T09:00', '2026-06-02T10:00'],
      ['2026-06-02T09:30', '2026-06-02T10:30'],
      ['2026-06-02T08:30', '2026-06-02T09:00'],
    ]) {
      const res = await reserve(
        t,
        b.resource.reference,
        { timeslot_uuid: ts.uuid, product_uuid: b.product.uuid, from, to },
        undefined,
        fromIp(),
      );
      expect(res.statusCode, `${from} ${to}`).toBe(400);
      expect(errorOf(res).message).toMatch(/body\.from and body\.to must be a bookable slot/);
    }
  });

  it("needs the product's minimum duration and keeps its buffers free", async () => {
    const b = await setupBooking(t);
    const long = await createProduct(b.p, b.provider.providerRef, {
      name: 'Long',
      minDuration: 60,
      followUpTimeMinutes: 30,
    });
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
      products: [b.product.reference, long.reference],
    });
    const [ts] = await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00' }]);
    const short = await reserve(
      t,
      b.resource.reference,
      { timeslot_uuid: ts.uuid, product_uuid: long.uuid, from: '2026-06-02T09:00', to: '2026-06-02T09:30' },
      undefined,
      fromIp(),
    );
    expect(short.statusCode).toBe(400);
    const ok = await reserve(
      t,
      b.resource.reference,
      { timeslot_uuid: ts.uuid, product_uuid: long.uuid, from: '2026-06-02T10:00', to: '2026-06-02T11:00' },
      undefined,
      fromIp(),
    );
    expect(ok.statusCode, ok.body).toBe(201);
    // 09:00-10:00 would have its 30-minute follow-up inside 10:00-11:00
    const buffered = await reserve(
      t,
      b.resource.reference,
      { timeslot_uuid: ts.uuid, product_uuid: long.uuid, from: '2026-06-02T09:00', to: '2026-06-02T10:00' },
      undefined,
      fromIp(),
    );
    expect([buffered.statusCode, errorOf(buffered).errorCode]).toEqual([412, '201']);
  });

  it('validates the body before any lookup', async () => {
    const cases: [object, RegExp][] = [
      [
        { product_uuid: '00000000-0000-4000-8000-000000000000', from: '2026-06-02T09:00', to: '2026-06-02T09:30' },
        /body must have at least one of timeslot_uuid or appointment_uuid/,
      ],
      [
        {
          timeslot_uuid: 'nope',
          product_uuid: '00000000-0000-4000-8000-000000000000',
          from: '2026-06-02T09:00',
          to: '2026-06-02T09:30',
        },
        /body\.timeslot_uuid must match format "uuid"/,
      ],
      [
        { timeslot_uuid: '00000000-0000-4000-8000-000000000000', from: '2026-06-02T09:00', to: '2026-06-02T09:30' },
        /body\.product_uuid is required/,
      ],
      [
        {
          timeslot_uuid: '00000000-0000-4000-8000-000000000000',
          product_uuid: '00000000-0000-4000-8000-000000000000',
          from: 'tomorrow',
          to: '2026-06-02T09:30',
        },
        /body\.from must be an ISO 8601/,
      ],
      [
        {
          timeslot_uuid: '00000000-0000-4000-8000-000000000000',
          product_uuid: '00000000-0000-4000-8000-000000000000',
          from: '2026-06-02T09:30',
          to: '2026-06-02T09:00',
        },
        /body\.to must be after body\.from/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await reserve(t, 'unknown@nowhere', body, undefined, fromIp());
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(res)).toMatchObject({ errorCode: 'VALIDATION', message: expect.stringMatching(message) });
    }
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/rest/1/resources/x@y/reserve_appointment',
      headers: { 'content-type': 'application/json' },
      payload: '{"from":',
    });
    expect(malformed.statusCode).toBe(400);
  });

  it('answers 404 for an unknown resource, timeslot or appointment, 400 for a product not offered', async () => {
    const b = await setupBooking(t);
    const { slot } = await firstSlot(b);
    const other = await createProduct(b.p, b.provider.providerRef, { name: 'Elsewhere' });
    const body = reserveBodyFor(slot, b.product.uuid);
    expect((await reserve(t, 'unknown@nowhere', body, undefined, fromIp())).statusCode).toBe(404);
    expect(
      (
        await reserve(
          t,
          b.resource.reference,
          { ...body, timeslot_uuid: '00000000-0000-4000-8000-000000000000' },
          undefined,
          fromIp(),
        )
      ).statusCode,
    ).toBe(404);
    const { timeslot_uuid: _ignored, ...rest } = body as { timeslot_uuid: string };
    expect(
      (
        await reserve(
          t,
          b.resource.reference,
          { ...rest, appointment_uuid: '00000000-0000-4000-8000-000000000000' },
          undefined,
          fromIp(),
        )
      ).statusCode,
    ).toBe(404);
    const notOffered = await reserve(
      t,
      b.resource.reference,
      { ...body, product_uuid: other.uuid },
      undefined,
      fromIp(),
    );
    expect(notOffered.statusCode).toBe(400);
    expect(errorOf(notOffered).message).toContain('body.product_uuid');
  });

  it('refuses a hidden (CREATED) timeslot and an archived resource', async () => {
    const b = await setupBooking(t);
    const [hidden] = await createTimeslots(b, [
      { start: '2026-06-03T09:00', end: '2026-06-03T10:00', state: 'CREATED' },
    ]);
    const res = await reserve(
      t,
      b.resource.reference,
      { timeslot_uuid: hidden.uuid, product_uuid: b.product.uuid, from: '2026-06-03T09:00', to: '2026-06-03T09:30' },
      undefined,
      fromIp(),
    );
    expect(res.statusCode).toBe(404);
    const { slot } = await firstSlot(b);
    await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, { archived: true });
    const archived = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
    expect(archived.statusCode).toBe(404);
    expect(errorOf(archived).message).toMatch(/archived/);
  });

  it('refuses a slot that has already started', async () => {
    const b = await setupBooking(t);
    const [ts] = await createTimeslots(b, [{ start: '2026-06-01T09:00', end: '2026-06-01T12:00' }]);
    // now is 10:00 in Berlin
    const res = await reserve(
      t,
      b.resource.reference,
      { timeslot_uuid: ts.uuid, product_uuid: b.product.uuid, from: '2026-06-01T09:30', to: '2026-06-01T10:00' },
      undefined,
      fromIp(),
    );
    expect(res.statusCode).toBe(409);
    expect(errorOf(res)).toMatchObject({ errorCode: 'TOO_LATE', message: expect.stringContaining('body.from') });
  });

  it('counts an expired hold as nothing before a sweep; the sweeper removes it and its empty appointment', async () => {
    const b = await setupBooking(t);
    const { slot } = await firstSlot(b);
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
    const { uuid, appointment_uuid } = held.json().participation;
    t.clock.advance(180_000);
    try {
      const [again] = flatten(await upcoming(t, b.resource.reference));
      // the unswept appointment is still there, but its time is listed as if it had never been booked
      expect(again).toMatchObject({ kind: 'models.Bookable', start: slot.start });
      const retaken = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid), undefined, fromIp());
      expect(retaken.statusCode, retaken.body).toBe(201);
      expect(retaken.json().participation.appointment_uuid).toBe(appointment_uuid);
      t.clock.advance(180_000);
      const swept = await sweepExpiredHolds(t.db, t.clock.now());
      expect(swept.holds).toBeGreaterThanOrEqual(2);
      expect(swept.appointments).toBeGreaterThanOrEqual(1);
      expect(await t.db.query('SELECT id FROM participations WHERE id = $1', [uuid])).toEqual([]);
      expect(await t.db.query('SELECT id FROM appointments WHERE id = $1', [appointment_uuid])).toEqual([]);
      expect(flatten(await upcoming(t, b.resource.reference))[0]).toMatchObject({
        kind: 'models.Bookable',
        start: slot.start,
      });
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('keeps a public-flow appointment once booked, cancelled with its last booking, as history', async () => {
    const b = await setupBooking(t);
    const { slot } = await firstSlot(b, { defaultCapacity: 2 });
    const created = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid));
    const appointmentUuid = created.json().createdAppointment.appointment_uuid;
    await t.db.query(`UPDATE participations SET state = 'CANCELED' WHERE appointment_id = $1`, [appointmentUuid]);
    await sweepExpiredHolds(t.db, t.clock.now());
    expect(await t.db.query('SELECT state FROM appointments WHERE id = $1', [appointmentUuid])).toEqual([
      { state: 'CANCELLED' },
    ]);
  });

  it(`caps one address's live holds at maxHoldsPerIp (429 HOLD_LIMIT), freed as holds expire`, async () => {
    const b = await setupBooking(t);
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00' }]);
    const slots = flatten(await upcoming(t, b.resource.reference));
    const ip = fromIp();
    for (let i = 0; i < MAX_HOLDS; i++)
      expect(
        (await reserve(t, b.resource.reference, reserveBodyFor(slots[i], b.product.uuid), undefined, ip)).statusCode,
      ).toBe(201);
    const over = await reserve(
      t,
      b.resource.reference,
      reserveBodyFor(slots[MAX_HOLDS], b.product.uuid),
      undefined,
      ip,
    );
    expect(over.statusCode).toBe(429);
    expect(errorOf(over).errorCode).toBe('HOLD_LIMIT');
    expect(
      (await reserve(t, b.resource.reference, reserveBodyFor(slots[MAX_HOLDS], b.product.uuid), undefined, fromIp()))
        .statusCode,
    ).toBe(201);
    t.clock.advance(180_000);
    try {
      expect(
        (await reserve(t, b.resource.reference, reserveBodyFor(slots[MAX_HOLDS + 1], b.product.uuid), undefined, ip))
          .statusCode,
      ).toBe(201);
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });
});
