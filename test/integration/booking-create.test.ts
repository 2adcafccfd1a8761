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

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    bookingRateLimitPerMinute: 10_000,
    maxHoldsPerIp: 1_000,
    publicBaseUrl: 'https://booking.example',
  });
});
afterAll(() => t.close());

async function slotOf(b: Booking, over: object = {}) {
  const [ts] = await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T09:30', ...over }]);
  const [slot] = flatten(await upcoming(t, b.resource.reference));
  return { ts, slot };
}

async function hold(b: Booking, slot: Parameters<typeof reserveBodyFor>[0]) {
  const res = await reserve(t, b.resource.reference, reserveBodyFor(slot, b.product.uuid));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().participation as { uuid: string; customer_uuid: string; appointment_uuid: string };
}

const errorOf = (res: { json(): { errors: { errorCode: string; message: string }[] } }) => res.json().errors[0];

function participationsOf(appointmentId: string) {
  return t.db.query<{
    id: string;
    state: string;
    hold_until: Date | null;
    customer_id: string | null;
    message: string | null;
    locale: string | null;
  }>(
    `SELECT id, state, hold_until, customer_id, message, locale FROM participations WHERE appointment_id = $1
       ORDER BY created_at`,
    [appointmentId],
  );
}

const outbox = (crmId: string) =>
  t.db.query<{ template: string; recipient: string; locale: string }>(
    'SELECT template, recipient, locale FROM outbox WHERE crm_id = $1 ORDER BY template',
    [crmId],
  );

