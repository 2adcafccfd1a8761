/**
 * Availability rules (DESIGN.md §7.14) through the partner API: create, list, read, change, delete,
 * bad input, and what A1 and D2 show at once. The provider's zone is Europe/Berlin; the test clock
 * stands at Monday 2026-06-01 10:00.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { setupBooking, type Booking } from '../helpers/bookingFixtures.js';
import {
  changeRule,
  createRule,
  listedByDay,
  ruleBody,
  rulesPath,
  spans,
  timeslotsOf,
} from '../helpers/availabilityFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The days from..to (both included) whose ISO weekday is listed. */
function countDays(from: string, to: string, weekdays: number[]): number {
  let n = 0;
  for (let d = Date.parse(`${from}T00:00Z`); d <= Date.parse(`${to}T00:00Z`); d += 86_400_000) {
    if (weekdays.includes(((new Date(d).getUTCDay() + 6) % 7) + 1)) n++;
  }
  return n;
}

const listed = (b: Booking, days?: number) => listedByDay(t, b, days);

const MORNING = ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30'];
const AFTERNOON = ['13:00', '13:30', '14:00', '14:30', '15:00', '15:30', '16:00', '16:30'];

describe('an availability rule', () => {
  it('is created with its defaults echoed and publishes 400 days of timeslots that A1 lists at once', async () => {
    const b = await setupBooking(t);
    expect(await listed(b)).toEqual({});
    const body = ruleBody(b);
    const res = await b.p.call('POST', rulesPath(b), body);
    expect(res.statusCode, res.body).toBe(201);
    const { rule } = res.json();
    expect(rule).toEqual({
      reference: body.reference,
      uuid: expect.any(String),
      resourceReference: b.resource.reference,
      weekdays: ['1', '2', '3', '4', '5'],
      windows: body.windows,
      raster: 30,
      defaultCapacity: 1,
      defaultAcceptBookings: true,
      state: 'BOOKABLE',
      validFrom: '2026-06-01',
      validUntil: null,
      publishedUntil: '2027-07-05',
      timeslotsCreated: 2 * countDays('2026-06-01', '2027-07-05', [1, 2, 3, 4, 5]),
    });
    // 10:00 in Berlin: the morning's past slots are not listed
    expect(await listed(b)).toEqual({
      '2026-06-01': ['10:30', '11:00', '11:30', ...AFTERNOON],
      '2026-06-02': [...MORNING, ...AFTERNOON],
    });

    const d2 = await timeslotsOf(b, '2026-06-05T00:00', '2026-06-09T00:00');
    expect(spans(d2)).toEqual([
      '2026-06-05T09:00 12:00',
      '2026-06-05T13:00 17:00',
      '2026-06-08T09:00 12:00',
      '2026-06-08T13:00 17:00',
    ]);
    expect(d2[0]).toMatchObject({
      reference: `${body.reference}:2026-06-05T09:00`,
      ruleReference: body.reference,
      start: '2026-06-05T09:00:00+02:00',
    });
    const last = await timeslotsOf(b, '2027-07-05T00:00', '2027-07-12T00:00');
    expect(spans(last)).toEqual(['2027-07-05T09:00 12:00', '2027-07-05T13:00 17:00']);

    const one = await b.p.call('GET', rulesPath(b, body.reference));
    expect(one.statusCode, one.body).toBe(200);
    const { timeslotsCreated: _, ...stored } = rule;
    expect(one.json().rule).toEqual(stored);
    const list = await b.p.call('GET', rulesPath(b));
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().rules).toEqual([stored]);
  });

  it('takes the given state, acceptance, dates and weekdays, and an earlier validFrom counts from today', async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b, {
      weekdays: ['7', '1'],
      windows: [{ from: '18:00', to: '24:00' }],
      state: 'CREATED',
      defaultAcceptBookings: false,
      validFrom: '2026-05-01',
      validUntil: '2026-06-15',
    });
    expect(rule).toMatchObject({
      weekdays: ['1', '7'],
      state: 'CREATED',
      validFrom: '2026-05-01',
      validUntil: '2026-06-15',
      publishedUntil: '2026-06-15',
    });
    expect(rule.timeslotsCreated).toBe(countDays('2026-06-01', '2026-06-15', [1, 7]));
    expect(spans(await timeslotsOf(b, '2026-05-01T00:00', '2026-06-09T00:00'))).toEqual([
      '2026-06-01T18:00 00:00',
      '2026-06-07T18:00 00:00',
      '2026-06-08T18:00 00:00',
    ]);
    expect(await listed(b)).toEqual({}); // CREATED: hidden

    const later = await createRule(b, { validFrom: '2027-06-28' });
    expect(later).toMatchObject({
      validFrom: '2027-06-28',
      timeslotsCreated: 2 * countDays('2027-06-28', '2027-07-05', [1, 2, 3, 4, 5]),
    });
    const far = await createRule(b, { validFrom: '2028-01-03' });
    expect(far.timeslotsCreated).toBe(0);
  });

  it('refuses bad input with 400 naming the field, and unknown references with 404', async () => {
    const b = await setupBooking(t);
    const bad = async (over: object, field: RegExp, path = rulesPath(b), method: 'POST' = 'POST') => {
      const res = await b.p.call(method, path, path === rulesPath(b) ? ruleBody(b, over) : over);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'VALIDATION', message: expect.stringMatching(field) });
    };
    await bad({ weekdays: undefined }, /^body\.weekdays is required/);
    await bad({ weekdays: [] }, /^body\.weekdays must NOT have fewer than 1 items/);
    await bad({ weekdays: ['8'] }, /^body\.weekdays\.0 /);
    await bad({ weekdays: ['1', '1'] }, /^body\.weekdays .*duplicate/);
    await bad({ windows: [] }, /^body\.windows must NOT have fewer than 1 items/);
    await bad(
      { windows: Array.from({ length: 11 }, (_, i) => ({ from: `0${i % 10}:00`, to: `0${i % 10}:30` })) },
      /^body\.windows must NOT have more than 10 items/,
    );
    await bad({ windows: [{ from: '9:00', to: '12:00' }] }, /^body\.windows\.0\.from must be a time of day HH:mm/);
    await bad({ windows: [{ from: '24:00', to: '24:00' }] }, /^body\.windows\.0\.from must be a time of day/);
    await bad(
      { windows: [{ from: '09:00', to: '24:30' }] },
      /^body\.windows\.0\.to must be a time of day HH:mm such as 17:00, or 24:00/,
    );
    await bad(
      { windows: [{ from: '12:00', to: '09:00' }] },
      /^body\.windows\[0\]\.to must be after body\.windows\[0\]\.from, got 12:00-09:00/,
    );
    await bad(
      {
        windows: [
          { from: '13:00', to: '17:00' },
          { from: '09:00', to: '13:30' },
        ],
      },
      /^body\.windows\[0\] \(13:00-17:00\) overlaps body\.windows\[1\] \(09:00-13:30\)/,
    );
    await bad({ windows: [{ from: '09:00', to: '12:00', note: 'x' }] }, /^body\.windows\.0\.note is not allowed/);
    await bad({ raster: 0 }, /^body\.raster must be >= 1/);
    await bad({ defaultCapacity: -1 }, /^body\.defaultCapacity must be >= 0/);
    await bad({ state: 'OPEN' }, /^body\.state must be one of BOOKABLE, CREATED/);
    await bad({ validFrom: '2026-02-30' }, /^body\.validFrom must be a date such as 2026-06-01/);
    await bad({ validUntil: '2026-06-01T10:00' }, /^body\.validUntil must be a date/);
    await bad(
      { validFrom: '2026-07-01', validUntil: '2026-06-30' },
      /^body\.validUntil must not be before body\.validFrom/,
    );
    await bad(
      { validUntil: '2026-05-31' },
      /^body\.validUntil must not be before body\.validFrom \(validFrom 2026-06-01, validUntil 2026-05-31\)/,
    );
    await bad({ validTo: '2026-07-01' }, /^body\.validTo is not allowed/);
    await bad({ reference: '' }, /^body\.reference must NOT have fewer than 1 characters/);

    const rule = await createRule(b);
    const path = rulesPath(b, rule.reference);
    await bad({ windows: [{ from: '10:00', to: '10:00' }] }, /^body\.windows\[0\]\.to must be after/, path);
    await bad({ reference: 'renamed' }, /^body\.reference is not allowed/, path);
    await bad({ validFrom: '2026-09-01', validUntil: '2026-08-01' }, /^body\.validUntil must not be before/, path);
    await bad({ validUntil: '2026-05-01' }, /^body\.validUntil must not be before body\.validFrom/, path);
    await changeRule(b, rule.reference, { validUntil: '2026-12-31' });
    await bad(
      { validFrom: '2027-01-01' },
      /^body\.validFrom must not be after the rule's validUntil \(validFrom 2027-01-01, /,
      path,
    );

    const missing = async (method: 'GET' | 'POST' | 'DELETE', p: string, body?: object, message?: RegExp) => {
      const res = await b.p.call(method, p, body);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().errors[0]).toMatchObject({
        errorCode: 'NOT_FOUND',
        ...(message ? { message: expect.stringMatching(message) } : {}),
      });
    };
    await missing(
      'POST',
      rulesPath(b),
      ruleBody(b, { resourceReference: 'no-such-resource' }),
      /no resource found for reference no-such-resource/,
    );
    await missing('POST', path, { resourceReference: 'no-such-resource' }, /no resource found/);
    await missing(
      'GET',
      rulesPath(b, 'no-such-rule'),
      undefined,
      /no availability rule found for reference no-such-rule/,
    );
    await missing('POST', rulesPath(b, 'no-such-rule'), { raster: 15 });
    await missing('DELETE', rulesPath(b, 'no-such-rule'));
    await missing('GET', '/provider/no-such-provider/availability-rules', undefined, /no provider found/);

    const twice = await b.p.call('POST', rulesPath(b), ruleBody(b, { reference: rule.reference }));
    expect(twice.statusCode, twice.body).toBe(409);
    expect(twice.json().errors[0].message).toBe(`an availability rule with reference ${rule.reference} already exists`);
  });

  it('changes the given fields and A1 follows at once', async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b);
    expect(await listed(b, 1)).toEqual({ '2026-06-01': ['10:30', '11:00', '11:30', ...AFTERNOON] });
    const changed = await changeRule(b, rule.reference, { windows: [{ from: '14:00', to: '16:00' }], raster: 60 });
    expect(changed.keptTimeslots).toEqual([]);
    expect(changed.rule).toMatchObject({
      windows: [{ from: '14:00', to: '16:00' }],
      raster: 60,
      weekdays: rule.weekdays,
      validFrom: '2026-06-01',
    });
    expect(changed.rule.timeslotsCreated).toBe(countDays('2026-06-01', '2027-07-05', [1, 2, 3, 4, 5]));
    expect(await listed(b, 2)).toEqual({ '2026-06-01': ['14:00', '15:00'], '2026-06-02': ['14:00', '15:00'] });
    expect(spans(await timeslotsOf(b, '2026-06-01T00:00', '2026-06-03T00:00'))).toEqual([
      '2026-06-01T14:00 16:00',
      '2026-06-02T14:00 16:00',
    ]);

    const ended = await changeRule(b, rule.reference, { validUntil: '2026-06-02', weekdays: ['2', '3'] });
    expect(ended.rule).toMatchObject({
      validUntil: '2026-06-02',
      publishedUntil: '2026-06-02',
      weekdays: ['2', '3'],
      timeslotsCreated: 1,
    });
    expect(await listed(b, 5)).toEqual({ '2026-06-02': ['14:00', '15:00'] });
    expect(spans(await timeslotsOf(b, '2026-06-01T00:00', '2027-08-01T00:00'))).toEqual(['2026-06-02T14:00 16:00']);
  });

  it('is deleted with its timeslots from today on, at once in A1; its past timeslots stay', async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b, { validFrom: '2026-05-25' });
    t.clock.advance(7 * 86_400_000);
    try {
      expect(Object.keys(await listed(b, 1))).toEqual(['2026-06-08']);
      const del = await b.p.call('DELETE', rulesPath(b, rule.reference));
      expect(del.statusCode, del.body).toBe(204);
      expect(await listed(b)).toEqual({});
      expect((await b.p.call('GET', rulesPath(b, rule.reference))).statusCode).toBe(404);
      expect((await b.p.call('DELETE', rulesPath(b, rule.reference))).statusCode).toBe(404);
      // what it made before today (made on 2026-06-01, from then on) is history: a one-off timeslot now
      const past = await timeslotsOf(b, '2026-05-25T00:00', '2026-06-09T00:00');
      expect(spans(past)).toEqual([
        '2026-06-01T09:00 12:00',
        '2026-06-01T13:00 17:00',
        '2026-06-02T09:00 12:00',
        '2026-06-02T13:00 17:00',
        '2026-06-03T09:00 12:00',
        '2026-06-03T13:00 17:00',
        '2026-06-04T09:00 12:00',
        '2026-06-04T13:00 17:00',
        '2026-06-05T09:00 12:00',
        '2026-06-05T13:00 17:00',
      ]);
      expect(past.every((s) => s.ruleReference === null)).toBe(true);
    } finally {
      t.clock.advance(-7 * 86_400_000);
    }
  });
});
