/**
 * Everything after a booking through a pool names the member assigned (issue 53, DESIGN 7.11):
 * the webhook events (plus poolReference), the mails, D5, and the reschedule, which may move the
 * booking to any member of the pool.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueId } from '../helpers/app.js';
import { book, consumer, flatten, upcoming } from '../helpers/bookingFixtures.js';
import { reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';
import { outboxOf } from '../helpers/mailFixtures.js';
import { memberTimeslots, setupPool, type PoolSetup } from '../helpers/poolFixtures.js';
import { startWebhookTest, subscribe, type WebhookTest } from '../helpers/webhookFixtures.js';

let t: WebhookTest;
beforeAll(async () => {
  t = await startWebhookTest({}, { perEndpoint: 1 });
});
afterAll(() => t.close());

const day = DateTime.now().setZone('Europe/Berlin').plus({ days: 2 }).toISODate();

async function bookThroughPool(s: PoolSetup, start: string) {
  const slot = (flatten(await upcoming(t, s.pool.reference)) as unknown as { start: string; end: string }[]).find((x) =>
    x.start.startsWith(`${day}T${start}`),
  )!;
  const res = await book(t, s.pool.reference, {
    start: slot.start,
    end: slot.end,
    pool_uuid: s.pool.uuid,
    product_uuid: s.product.uuid,
    ...consumer(),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().createdAppointment;
}

describe('downstream of a pool booking', () => {
  it('the webhook events carry poolReference and name the member; the mails name the member', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: `${day}T09:00`, end: `${day}T10:00` }]);
    const at = `/${uniqueId('hook')}`;
    await subscribe(s.p, `${t.receiver.url}${at}`, { events: ['participation.booked'] });
    await bookThroughPool(s, '09:00');
    const second = await bookThroughPool(s, '09:00');
    expect(second.resource_uuid).toBe(s.members[1].uuid);
    expect(second.resource_name).toBe(s.members[1].publicName);
    await t.receiver.waitFor(() => t.receiver.events(at).length >= 2);
    const events = t.receiver.events(at).map((e) => e.body.data);
    expect(events.map((d) => [d.poolReference, d.appointment.resourceReference])).toEqual([
      [s.pool.reference, s.members[0].reference],
      [s.pool.reference, s.members[1].reference],
    ]);
    const mails = (await outboxOf(t, s.p.crmId)).filter((m) => m.template === 'booking-confirmed');
    expect(mails).toHaveLength(2);
    expect(
      mails.map((m) => (m.payload as { appointment: { resourceName: string } }).appointment.resourceName).sort(),
    ).toEqual([s.members[0].publicName, s.members[1].publicName].sort());
  });

  it('D5 lists the booking on the member; a reschedule may move it to another member', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: `${day}T11:00`, end: `${day}T12:00` }]);
    const booked = await bookThroughPool(s, '11:00');
    expect(booked.resource_uuid).toBe(s.members[0].uuid);
    const d5 = await s.p.call('GET', `${s.base}/appointments`, undefined, { resourceRef: s.members[0].reference });
    expect(d5.statusCode).toBe(200);
    expect(d5.json().map((a: { resourceReference: string }) => a.resourceReference)).toEqual([s.members[0].reference]);
    // the other member's 11:30 slot
    const target = flatten(await upcoming(t, s.members[1].reference)).find((x) => x.start.includes('T11:30'))!;
    const moved = await reschedule(t, tokenOf(booked.cancelLink), {
      start: target.start,
      end: target.end,
      timeslot_uuid: target.timeslot_uuid,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().createdAppointment.resource_uuid).toBe(s.members[1].uuid);
  });
});
