/**
 * Who the consumer is (DESIGN 7.12, issue 51), with the four inputs of the report as tests: a shared
 * phone, common written forms of phone numbers, a data request by another form of the number, and
 * SEQUENCE as a small counter; and the places that find a person agreeing on one rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventSequences } from '../../src/calendars/eventSequences.js';
import { renderMail } from '../../src/notifications/render.js';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  publicCall,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { moveBodyFor, reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';
import { outboxOf } from '../helpers/mailFixtures.js';
import { QUESTIONS } from '../helpers/questionsFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    bookingRateLimitPerMinute: 10_000,
    maxHoldsPerIp: 1_000,
    publicBaseUrl: 'https://book.example',
  });
});
afterAll(() => t.close());

async function provider(options: Parameters<typeof setupBooking>[1] = {}): Promise<Booking> {
  const b = await setupBooking(t, options);
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T12:00' }]);
  return b;
}

/** A3 on the first free slot; the answer. */
async function bookFirst(b: Booking, who: object, extra: object = {}) {
  const [slot] = flatten(await upcoming(t, b.resource.reference));
  return book(t, b.resource.reference, { ...bookBodyFor(slot, b.product.uuid, undefined, who), ...extra });
}

const household = () => {
  const id = uniqueId('h');
  return {
    anna: { email: `anna.${id}@home.example`, firstname: 'Anna', lastname: 'Home', mobile: '+49 170 5550123' },
    ben: { email: `ben.${id}@home.example`, firstname: 'Ben', lastname: 'Home', mobile: '+49 170 5550123' },
  };
};

/** D5: each participation's customer as the provider sees it, by participation reference. */
async function participantsOf(b: Booking) {
  const res = await b.p.call('GET', `${b.base}/appointments`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { participations: { uuid: string; name: string; email: string; mobile: string }[] }[]).flatMap(
    (a) => a.participations,
  );
}

