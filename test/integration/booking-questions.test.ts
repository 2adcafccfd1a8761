/**
 * Booking questions (DESIGN 7.7, docs/api.md "Booking questions"): a product's questions on B1 and
 * its update, A4 in the consumer's language, A3's answers checked rule by rule (400 naming the key,
 * nothing booked, the hold kept), and the stored answers with their labels at booking time in
 * D2/D5/D9/D10, reschedule, the provider's calendar feed and the pages, never on public answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  publicCall,
  reserve,
  reserveBodyFor,
  upcoming,
} from '../helpers/bookingFixtures.js';
import { moveBodyFor, reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';
import {
  bookWithAnswers,
  GOOD_ANSWERS,
  participationsOf,
  QUESTIONS,
  setupQuestions,
  STORED_ANSWERS,
} from '../helpers/questionsFixtures.js';
import { createProduct } from '../helpers/offeringsFixtures.js';
import { setupBooking } from '../helpers/bookingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

const enc = encodeURIComponent;
const activeProducts = (ref: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  publicCall(t, 'POST', '/products/active_products', undefined, { ref, ...query }, headers);

describe('questions on a product (B1, product update, B2)', () => {
  it('are stored as given, with required false and the longest answer filled in, and listed by B2', async () => {
    const { b } = await setupQuestions(t);
    const res = await b.p.call('GET', `${b.base}/products`);
    const [product] = res.json();
    expect(product.questions).toEqual([
      { ...QUESTIONS[0] },
      { ...QUESTIONS[1], required: false },
      { ...QUESTIONS[2], required: false, maxLength: 2000 },
      { ...QUESTIONS[3] },
      { ...QUESTIONS[4], required: false, maxLength: 254 },
      { ...QUESTIONS[5], required: false, maxLength: 32 },
    ]);
  });

  it('are replaced by the update, cleared by null, and a product without any shows []', async () => {
    const b = await setupBooking(t);
    const update = (body: object) => b.p.call('POST', `${b.base}/products/${enc(b.product.reference)}`, body);
    expect((await update({ name: 'Still no questions' })).json().product.questions).toEqual([]);
    const one = [{ key: 'size', type: 'text', label: { de: 'Größe', en: 'Size' }, maxLength: 10 }];
    const res = await update({ questions: one });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().product.questions).toEqual([{ ...one[0], required: false }]);
    expect((await update({ questions: null })).json().product.questions).toEqual([]);
  });

  const q = (over: object) => ({ key: 'k', type: 'text', label: { de: 'K', en: 'K' }, ...over });
  const cases: [string, unknown, RegExp][] = [
    ['a key that breaks the pattern', [q({ key: 'Persons' })], /body\.questions\.0\.key must be a lower-case letter/],
    ['a key of 41 characters', [q({ key: `a${'b'.repeat(40)}` })], /body\.questions\.0\.key/],
    [
      'a key used twice',
      [q({ key: 'a' }), q({ key: 'a' })],
      /body\.questions\.1\.key a is used by an earlier question/,
    ],
    [
      'an unknown type',
      [q({ type: 'number' })],
      /body\.questions\.0\.type must be one of text, textarea, select, checkbox, email, phone/,
    ],
    ['a select without options', [q({ type: 'select' })], /body\.questions\.0\.options is required/],
    [
      'options on a text question',
      [q({ options: [{ value: 'a', label: { de: 'a', en: 'a' } }] })],
      /body\.questions\.0\.options is not allowed for a question of type text \(options: select only/,
    ],
    [
      'option values used twice',
      [
        q({
          type: 'select',
          options: [
            { value: 'a', label: { de: 'a', en: 'a' } },
            { value: 'a', label: { de: 'b', en: 'b' } },
          ],
        }),
      ],
      /body\.questions\.0\.options\.1\.value a/,
    ],
    [
      'maxLength on a checkbox',
      [q({ type: 'checkbox', maxLength: 5 })],
      /body\.questions\.0\.maxLength is not allowed for a question of type checkbox, email or phone \(/,
    ],
    ['a text maxLength over 500', [q({ maxLength: 501 })], /body\.questions\.0\.maxLength must be <= 500/],
    ['a label without English', [q({ label: { de: 'K' } })], /body\.questions\.0\.label\.en is required/],
    ['an unknown member', [q({ hint: 'x' })], /body\.questions\.0\.hint is not allowed/],
    [
      '21 questions',
      Array.from({ length: 21 }, (_, i) => q({ key: `k${i}` })),
      /body\.questions must NOT have more than 20 items/,
    ],
  ];
  it.each(cases)('refuse %s with a 400 naming the field, and create nothing', async (_name, questions, message) => {
    const b = await setupBooking(t);
    const reference = `q-${Math.random().toString(36).slice(2)}@crm`;
    const res = await b.p.call('POST', `${b.base}/products`, { reference, name: 'X', questions });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0]).toEqual({ errorCode: 'VALIDATION', message: expect.stringMatching(message) });
    const listed = (await b.p.call('GET', `${b.base}/products`)).json() as { reference: string }[];
    expect(listed.map((p) => p.reference)).not.toContain(reference);
    // the update checks the same, and changes nothing
    const upd = await b.p.call('POST', `${b.base}/products/${enc(b.product.reference)}`, { questions });
    expect(upd.statusCode, upd.body).toBe(400);
    expect((await b.p.call('GET', `${b.base}/products`)).json()[0].questions).toEqual([]);
  });
});

describe('A4 active_products', () => {
  it("shows the questions in the consumer's language: languageTag, else Accept-Language, else German", async () => {
    const { b } = await setupQuestions(t);
    const labels = async (query: Record<string, string>, headers: Record<string, string> = {}) => {
      const res = await activeProducts(b.resource.reference, query, headers);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().products[0].questions;
    };
    const en = await labels({ languageTag: 'en_GB' });
    expect(en[0]).toEqual({
      key: 'persons',
      type: 'select',
      required: true,
      label: 'How many people?',
      options: [
        { value: '1', label: 'One person' },
        { value: '2', label: 'Two people' },
      ],
    });
    expect(en.map((x: { label: string }) => x.label)).toEqual(QUESTIONS.map((x) => x.label.en));
    expect(en[1]).toMatchObject({ key: 'plate', type: 'text', required: false, maxLength: 12 });
    expect((await labels({}, { 'accept-language': 'en-US,en;q=0.8' })).map((x: { label: string }) => x.label)).toEqual(
      QUESTIONS.map((x) => x.label.en),
    );
    expect((await labels({})).map((x: { label: string }) => x.label)).toEqual(QUESTIONS.map((x) => x.label.de));
    expect((await labels({ languageTag: 'de' }, { 'accept-language': 'en' }))[3].label).toBe('Ich stimme zu');
  });
});

describe('A3 answers', () => {
  const bad: [string, object, RegExp][] = [
    ['a missing required answer', { ...GOOD_ANSWERS, persons: undefined }, /^body\.answers\.persons is required$/],
    ['a blank required answer', { ...GOOD_ANSWERS, persons: '  ' }, /^body\.answers\.persons is required$/],
    [
      'a value not among the options',
      { ...GOOD_ANSWERS, persons: '3' },
      /^body\.answers\.persons must be one of 1, 2$/,
    ],
    [
      'a key the product does not ask',
      { ...GOOD_ANSWERS, pets: 'a cat' },
      /^body\.answers\.pets is not a question of this product$/,
    ],
    [
      'a text over its maxLength',
      { ...GOOD_ANSWERS, plate: 'X'.repeat(13) },
      /^body\.answers\.plate must have at most 12 characters$/,
    ],
    [
      'a textarea over 2000 characters',
      { ...GOOD_ANSWERS, notes: 'x'.repeat(2001) },
      /body\.answers\.notes must NOT have more than 2000 characters/,
    ],
    ['a number for a text', { ...GOOD_ANSWERS, plate: 12 }, /body\.answers\.plate must be string/],
    ['text for a checkbox', { ...GOOD_ANSWERS, consent: 'yes' }, /^body\.answers\.consent must be true or false$/],
    [
      'a required checkbox not ticked',
      { ...GOOD_ANSWERS, consent: false },
      /^body\.answers\.consent must be true: the question is required$/,
    ],
    ['a boolean for a select', { ...GOOD_ANSWERS, persons: true }, /^body\.answers\.persons must be one of 1, 2$/],
    [
      'an email that is none',
      { ...GOOD_ANSWERS, work_email: 'erika at work' },
      /^body\.answers\.work_email must be an email address/,
    ],
    [
      'a phone that is none',
      { ...GOOD_ANSWERS, insurance_phone: 'call me' },
      /^body\.answers\.insurance_phone must be a phone number/,
    ],
    ['no answers at all', {}, /^body\.answers\.persons is required; body\.answers\.consent is required$/],
  ];
  it.each(bad)(
    'refuse %s with 400 VALIDATION naming the key; nothing is booked and the hold stays',
    async (_name, answers, message) => {
      const { b, slots } = await setupQuestions(t);
      const held = await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid));
      expect(held.statusCode, held.body).toBe(201);
      const placeholder = held.json().participation.customer_uuid;
      const body = { ...bookBodyFor(slots[0], b.product.uuid, placeholder), answers };
      const res = await book(t, b.resource.reference, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ errorCode: 'VALIDATION', message: expect.stringMatching(message) }]);
      // nothing booked, the hold still RESERVED: the same consumer books it with good answers
      expect((await participationsOf(b)).map((p) => p.state)).toEqual(['RESERVED']);
      await bookWithAnswers(t, b, slots[0], GOOD_ANSWERS, consumer(), placeholder);
      expect((await participationsOf(b)).map((p) => p.state)).toEqual(['BOOKED']);
    },
  );

  it('without any questions: no answers are fine, and any answer is a key the product does not ask', async () => {
    const b = await setupBooking(t);
    await b.p.call('POST', `${b.base}/timeslots`, {
      timeslots: [
        {
          resourceReference: b.resource.reference,
          start: '2026-06-02T09:00',
          end: '2026-06-02T10:00',
          raster: 30,
          defaultCapacity: 1,
          defaultAcceptBookings: true,
          state: 'BOOKABLE',
        },
      ],
    });
    const slot = (await upcoming(t, b.resource.reference)).json()['2026-06-02'][0];
    const res = await book(t, b.resource.reference, {
      ...bookBodyFor(slot, b.product.uuid),
      answers: { persons: '2' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toBe('body.answers.persons is not a question of this product');
    await bookWithAnswers(t, b, slot, {});
    expect((await participationsOf(b))[0].answers).toEqual([]);
  });
});

describe('stored answers', () => {
  it('show in D5, D2, D9 and D10 with the labels of booking time, also after the questions change', async () => {
    const { b, slots } = await setupQuestions(t);
    // with a hold (book_hold) and without one (claim_place); optional answers left out are not stored
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid));
    await bookWithAnswers(t, b, slots[0], GOOD_ANSWERS, consumer(), held.json().participation.customer_uuid);
    await bookWithAnswers(t, b, slots[1], { persons: '1', consent: true, plate: '' });
    const [first, second] = await participationsOf(b);
    expect(first.answers).toEqual(STORED_ANSWERS);
    expect(second.answers).toEqual([{ ...STORED_ANSWERS[0], value: '1' }, STORED_ANSWERS[3]]);

    const renamed = QUESTIONS.map((x) => ({ ...x, label: { de: `Neu: ${x.label.de}`, en: `New: ${x.label.en}` } }));
    expect(
      (await b.p.call('POST', `${b.base}/products/${enc(b.product.reference)}`, { questions: renamed.slice(1) }))
        .statusCode,
    ).toBe(200);
    expect((await participationsOf(b))[0].answers).toEqual(STORED_ANSWERS);

    const d2 = await b.p.call('GET', `${b.base}/resource/${enc(b.resource.reference)}/timeslots`, undefined, {
      from: '2026-06-02T00:00',
      to: '2026-06-03T00:00',
    });
    expect(d2.statusCode, d2.body).toBe(200);
    expect(d2.json().appointments[0].participations[0].answers).toEqual(STORED_ANSWERS);

    const apptRef = d2.json().appointments[0].reference;
    const customerRef = d2.json().appointments[0].participations[0].customerReference;
    const d9 = await b.p.call(
      'POST',
      `${b.base}/participations`,
      { reference: first.reference, appointmentReference: apptRef, customerReference: customerRef, state: 'BOOKED' },
      { sendMails: 'false' },
    );
    expect(d9.statusCode, d9.body).toBe(200);
    expect(d9.json().participation.answers).toEqual(STORED_ANSWERS);
    const d10 = await b.p.call(
      'POST',
      `${b.base}/participations/${enc(first.reference)}`,
      { state: 'CANCELED' },
      { sendMails: 'false' },
    );
    expect(d10.statusCode, d10.body).toBe(200);
    expect(d10.json().participation.answers).toEqual(STORED_ANSWERS);
  });

  it('stay with the booking when it is rescheduled', async () => {
    const { b, slots } = await setupQuestions(t);
    const created = await bookWithAnswers(t, b, slots[0]);
    const moved = await reschedule(t, tokenOf(created.cancelLink), moveBodyFor(slots[2]));
    expect(moved.statusCode, moved.body).toBe(200);
    const res = await b.p.call('GET', `${b.base}/appointments`);
    const withPeople = (res.json() as { start: string; participations: { answers: unknown }[] }[]).filter(
      (a) => a.participations.length > 0,
    );
    expect(withPeople.map((a) => a.start)).toEqual([slots[2].start]);
    expect(withPeople[0].participations[0].answers).toEqual(STORED_ANSWERS);
  });

  it("show on the consumer's own manage page, and in no public answer", async () => {
    const { b, slots } = await setupQuestions(t, { capacity: 2 });
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid));
    const bookRes = await book(t, b.resource.reference, {
      ...bookBodyFor(slots[0], b.product.uuid, held.json().participation.customer_uuid),
      answers: GOOD_ANSWERS,
    });
    expect(bookRes.statusCode).toBe(201);
    const manage = await t.app.inject({
      method: 'GET',
      url: new URL(bookRes.json().createdAppointment.cancelLink).pathname,
    });
    expect(manage.statusCode).toBe(200);
    expect(manage.body).toContain('Kennzeichen');
    expect(manage.body).toContain('B-XY 123');
    expect(manage.body).toContain('Zweiter Stock,<br>bitte klingeln');

    // a second consumer's way through the flow sees none of the first one's answers
    const publicAnswers = [
      bookRes.body,
      (await upcoming(t, b.resource.reference)).body,
      (
        await reserve(
          t,
          b.resource.reference,
          reserveBodyFor(
            {
              ...slots[0],
              kind: 'models.LotAppointment',
              appointment_uuid: bookRes.json().createdAppointment.appointment_uuid,
            },
            b.product.uuid,
          ),
        )
      ).body,
      (await activeProducts(b.resource.reference)).body,
      (await publicCall(t, 'POST', '/resources/public_data', undefined, { ref: b.resource.reference })).body,
    ];
    for (const body of publicAnswers) {
      expect(body).not.toContain('B-XY 123');
      expect(body).not.toContain('erika@work.example');
    }
    // after cancelling, the page confirms without repeating them
    const done = await t.app.inject({
      method: 'POST',
      url: new URL(bookRes.json().createdAppointment.cancelLink).pathname,
      payload: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(done.statusCode).toBe(200);
    expect(done.body).not.toContain('B-XY 123');
  });

  it("show in the provider's calendar feed DESCRIPTION, under the participant's name", async () => {
    const { b, slots } = await setupQuestions(t);
    await bookWithAnswers(t, b, slots[0], GOOD_ANSWERS, consumer({ firstname: 'Erika', lastname: 'Muster' }));
    const feed = (await b.p.call('POST', `${b.base}/calendar-feeds`, {})).json().feed;
    const ics = (await t.app.inject({ method: 'GET', url: new URL(feed.url).pathname })).body.replace(/\r\n[ \t]/g, '');
    const description = /DESCRIPTION:(.*)/.exec(ics)![1].replace(/\\n/g, '\n').replace(/\\,/g, ',');
    expect(description).toContain('Erika Muster');
    expect(description).toContain('  Wie viele Personen?: 2');
    expect(description).toContain('  Ich stimme zu: Ja');
    expect(description).toContain('  Kennzeichen: B-XY 123');
  });

  it('of another product of the provider are not asked on this one', async () => {
    const { b, slots } = await setupQuestions(t);
    const other = await createProduct(b.p, b.provider.providerRef, {
      questions: [{ key: 'other', type: 'text', label: { de: 'O', en: 'O' } }],
    });
    expect(other.questions).toHaveLength(1);
    const res = await book(t, b.resource.reference, {
      ...bookBodyFor(slots[0], b.product.uuid),
      answers: { ...GOOD_ANSWERS, other: 'x' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toBe('body.answers.other is not a question of this product');
  });
});
