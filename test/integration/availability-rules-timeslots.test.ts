/**
 * A rule's timeslots are ordinary timeslots (DESIGN.md §7.14): D3 and D4 act on them, they go with
 * their resource, closures take time away from them, and each window keeps its wall-clock times on
 * the days the clocks change. The provider's zone is Europe/Berlin; the test clock stands at Monday
 * 2026-06-01 10:00.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { setupBooking, type Booking } from '../helpers/bookingFixtures.js';
import { createRule, listedByDay, rulesPath, spans, timeslotsOf } from '../helpers/availabilityFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const listed = (b: Booking, days?: number) => listedByDay(t, b, days);

describe("an availability rule's timeslots", () => {
  it('makes ordinary timeslots: D3 changes one, D4 deletes one, and the rule leaves both alone', async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b, { weekdays: ['2'] });
    const path = (ref: string) => `${b.base}/timeslots/${encodeURIComponent(ref)}`;
    const changed = await b.p.call('PUT', path(`${rule.reference}:2026-06-02T09:00`), {
      defaultCapacity: 3,
      end: '2026-06-02T10:00',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().timeslot).toMatchObject({
      ruleReference: rule.reference,
      defaultCapacity: 3,
      end: '2026-06-02T10:00:00+02:00',
    });
    const onto = await b.p.call('PUT', path(`${rule.reference}:2026-06-09T09:00`), {
      start: '2026-06-09T13:00',
      end: '2026-06-09T14:00',
    });
    expect(onto.statusCode, onto.body).toBe(409);
    expect(onto.json().errors[0].message).toMatch(/another timeslot of its availability rule starts then/);
    const deleted = await b.p.call('DELETE', path(`${rule.reference}:2026-06-02T13:00`));
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await listed(b, 1)).toEqual({ '2026-06-02': ['09:00', '09:30'] });
    const [{ n }] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM timeslots WHERE rule_id = $1', [
      rule.uuid,
    ]);
    expect(n).toBe(rule.timeslotsCreated - 1);
  });

  it('goes with its resource (B6)', async () => {
    const b = await setupBooking(t);
    await createRule(b);
    const gone = await b.p.call('DELETE', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`);
    expect(gone.statusCode, gone.body).toBe(204);
    const list = await b.p.call('GET', rulesPath(b));
    expect(list.json().rules).toEqual([]);
  });

  it('is taken away by a closure over its day, as every timeslot is', async () => {
    const b = await setupBooking(t);
    await createRule(b);
    const closed = await b.p.call('POST', `${b.base}/closures`, {
      resourceReference: b.resource.reference,
      start: '2026-06-02T00:00',
      end: '2026-06-03T00:00',
      reason: 'holiday',
    });
    expect(closed.statusCode, closed.body).toBe(201);
    expect(Object.keys(await listed(b, 3))).toEqual(['2026-06-01', '2026-06-03', '2026-06-04']);
    expect(spans(await timeslotsOf(b, '2026-06-02T00:00', '2026-06-03T00:00'))).toEqual([
      '2026-06-02T09:00 12:00',
      '2026-06-02T13:00 17:00',
    ]);
  });

  it("keeps each window's wall-clock times on the days the clocks change", async () => {
    const b = await setupBooking(t);
    // Sundays: 01:00-04:00 across the change, 02:30-03:00 partly in the spring gap
    await createRule(b, {
      weekdays: ['7'],
      windows: [
        { from: '01:00', to: '02:00' },
        { from: '02:30', to: '04:00' },
      ],
      validFrom: '2026-10-18',
      validUntil: '2027-04-04',
    });
    const autumn = await timeslotsOf(b, '2026-10-25T00:00', '2026-10-26T00:00');
    expect(autumn.map((s) => `${s.start} ${s.end}`)).toEqual([
      '2026-10-25T01:00:00+02:00 2026-10-25T02:00:00+02:00',
      '2026-10-25T02:30:00+02:00 2026-10-25T04:00:00+01:00', // 02:30 occurs twice: the first; 2.5 real hours
    ]);
    const spring = await timeslotsOf(b, '2027-03-28T00:00', '2027-03-29T00:00');
    expect(spring.map((s) => `${s.start} ${s.end}`)).toEqual([
      '2027-03-28T01:00:00+01:00 2027-03-28T03:00:00+02:00', // 02:00 does not exist: moved forward by the hour
      '2027-03-28T03:30:00+02:00 2027-03-28T04:00:00+02:00',
    ]);
    const plain = await timeslotsOf(b, '2026-11-01T00:00', '2026-11-02T00:00');
    expect(plain.map((s) => `${s.start} ${s.end}`)).toEqual([
      '2026-11-01T01:00:00+01:00 2026-11-01T02:00:00+01:00',
      '2026-11-01T02:30:00+01:00 2026-11-01T04:00:00+01:00',
    ]);
  });
});
