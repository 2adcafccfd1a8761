/**
 * Error messages are written for a person (DESIGN 7.10): the field and the rule named, times in
 * ISO 8601 in the provider's zone, never a database's text. test/helpers/contract.ts scans the
 * error message of every answer in every integration test for a database-formatted timestamp
 * ("2026-11-30 08:30:00+00") and fails the test that got one; here the 412s of a taken slot, which
 * carried one, and a scan of every message this file's requests produced.
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
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { DATABASE_TIMESTAMP } from '../helpers/contract.js';

let t: TestApp;
beforeAll(async () => {
  // the test clock stands at 2026-06-01T08:00Z; the slots are on 2026-06-02 (CEST, +02:00)
  t = await startTestApp();
});
afterAll(() => t.close());

async function slotsOf(b: Booking) {
  await createTimeslots(b, [{}]);
  return flatten(await upcoming(t, b.resource.uuid));
}

describe('a taken slot (412, errorCode "201")', () => {
  it('names the field and the slot in ISO 8601 in the provider zone when it overlaps another appointment', async () => {
    // 15 minutes of follow-up after 09:00-09:30 reach into 09:30-10:00
    const b = await setupBooking(t, { product: { followUpTimeMinutes: 15 } });
    const [nine, half] = await slotsOf(b);
    expect((await book(t, b.resource.uuid, bookBodyFor(nine, b.product.uuid))).statusCode).toBe(201);
    const res = await book(
      t,
      b.resource.uuid,
      bookBodyFor(half, b.product.uuid, undefined, consumer({ email: 'second@example.com' })),
    );
    expect(res.statusCode).toBe(412);
    expect(res.json().errors).toEqual([
      {
        errorCode: '201',
        message:
          'body.start: the slot 2026-06-02T09:30:00+02:00 to 2026-06-02T10:00:00+02:00 (Europe/Berlin) ' +
          'is taken: it overlaps another appointment of this resource; choose another slot',
      },
    ]);
  });

  it('names the field and the slot when its last place is gone, in A2 (from) as in A3 (start)', async () => {
    const b = await setupBooking(t, { timeZone: 'America/New_York' });
    await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T10:00' }]);
    const [first] = flatten(await upcoming(t, b.resource.uuid));
    expect((await book(t, b.resource.uuid, bookBodyFor(first, b.product.uuid))).statusCode).toBe(201);
    const again = await book(
      t,
      b.resource.uuid,
      bookBodyFor(first, b.product.uuid, undefined, consumer({ email: 'late@example.com' })),
    );
    expect(again.statusCode).toBe(412);
    expect(again.json().errors[0].message).toMatch(
      /^body\.start: the slot 2026-06-02T09:00:00-04:00 to 2026-06-02T09:30:00-04:00 \(America\/New_York\) /,
    );
    const hold = await reserve(t, b.resource.uuid, {
      timeslot_uuid: first.timeslot_uuid,
      product_uuid: b.product.uuid,
      from: first.start,
      to: first.end,
    });
    expect(hold.statusCode).toBe(412);
    expect(hold.json().errors[0].message).toMatch(
      /^body\.from: the slot 2026-06-02T09:00:00-04:00 to 2026-06-02T09:30:00-04:00 \(America\/New_York\) /,
    );
  });
});

describe('every error message of this file', () => {
  it('names a field or a rule, and none carries a database-formatted timestamp', () => {
    const messages = t.contract.errorMessages;
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(messages.filter((m) => DATABASE_TIMESTAMP.test(m))).toEqual([]);
    expect(DATABASE_TIMESTAMP.test('the slot 2026-11-30 08:30:00+00 overlaps another appointment')).toBe(true);
  });
});
