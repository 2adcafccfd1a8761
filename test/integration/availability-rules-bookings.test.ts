/**
 * Availability rules and what is booked on their timeslots (DESIGN.md §7.14): a change or a delete
 * keeps the dates holding a live booking or a partner's appointment (keptTimeslots), remakes the
 * others at once, and a booking racing a change never ends up on a removed timeslot. The provider's
 * zone is Europe/Berlin; the test clock starts at Monday 2026-06-01 10:00.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { changeRule, createRule, rulesPath, spans, timeslotsOf } from '../helpers/availabilityFixtures.js';
import {
  book,
  bookBodyFor,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';
import { bookSlot } from '../helpers/lifecycleFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 100_000, maxHoldsPerIp: 1000 });
});
afterAll(() => t.close());

async function slots(b: Booking): Promise<ListedBookable[]> {
  return flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));
}
const at = (list: ListedBookable[], day: string, hhmm: string) =>
  list.find((s) => s.start.startsWith(`${day}T${hhmm}`))!;

/** The timeslot a booking's appointment was made from, if it is still there. */
async function timeslotOf(appointmentId: string): Promise<{ reference: string } | undefined> {
  const [row] = await t.db.query<{ reference: string }>(
    'SELECT t.reference FROM appointments a JOIN timeslots t ON t.id = a.timeslot_id WHERE a.id = $1',
    [appointmentId],
  );
  return row;
}

describe('changing or deleting a rule', () => {
  it("keeps the dates with a live booking, a live hold or a partner's appointment, remakes the others", async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b);
    let listed = await slots(b);
    // 2026-06-05: a hold that expires; 2026-06-08: a booking that is cancelled; neither keeps its date
    const expiring = await reserve(
      t,
      b.resource.reference,
      reserveBodyFor(at(listed, '2026-06-05', '09:00'), b.product.uuid),
    );
    expect(expiring.statusCode, expiring.body).toBe(201);
    t.clock.advance(200_000);
    const cancelled = await bookSlot(t, b, at(listed, '2026-06-08', '09:00'));
    const cancel = await t.app.inject({ method: 'POST', url: `/cancel/${cancelled.token}` });
    expect(cancel.statusCode, cancel.body).toBe(200);
    // 2026-06-02: a booking; 2026-06-03: a live hold; 2026-06-04: the partner's own appointment
    listed = await slots(b);
    const booked = await bookSlot(t, b, at(listed, '2026-06-02', '09:00'));
    const held = await reserve(
      t,
      b.resource.reference,
      reserveBodyFor(at(listed, '2026-06-03', '15:00'), b.product.uuid),
    );
    expect(held.statusCode, held.body).toBe(201);
    const partner = await b.p.call('POST', `${b.base}/appointments`, {
      reference: 'partner-apt@crm',
      start: '2026-06-04T16:30',
      end: '2026-06-04T18:00',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
    });
    expect(partner.statusCode, partner.body).toBe(201);
    const partnerEvening = await b.p.call('POST', `${b.base}/appointments`, {
      reference: 'partner-evening@crm',
      start: '2026-06-09T17:00',
      end: '2026-06-09T18:00',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
    });
    expect(partnerEvening.statusCode, partnerEvening.body).toBe(201); // touches 17:00: meets no timeslot

    const { rule: changed, keptTimeslots } = await changeRule(b, rule.reference, {
      windows: [{ from: '10:00', to: '16:00' }],
    });
    const ref = (day: string, from: string) => `${rule.reference}:${day}T${from}`;
    expect(keptTimeslots).toEqual([
      ref('2026-06-02', '09:00'),
      ref('2026-06-02', '13:00'),
      ref('2026-06-03', '09:00'),
      ref('2026-06-03', '13:00'),
      ref('2026-06-04', '09:00'),
      ref('2026-06-04', '13:00'),
    ]);
    expect(changed.timeslotsCreated).toBe(rule.timeslotsCreated / 2 - 3);
    expect(spans(await timeslotsOf(b, '2026-06-01T00:00', '2026-06-10T00:00'))).toEqual([
      '2026-06-01T10:00 16:00',
      '2026-06-02T09:00 12:00',
      '2026-06-02T13:00 17:00',
      '2026-06-03T09:00 12:00',
      '2026-06-03T13:00 17:00',
      '2026-06-04T09:00 12:00',
      '2026-06-04T13:00 17:00',
      '2026-06-05T10:00 16:00',
      '2026-06-08T10:00 16:00',
      '2026-06-09T10:00 16:00',
    ]);
    // A1 at once: the kept day as it was (less the booking), the others the new way
    const after = await slots(b);
    const day = (d: string) => after.filter((s) => s.start.startsWith(d)).map((s) => s.start.slice(11, 16));
    expect(day('2026-06-02')).toEqual([
      '09:30',
      '10:00',
      '10:30',
      '11:00',
      '11:30',
      '13:00',
      '13:30',
      '14:00',
      '14:30',
      '15:00',
      '15:30',
      '16:00',
      '16:30',
    ]);
    expect(day('2026-06-05')).toEqual([
      '10:00',
      '10:30',
      '11:00',
      '11:30',
      '12:00',
      '12:30',
      '13:00',
      '13:30',
      '14:00',
      '14:30',
      '15:00',
      '15:30',
    ]);
    // the booking stands on its timeslot; the expired hold's appointment was released with its timeslot
    expect(await timeslotOf(booked.appointment_uuid)).toEqual({ reference: ref('2026-06-02', '09:00') });
    const [released] = await t.db.query<{ state: string }>('SELECT state FROM appointments WHERE id = $1', [
      expiring.json().participation.appointment_uuid,
    ]);
    expect(released.state).toBe('CANCELLED');

    // the hold turns into a booking on its kept timeslot
    const hold = held.json().participation;
    const done = await book(
      t,
      b.resource.reference,
      bookBodyFor(at(listed, '2026-06-03', '15:00'), b.product.uuid, hold.customer_uuid),
    );
    expect(done.statusCode, done.body).toBe(201);
    expect(await timeslotOf(done.json().createdAppointment.appointment_uuid)).toEqual({
      reference: ref('2026-06-03', '13:00'),
    });

    // deleting the rule keeps those dates too, as one-off timeslots
    expect((await b.p.call('DELETE', rulesPath(b, rule.reference))).statusCode).toBe(204);
    const left = await timeslotsOf(b, '2026-06-01T00:00', '2027-08-01T00:00');
    expect(spans(left)).toEqual([
      '2026-06-02T09:00 12:00',
      '2026-06-02T13:00 17:00',
      '2026-06-03T09:00 12:00',
      '2026-06-03T13:00 17:00',
      '2026-06-04T09:00 12:00',
      '2026-06-04T13:00 17:00',
    ]);
    expect(left.every((s) => s.ruleReference === null)).toBe(true);
    // two booked, and 16:30 of 2026-06-04 under the partner's appointment
    expect(await slots(b)).toHaveLength(3 * 14 - 3);
  });

  it("keeps a date a partner's appointment overlaps, and a booking survives the rule's deletion", async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b, { weekdays: ['2'] });
    const partner = await b.p.call('POST', `${b.base}/appointments`, {
      reference: 'partner-lunch@crm',
      start: '2026-06-09T11:30',
      end: '2026-06-09T12:30',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
    });
    expect(partner.statusCode, partner.body).toBe(201);
    const booked = await bookSlot(t, b, at(await slots(b), '2026-06-16', '16:30'));
    const del = await b.p.call('DELETE', rulesPath(b, rule.reference));
    expect(del.statusCode, del.body).toBe(204);
    expect(spans(await timeslotsOf(b, '2026-06-01T00:00', '2026-07-01T00:00'))).toEqual([
      '2026-06-09T09:00 12:00',
      '2026-06-09T13:00 17:00',
      '2026-06-16T09:00 12:00',
      '2026-06-16T13:00 17:00',
    ]);
    expect(await timeslotOf(booked.appointment_uuid)).toEqual({ reference: `${rule.reference}:2026-06-16T13:00` });
  });
});

