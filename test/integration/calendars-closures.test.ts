/**
 * Closures (DESIGN.md §7.6): a closure blocks at once like an appointment of the resource (buffers
 * counted), A2/A3/reschedule answer 412 "201" for a slot inside one, the partner's D6/D9 go through
 * and name the overlap, appointments inside a new closure stay and are named. The provider's zone
 * is Europe/Berlin; times without an offset are its wall time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  createTimeslots,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
  type ListedBookable,
} from '../helpers/bookingFixtures.js';
import { bookSlot, moveBodyFor, reschedule } from '../helpers/lifecycleFixtures.js';
import { createResource } from '../helpers/offeringsFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** 09:00-11:00 at raster 30, a product with a 15-minute follow-up buffer: 09:00, 09:30, 10:00, 10:30. */
async function ground(): Promise<Booking> {
  const b = await setupBooking(t, { product: { followUpTimeMinutes: 15 } });
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 }]);
  return b;
}

async function slots(b: Booking, resourceRef = b.resource.reference): Promise<ListedBookable[]> {
  return flatten(await upcoming(t, resourceRef, { prdRef: b.product.reference }));
}
const times = async (b: Booking, resourceRef?: string) =>
  (await slots(b, resourceRef)).map((s) => s.start.slice(11, 16));

function close(b: Booking, body: object) {
  return b.p.call('POST', `${b.base}/closures`, body);
}