describe('a shared phone', () => {
  it("files Ben's booking under Ben, mails Ben at ben@, and gives Anna no hold on it", async () => {
    const b = await provider();
    const { anna, ben } = household();
    const a = await bookFirst(b, anna);
    const z = await bookFirst(b, ben);
    expect([a.statusCode, z.statusCode]).toEqual([201, 201]);
    const annaLink: string = a.json().createdAppointment.cancelLink;
    const benLink: string = z.json().createdAppointment.cancelLink;

    const people = await participantsOf(b);
    expect(people.map((p) => [p.name, p.email]).sort()).toEqual([
      ['Anna Home', anna.email],
      ['Ben Home', ben.email],
    ]);
    const users = await t.db.query<{ email: string }>(
      'SELECT email FROM users WHERE crm_id = $1 AND mobile_e164 = $2 ORDER BY email',
      [b.p.crmId, '+491705550123'],
    );
    expect(users.map((u) => u.email)).toEqual([anna.email, ben.email]);

    const consumerMails = (await outboxOf(t, b.p.crmId)).filter((m) => m.template === 'booking-confirmed');
    expect(consumerMails.map((m) => m.recipient).sort()).toEqual([anna.email, ben.email]);
    for (const m of consumerMails) {
      const { text, html } = renderMail(m, { mailFrom: t.config.mailFrom });
      const [own, other] = m.recipient === ben.email ? [benLink, annaLink] : [annaLink, benLink];
      expect(text).toContain(own);
      expect(text + html).not.toContain(tokenOf(other));
    }
    // Anna's "my bookings" shows hers only
    expect(
      (await publicCall(t, 'POST', '/rest/1/my-bookings', { email: anna.email }, { ref: b.resource.reference }))
        .statusCode,
    ).toBe(202);
    const [listMail] = (await outboxOf(t, b.p.crmId)).filter((m) => m.template === 'my-bookings');
    expect(listMail.recipient).toBe(anna.email);
    const link = /\/my-bookings\/(\S+)/.exec(renderMail(listMail, { mailFrom: t.config.mailFrom }).text)![1];
    const list = await publicCall(t, 'GET', `/rest/1/my-bookings/${link}`);
    expect(list.json().bookings.map((x: { cancelLink: string }) => x.cancelLink)).toEqual([annaLink]);
  });

  it("takes the provider's customer that has no e-mail and this number, in another written form", async () => {
    const b = await provider();
    const reference = `${uniqueId('cust')}@crm`;
    const made = await b.p.call('POST', `${b.base}/customers`, {
      customerReference: reference,
      providerReference: b.provider.providerRef,
      userName: 'Walk-in',
      mobile: '+49 (170) 333-3333',
    });
    expect(made.statusCode, made.body).toBe(201);
    const who = consumer({ mobile: '0170 3333333' });
    expect((await bookFirst(b, who)).statusCode).toBe(201);
    const customer = await b.p.call('GET', `${b.base}/customers/${encodeURIComponent(reference)}`);
    expect(customer.json().customer).toMatchObject({
      userName: 'Walk-in',
      email: who.email,
      mobile: '+49 (170) 333-3333',
    });
    // the next person with that number but their own e-mail is someone else
    expect((await bookFirst(b, consumer({ mobile: '+491703333333' }))).statusCode).toBe(201);
    const [{ n }] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM customers WHERE provider_id = (SELECT provider_id FROM customers
         WHERE reference = $1)`,
      [reference],
    );
    expect(n).toBe(2);
  });

  it('keeps one consumer one person in any letter case: the second booking of the same slot is 409', async () => {
    const b = await provider();
    await createTimeslots(b, [{ start: '2026-06-03T09:00', end: '2026-06-03T09:30', defaultCapacity: 3 }]);
    const who = consumer({ mobile: '0151 2345678' });
    const slot = flatten(await upcoming(t, b.resource.reference)).find((s) => s.start.startsWith('2026-06-03'))!;
    expect((await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who))).statusCode).toBe(
      201,
    );
    const [lot] = flatten(await upcoming(t, b.resource.reference)).filter((s) => s.start.startsWith('2026-06-03'));
    const again = await book(
      t,
      b.resource.reference,
      bookBodyFor(lot, b.product.uuid, undefined, {
        ...who,
        email: who.email.toUpperCase(),
        mobile: '+49 151 2345678',
      }),
    );
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].errorCode).toBe('AppointmentAlreadyBookedException');
  });

  it('refuses a mobile no country could have with 400 naming body.mobile, and books nothing', async () => {
    const b = await provider();
    const res = await bookFirst(b, consumer({ mobile: '12' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'VALIDATION',
      message: expect.stringMatching(/^body\.mobile /),
    });
    expect(await participantsOf(b)).toEqual([]);
  });
});

describe('phone numbers in a phone question', () => {
  const phoneOnly = [QUESTIONS.find((q) => q.key === 'insurance_phone')!];
  const offer = (countryCode?: string) =>
    provider({
      product: { questions: phoneOnly },
      resource: countryCode
        ? { address: { street: 'Main', number: '1', zip: '10001', city: 'Somewhere', countryCode } }
        : {},
    });

  it.each([
    ['(030) 1234-5678', undefined],
    ['(0)30 12345678', 'DE'],
    ['(555) 010-9999', 'US'],
  ])('accepts %s (country %s) and keeps it as typed', async (phone, country) => {
    const b = await offer(country);
    const res = await bookFirst(b, consumer(), { answers: { insurance_phone: phone } });
    expect(res.statusCode, res.body).toBe(201);
    const d5 = await b.p.call('GET', `${b.base}/appointments`);
    expect(d5.json()[0].participations[0].answers).toEqual([
      { key: 'insurance_phone', label: phoneOnly[0].label, value: phone },
    ]);
  });

  it('refuses a number no country could have with 400 naming the question', async () => {
    const b = await offer('US');
    const res = await bookFirst(b, consumer(), { answers: { insurance_phone: '555' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toMatch(/^body\.answers\.insurance_phone must be a phone number/);
  });
});

describe('a data request by mobile', () => {
  it('finds the person by +4915123456789 when it was typed +49 151 2345 6789, and erases them', async () => {
    const b = await provider();
    const id = uniqueId('m');
    const who = consumer({ email: `${id}@consumer.example`, mobile: '+49 151 2345 6789' });
    expect((await bookFirst(b, who)).statusCode).toBe(201);
    const partnerMade = await b.p.call('POST', `${b.base}/customers`, {
      customerReference: `${id}@crm`,
      providerReference: b.provider.providerRef,
      userName: 'Same Number',
      mobile: '+49 151 23456789',
    });
    expect(partnerMade.statusCode, partnerMade.body).toBe(201);

    const exported = await b.p.call('GET', '/consumer-data', undefined, { mobile: '+4915123456789' });
    expect(exported.statusCode, exported.body).toBe(200);
    const data = exported.json().consumer;
    expect(data.users.map((u: { email: string }) => u.email)).toEqual([who.email]);
    expect(data.customers.map((c: { mobile: string }) => c.mobile).sort()).toEqual([
      '+49 151 2345 6789',
      '+49 151 23456789',
    ]);
    expect(data.participations).toHaveLength(1);

    const erased = await b.p.call('POST', '/consumer-data/erase', { mobile: '0049 151 23456789' });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().erased).toMatchObject({ users: 1, customers: 2, participations: 1 });
    const after = await b.p.call('GET', '/consumer-data', undefined, { mobile: '+49 151 2345 6789' });
    expect(after.json().consumer).toMatchObject({ users: [], customers: [], participations: [] });
  });
});

describe('SEQUENCE', () => {
  const sequences = async (crmId: string) =>
    (await outboxOf(t, crmId))
      .map((m) => renderMail(m, { mailFrom: t.config.mailFrom }).calendar?.content)
      .filter((c): c is string => Boolean(c))
      .map((ics) => Number(/^SEQUENCE:(\d+)\r?$/m.exec(ics)![1]));

  it('is 0 for the invite, 1 after a move, 2 after the cancel: a small counter per booking', async () => {
    const b = await provider();
    const res = await bookFirst(b, consumer());
    expect(res.statusCode).toBe(201);
    const token = tokenOf(res.json().createdAppointment.cancelLink);
    const later = flatten(await upcoming(t, b.resource.reference)).at(-1)!;
    expect((await reschedule(t, token, moveBodyFor(later))).statusCode).toBe(200);
    expect((await publicCall(t, 'POST', `/cancel/${token}`)).statusCode).toBe(200);
    expect(await sequences(b.p.crmId)).toEqual([0, 1, 2]);
  });

  it('is one counter per appointment for feed and CalDAV write-back, raised by a change either shows', async () => {
    const b = await provider();
    const res = await bookFirst(b, consumer());
    const id: string = res.json().createdAppointment.appointment_uuid;
    const at = async (writer: 'feed' | 'write-back', digest: string) =>
      (await eventSequences(t.db, writer, [{ id, digest }])).get(id);
    expect(await at('feed', 'f1')).toBe(0);
    expect(await at('write-back', 'w1')).toBe(0); // its first version of the event: the number as it stands
    expect(await at('feed', 'f1')).toBe(0); // unchanged: the same number
    expect(await at('write-back', 'w2')).toBe(1);
    expect(await at('feed', 'f2')).toBe(2);
    expect(await at('write-back', 'w2')).toBe(2);
  });

  it("starts a feed's event at 0", async () => {
    const b = await provider();
    expect((await bookFirst(b, consumer())).statusCode).toBe(201);
    const feed = await b.p.call('POST', `${b.base}/calendar-feeds`, {});
    const ics = (await publicCall(t, 'GET', new URL(feed.json().feed.url).pathname)).body;
    expect(/^SEQUENCE:(\d+)\r?$/m.exec(ics)![1]).toBe('0');
  });
});