describe('A3 create_appointment_with_consumer', () => {
  it('books with 201 and answers createdAppointment with every member and a signed cancel link', async () => {
    const b = await setupBooking(t);
    const { ts, slot } = await slotOf(b, { defaultCapacity: 2 });
    const held = await hold(b, slot);
    const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, held.customer_uuid));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      createdAppointment: {
        appointment_uuid: held.appointment_uuid,
        start: '2026-06-02T09:00:00+02:00',
        end: '2026-06-02T09:30:00+02:00',
        formattedStart: '2026-06-02 09:00',
        formattedEnd: '2026-06-02 09:30',
        timeslot_uuid: ts.uuid,
        product_uuid: b.product.uuid,
        resource_uuid: b.resource.uuid,
        contact_channel: null,
        product_name: 'Viewing',
        resource_name: 'Flat Main Street 1',
        capacity: 2,
        capacity_left: 1,
        products: [{ uuid: b.product.uuid, name: 'Viewing' }],
        kind: 'models.LotAppointment',
        cancelLink: expect.stringMatching(
          new RegExp(`^https://booking\\.example/cancel/${held.uuid}\\.[A-Za-z0-9_-]+$`),
        ),
      },
    });
  });

  it('turns the live reservation of placeholder_id into the booking', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b);
    const held = await hold(b, slot);
    expect(
      (await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, held.customer_uuid))).statusCode,
    ).toBe(201);
    const rows = await participationsOf(held.appointment_uuid);
    expect(rows).toEqual([
      expect.objectContaining({ id: held.uuid, state: 'BOOKED', hold_until: null, customer_id: expect.any(String) }),
    ]);
  });

  it('books anew after the hold expired if the place is free; 412 errorCode 201 when someone took it', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { end: '2026-06-02T10:00' });
    const [, second] = flatten(await upcoming(t, b.resource.reference));
    const held = await hold(b, slot);
    const other = await hold(b, second);
    t.clock.advance(181_000);
    try {
      const anew = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, held.customer_uuid));
      expect(anew.statusCode, anew.body).toBe(201);
      // the other expired hold's slot is taken meanwhile by somebody else
      const [free] = flatten(await upcoming(t, b.resource.reference)).filter((x) => x.start === second.start);
      expect((await book(t, b.resource.reference, bookBodyFor(free, b.product.uuid))).statusCode).toBe(201);
      const late = await book(t, b.resource.reference, bookBodyFor(second, b.product.uuid, other.customer_uuid));
      expect(late.statusCode).toBe(412);
      expect(late.json()).toEqual({
        'api-info': { version: '1' },
        errors: [{ errorCode: '201', message: expect.any(String) }],
      });
    } finally {
      t.clock.set('2026-06-01T08:00:00Z');
    }
  });

  it('books without a placeholder when a place is free, and a held slot is not bookable by anybody else', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { end: '2026-06-02T10:00' });
    const [, second] = flatten(await upcoming(t, b.resource.reference));
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid))).statusCode).toBe(201);
    await hold(b, second);
    const taken = await book(t, b.resource.reference, bookBodyFor(second, b.product.uuid));
    expect([taken.statusCode, errorOf(taken).errorCode]).toEqual([412, '201']);
  });

  it('creates a user and a provider customer for a new consumer, language from locale', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b);
    const who = consumer({ mobile: '+491701111111', locale: 'en' });
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who))).statusCode).toBe(
      201,
    );
    const [user] = await t.db.query<Record<string, unknown>>(
      'SELECT crm_id, reference, email, username, first_name, last_name, mobile, language FROM users WHERE email = $1',
      [who.email],
    );
    expect(user).toEqual({
      crm_id: b.p.crmId,
      reference: null,
      email: who.email,
      username: who.email,
      first_name: 'Erika',
      last_name: 'Muster',
      mobile: '+491701111111',
      language: 'en',
    });
    const customers = await t.db.query<Record<string, unknown>>(
      `SELECT c.reference, c.user_name, c.email, c.mobile, c.language, c.provider_id FROM customers c JOIN users u
         ON u.id = c.user_id WHERE u.email = $1`,
      [who.email],
    );
    expect(customers).toEqual([
      {
        reference: expect.stringMatching(/^customer-/),
        user_name: 'Erika Muster',
        email: who.email,
        mobile: '+491701111111',
        language: 'en',
        provider_id: expect.any(String),
      },
    ]);
  });

  it("derives a new user's username from the email, made safe and numbered while another user has it", async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { defaultCapacity: 3 });
    const email = `a/b#c?d&${uniqueId('e')}@consumer.example`;
    const safe = email.replace(/[/?#&]/g, '_');
    // another user of the crm already has that username
    expect(
      (
        await b.p.call('POST', '/user', {
          reference: `${uniqueId('u')}@crm`,
          email: `${uniqueId('x')}@example.com`,
          username: safe,
          lastName: 'Other',
        })
      ).statusCode,
    ).toBe(201);
    const res = await book(
      t,
      b.resource.reference,
      bookBodyFor(slot, b.product.uuid, undefined, { email, firstname: 'Anna', lastname: 'Muster' }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const [user] = await t.db.query<{ username: string }>(
      'SELECT username FROM users WHERE crm_id = $1 AND email = $2',
      [b.p.crmId, email],
    );
    expect(user.username).toBe(`${safe}-2`);
  });

  it('assigns the booking to the user of that email, fills in missing names and mobile, overwrites none', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { defaultCapacity: 3 });
    const email = `${uniqueId('known')}@consumer.example`;
    const made = await b.p.call('POST', '/user', {
      reference: `${uniqueId('u')}@crm`,
      email,
      username: uniqueId('known'),
      lastName: 'Original',
    });
    expect(made.statusCode).toBe(201);
    const res = await book(
      t,
      b.resource.reference,
      bookBodyFor(slot, b.product.uuid, undefined, {
        email: email.toUpperCase(),
        firstname: 'New',
        lastname: 'Other',
        mobile: '+4917022222',
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const users = await t.db.query<Record<string, unknown>>(
      'SELECT first_name, last_name, mobile FROM users WHERE crm_id = $1 AND lower(email) = lower($2)',
      [b.p.crmId, email],
    );
    expect(users).toEqual([{ first_name: 'New', last_name: 'Original', mobile: '+4917022222' }]);
  });

  it('takes a consumer with another e-mail for another person, whatever mobile they share', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { defaultCapacity: 3 });
    const first = consumer({ mobile: '+4917033333' });
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, first))).statusCode).toBe(
      201,
    );
    const [lot] = flatten(await upcoming(t, b.resource.reference));
    const second = await book(
      t,
      b.resource.reference,
      bookBodyFor(lot, b.product.uuid, undefined, consumer({ mobile: '0170 33333' })),
    );
    expect(second.statusCode, second.body).toBe(201);
    const users = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM users WHERE crm_id = $1 AND mobile_e164 = $2',
      [b.p.crmId, '+4917033333'],
    );
    expect(users[0].n).toBe(2);
  });

  it('refuses one consumer twice per appointment (409 AppointmentAlreadyBookedException), via a hold too', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { defaultCapacity: 3 });
    const who = consumer();
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who))).statusCode).toBe(
      201,
    );
    const [lot] = flatten(await upcoming(t, b.resource.reference));
    const twice = await book(t, b.resource.reference, bookBodyFor(lot, b.product.uuid, undefined, who));
    expect(twice.statusCode).toBe(409);
    expect(twice.json().errors[0]).toEqual({
      errorCode: 'AppointmentAlreadyBookedException',
      message: expect.any(String),
    });
    const held = await hold(b, lot);
    const viaHold = await book(t, b.resource.reference, bookBodyFor(lot, b.product.uuid, held.customer_uuid, who));
    expect(viaHold.statusCode).toBe(409);
  });

  it('books IMMEDIATE channels as BOOKED; the confirmation and provider notification go to the outbox', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b);
    const who = consumer({ message: 'Bringing my dog' });
    const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who));
    const [p] = await participationsOf(res.json().createdAppointment.appointment_uuid);
    expect(p).toMatchObject({ state: 'BOOKED', message: 'Bringing my dog' });
    const mails = await outbox(b.p.crmId);
    expect(mails.map((m) => [m.template, m.recipient])).toEqual([
      ['booking-confirmed', who.email],
      ['booking-notification', expect.stringMatching(/@provider\.example$/)],
    ]);
  });

  it('books REQUESTED channels as REQUESTED with the request mails, in the consumer locale', async () => {
    const b = await setupBooking(t, {
      resource: { channels: { RESOURCE_REFERENCE: { bookingProcess: 'REQUESTED' } } },
    });
    const { slot } = await slotOf(b);
    const who = consumer({ locale: 'en_GB', channelKey: 'RESOURCE_REFERENCE' });
    const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who));
    expect(res.statusCode, res.body).toBe(201);
    const [p] = await participationsOf(res.json().createdAppointment.appointment_uuid);
    expect(p).toMatchObject({ state: 'REQUESTED', locale: 'en' });
    const mails = await outbox(b.p.crmId);
    expect(mails).toEqual([
      { template: 'booking-request-to-confirm', recipient: expect.stringMatching(/@provider\.example$/), locale: 'de' },
      { template: 'booking-requested', recipient: who.email, locale: 'en' },
    ]);
  });

  it('accepts the appointment UUID of an already booked group slot as timeslot_uuid', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { defaultCapacity: 3 });
    const first = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid));
    const appointmentUuid = first.json().createdAppointment.appointment_uuid;
    const res = await book(t, b.resource.reference, {
      ...bookBodyFor(slot, b.product.uuid),
      timeslot_uuid: appointmentUuid,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().createdAppointment).toMatchObject({ appointment_uuid: appointmentUuid, capacity_left: 1 });
    // the timeslot UUID keeps working too: it joins the same appointment
    const viaTimeslot = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid));
    expect(viaTimeslot.json().createdAppointment).toMatchObject({
      appointment_uuid: appointmentUuid,
      capacity_left: 0,
    });
  });

  it('refuses a placeholder of another slot with 400', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b, { end: '2026-06-02T10:00' });
    const [, second] = flatten(await upcoming(t, b.resource.reference));
    const held = await hold(b, slot);
    const res = await book(t, b.resource.reference, bookBodyFor(second, b.product.uuid, held.customer_uuid));
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toContain('body.placeholder_id');
  });

  it('answers 412 for a live hold whose appointment was archived or cancelled since, and books nothing', async () => {
    for (const change of ['archived = true', "state = 'CANCELLED'"]) {
      const b = await setupBooking(t);
      const { slot } = await slotOf(b);
      const held = await hold(b, slot);
      // no partner operation leaves a hold live on such an appointment; the guard must hold anyway
      await t.db.query(`UPDATE appointments SET ${change} WHERE id = $1`, [held.appointment_uuid]);
      const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, held.customer_uuid));
      expect(res.statusCode, change).toBe(412);
      expect(errorOf(res).errorCode).toBe('201');
      expect(await participationsOf(held.appointment_uuid)).toEqual([
        expect.objectContaining({ id: held.uuid, state: 'RESERVED' }),
      ]);
    }
  });

  it('formats formattedStart with the timeFormat query parameter', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b);
    const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid), {
      timeFormat: "dd.MM.yyyy 'um' HH:mm",
    });
    expect(res.json().createdAppointment).toMatchObject({
      formattedStart: '02.06.2026 um 09:00',
      start: '2026-06-02T09:00:00+02:00',
    });
  });

  it.each([
    ['email', { email: undefined }, /body\.email is required/],
    ['email', { email: '' }, /body\.email/],
    ['email', { email: 'not-an-email' }, /body\.email must match format "email"/],
    ['firstname', { firstname: undefined }, /body\.firstname is required/],
    ['lastname', { lastname: '' }, /body\.lastname/],
    ['message', { message: 'x'.repeat(1025) }, /body\.message must NOT have more than 1024 characters/],
    ['start', { start: undefined }, /body\.start is required/],
    ['timeslot_uuid', { timeslot_uuid: 'abc' }, /body\.timeslot_uuid/],
    ['end', { end: '2026-06-02T08:00' }, /body\.end must be after body\.start/],
    ['timeFormat', {}, /query\.timeFormat/],
  ])('answers 400 naming %s when it is missing or invalid, before any lookup', async (_field, change, message) => {
    const body = {
      ...bookBodyFor(
        {
          kind: 'models.Bookable',
          timeslot_uuid: '00000000-0000-4000-8000-000000000000',
          start: '2026-06-02T09:00',
          end: '2026-06-02T09:30',
        } as never,
        '00000000-0000-4000-8000-000000000000',
      ),
      ...change,
    };
    const query = message.source.includes('timeFormat') ? { timeFormat: 'qqq' } : undefined;
    const res = await book(t, 'unknown@nowhere', body, query);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ errorCode: 'VALIDATION', message: expect.stringMatching(message) });
  });

  it('accepts a message of exactly 1024 characters', async () => {
    const b = await setupBooking(t);
    const { slot } = await slotOf(b);
    const res = await book(t, b.resource.reference, {
      ...bookBodyFor(slot, b.product.uuid),
      message: 'x'.repeat(1024),
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});