describe('a closure', () => {
  it('blocks at once, buffers counted, touching is fine; removing it frees the time at once', async () => {
    const b = await ground();
    expect(await times(b)).toEqual(['09:00', '09:30', '10:00', '10:30']);
    const res = await close(b, {
      resourceReference: b.resource.reference,
      start: '2026-06-02T10:00',
      end: '2026-06-02T10:30',
      reason: 'dentist',
    });
    expect(res.statusCode, res.body).toBe(201);
    const { closure } = res.json();
    expect(closure).toMatchObject({
      resourceReference: b.resource.reference,
      start: '2026-06-02T10:00:00+02:00',
      end: '2026-06-02T10:30:00+02:00',
      reason: 'dentist',
      conflictingAppointments: [],
    });
    // 09:30 ends at 10:00 but its follow-up buffer reaches 10:15
    expect(await times(b)).toEqual(['09:00', '10:30']);

    const del = await b.p.call('DELETE', `${b.base}/closures/${closure.id}`);
    expect(del.statusCode, del.body).toBe(204);
    expect(await times(b)).toEqual(['09:00', '09:30', '10:00', '10:30']);
    expect((await b.p.call('DELETE', `${b.base}/closures/${closure.id}`)).statusCode).toBe(404);
  });

  it('refuses A2, A3 and a reschedule into it with 412 "201"', async () => {
    const b = await ground();
    const before = await slots(b);
    const at = (hhmm: string) => before.find((s) => s.start.slice(11, 16) === hhmm)!;
    const booked = await bookSlot(t, b, at('09:00'));
    expect((await close(b, { start: '2026-06-02T10:00', end: '2026-06-02T11:00' })).statusCode).toBe(201);

    const held = await reserve(t, b.resource.reference, reserveBodyFor(at('10:00'), b.product.uuid));
    expect(held.statusCode, held.body).toBe(412);
    expect(held.json().errors[0]).toMatchObject({ errorCode: '201' });
    expect(held.json().errors[0].message).toMatch(/busy/);
    const direct = await book(t, b.resource.reference, bookBodyFor(at('10:30'), b.product.uuid));
    expect(direct.statusCode, direct.body).toBe(412);
    const moved = await reschedule(t, booked.token, moveBodyFor(at('10:00')));
    expect(moved.statusCode, moved.body).toBe(412);
    expect(moved.json().errors[0].errorCode).toBe('201');
  });

  it('without a resource covers every resource of the provider, also one created later', async () => {
    const b = await ground();
    expect((await close(b, { start: '2026-06-02T09:00', end: '2026-06-02T10:00' })).statusCode).toBe(201);
    expect(await times(b)).toEqual(['10:00', '10:30']);
    const later = await createResource(b.p, b.provider.providerRef, { products: [b.product.reference] });
    await createTimeslots(b, [
      { resourceReference: later.reference, start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 },
    ]);
    expect(await times(b, later.reference)).toEqual(['10:00', '10:30']);
  });

  it('leaves appointments inside it in place and names them; D6 and D9 go through and name the overlap', async () => {
    const b = await ground();
    const [first] = await slots(b);
    const booked = await bookSlot(t, b, first);
    const res = await close(b, { start: '2026-06-02T08:00', end: '2026-06-02T09:15' });
    expect(res.statusCode, res.body).toBe(201);
    const { closure } = res.json();
    const [row] = await t.db.query<{ reference: string; state: string }>(
      'SELECT reference, state FROM appointments WHERE id = $1',
      [booked.appointment_uuid],
    );
    expect(closure.conflictingAppointments).toEqual([row.reference]);
    expect(row.state).toBe('ACTIVE');

    const d6 = await b.p.call('POST', `${b.base}/appointments`, {
      reference: 'closed-apt@crm',
      start: '2026-06-02T08:00',
      end: '2026-06-02T08:30',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
      capacity: 2,
    });
    expect(d6.statusCode, d6.body).toBe(201);
    const overlap = {
      source: 'closure',
      sourceId: closure.id,
      start: '2026-06-02T08:00:00+02:00',
      end: '2026-06-02T09:15:00+02:00',
    };
    expect(d6.json().busyOverlaps).toEqual([overlap]);

    const customer = await b.p.call('POST', `${b.base}/customers`, {
      customerReference: 'closed-cust@crm',
      providerReference: b.provider.providerRef,
      userName: 'Partner Guest',
      email: 'guest@consumer.example',
    });
    expect(customer.statusCode, customer.body).toBe(201);
    const d9 = await b.p.call('POST', `${b.base}/participations`, {
      reference: 'closed-part@crm',
      appointmentReference: 'closed-apt@crm',
      customerReference: 'closed-cust@crm',
      state: 'BOOKED',
    });
    expect(d9.statusCode, d9.body).toBe(201);
    expect(d9.json().busyOverlaps).toEqual([overlap]);

    const outside = await b.p.call('POST', `${b.base}/appointments`, {
      reference: 'open-apt@crm',
      start: '2026-06-02T12:00',
      end: '2026-06-02T12:30',
      resourceReference: b.resource.reference,
      productReference: b.product.reference,
    });
    expect(outside.statusCode, outside.body).toBe(201);
    expect(outside.json().busyOverlaps).toEqual([]);
  });

  it('is listed from now on, and shown among the busy times without its reason', async () => {
    const b = await ground();
    const past = await close(b, { start: '2026-05-01T00:00', end: '2026-05-02T00:00', reason: 'long gone' });
    expect(past.statusCode).toBe(201);
    const coming = (
      await close(b, {
        resourceReference: b.resource.reference,
        start: '2026-06-03T00:00+02:00',
        end: '2026-06-04T00:00+02:00',
        reason: 'holiday',
      })
    ).json().closure;
    const list = await b.p.call('GET', `${b.base}/closures`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().closures.map((c: { id: string }) => c.id)).toEqual([coming.id]);
    const all = await b.p.call('GET', `${b.base}/closures`, undefined, { from: '2026-04-01T00:00' });
    expect(all.json().closures).toHaveLength(2);

    const busy = await b.p.call('GET', `${b.base}/busy-times`, undefined, { resourceReference: b.resource.reference });
    expect(busy.statusCode, busy.body).toBe(200);
    expect(busy.json().busyTimes).toEqual([
      { start: '2026-06-03T00:00:00+02:00', end: '2026-06-04T00:00:00+02:00', source: 'closure', sourceId: coming.id },
    ]);
    expect(busy.body).not.toContain('holiday');
  });

  it.each([
    [{ start: '2026-06-02T10:00', end: '2026-06-02T10:00' }, 400, /body\.end must be after body\.start/],
    [{ start: '2026-06-02T10:00', end: '2027-07-08T10:00' }, 400, /at most 400 days/],
    [{ start: 'tomorrow', end: '2026-06-02T10:00' }, 400, /body\.start/],
    [{ start: '2026-06-02T10:00' }, 400, /end/],
    [{ start: '2026-06-02T10:00', end: '2026-06-02T11:00', resourceReference: 'nobody@crm' }, 404, /nobody@crm/],
  ])('answers %j with %i naming the field', async (body, status, message) => {
    const b = await ground();
    const res = await close(b, body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().errors[0].message).toMatch(message);
    expect(await times(b)).toEqual(['09:00', '09:30', '10:00', '10:30']);
  });

  it('answers 404 for an unknown closure id and 400 for a busy-times range over 400 days', async () => {
    const b = await ground();
    expect((await b.p.call('DELETE', `${b.base}/closures/not-a-uuid`)).statusCode).toBe(404);
    const wide = await b.p.call('GET', `${b.base}/busy-times`, undefined, {
      from: '2026-06-01T00:00',
      to: '2028-06-01T00:00',
    });
    expect(wide.statusCode).toBe(400);
    expect(wide.json().errors[0].message).toMatch(/query\.to/);
  });
});