describe('a booking racing a rule change', () => {
  it('lands on a kept date or fails cleanly with 404, never on a removed timeslot', async () => {
    const b = await setupBooking(t);
    const rule = await createRule(b, { weekdays: ['1', '2', '3', '4', '5', '6', '7'] });
    let windows = [{ from: '08:00', to: '11:00' }];
    let booked = 0;
    const bookedDays = new Set<string>();
    for (let round = 0; round < 4; round++) {
      // one free slot on each of 12 dates no earlier round touched, booked while the rule changes
      const listed = await slots(b);
      const days = [...new Set(listed.map((s) => s.start.slice(0, 10)))].slice(2 + round * 12, 14 + round * 12);
      const targets = days.map((d) => at(listed, d, '10:30'));
      const bookings = targets.map((s) => book(t, b.resource.reference, bookBodyFor(s, b.product.uuid)));
      const change = b.p.call('POST', rulesPath(b, rule.reference), { windows });
      const answers = await Promise.all(bookings);
      const changed = await change;
      expect(changed.statusCode, changed.body).toBe(200);
      const kept: string[] = changed.json().keptTimeslots;
      for (const [i, res] of answers.entries()) {
        // after the change the old timeslot is gone: 404, never a 500 or a booking on nothing
        expect([201, 404], res.body).toContain(res.statusCode);
        if (res.statusCode !== 201) continue;
        booked++;
        bookedDays.add(days[i]);
        const on = await timeslotOf(res.json().createdAppointment.appointment_uuid);
        expect(on && kept.includes(on.reference), `the booking on ${targets[i].start} stands on a kept timeslot`).toBe(
          true,
        );
      }
      expect(new Set(kept.map((r) => r.slice(rule.reference.length + 1, rule.reference.length + 11)))).toEqual(
        bookedDays,
      );
      windows = windows[0].from === '08:00' ? [{ from: '09:00', to: '12:00' }] : [{ from: '08:00', to: '11:00' }];
    }
    expect(booked).toBeGreaterThan(0);
    const [orphans] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM participations p JOIN appointments a ON a.id = p.appointment_id
        WHERE p.provider_id = $1 AND p.state IN ('BOOKED', 'REQUESTED')
          AND (a.timeslot_id IS NULL OR a.state <> 'ACTIVE')`,
      [b.provider.providerUuid],
    );
    expect(orphans.n).toBe(0);
  });
});
