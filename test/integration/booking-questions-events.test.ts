/**
 * Booking questions' answers in webhook participation.* data (DESIGN 7.7, docs/webhooks.md), as a
 * real receiver gets them: A3 with and without a hold, and the reschedule.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueId } from '../helpers/app.js';
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
} from '../helpers/bookingFixtures.js';
import { moveBodyFor, reschedule, tokenOf } from '../helpers/lifecycleFixtures.js';
import { GOOD_ANSWERS, QUESTIONS, STORED_ANSWERS } from '../helpers/questionsFixtures.js';
import { startWebhookTest, subscribe, type WebhookTest } from '../helpers/webhookFixtures.js';

let t: WebhookTest;
beforeAll(async () => {
  t = await startWebhookTest({}, { perEndpoint: 1 });
});
afterAll(() => t.close());

const day = DateTime.now().setZone('Europe/Berlin').plus({ days: 2 }).toISODate();

describe('participation events', () => {
  it('carry the answers with their labels; a hold has none yet', async () => {
    const b = await setupBooking(t, { product: { questions: QUESTIONS } });
    const at = `/${uniqueId('hook')}`;
    await subscribe(b.p, `${t.receiver.url}${at}`, {
      events: ['participation.reserved', 'participation.booked', 'participation.rescheduled'],
    });
    await createTimeslots(b, [{ start: `${day}T09:00`, end: `${day}T11:00`, raster: 30 }]);
    const slots = flatten(await upcoming(t, b.resource.reference));
    const held = await reserve(t, b.resource.reference, reserveBodyFor(slots[0], b.product.uuid));
    const first = await book(t, b.resource.reference, {
      ...bookBodyFor(slots[0], b.product.uuid, held.json().participation.customer_uuid),
      answers: GOOD_ANSWERS,
    });
    expect(first.statusCode, first.body).toBe(201);
    const second = await book(t, b.resource.reference, {
      ...bookBodyFor(slots[1], b.product.uuid, undefined, consumer()),
      answers: { persons: '1', consent: true },
    });
    expect(second.statusCode, second.body).toBe(201);
    const moved = await reschedule(t, tokenOf(first.json().createdAppointment.cancelLink), moveBodyFor(slots[2]));
    expect(moved.statusCode, moved.body).toBe(200);

    await t.receiver.waitFor((r) => r.filter((x) => x.path === at).length >= 4);
    const events = t.receiver.events(at).map((e) => [e.body.type, e.body.data.participation.answers]);
    expect(events).toEqual([
      ['participation.reserved', []],
      ['participation.booked', STORED_ANSWERS],
      ['participation.booked', [{ ...STORED_ANSWERS[0], value: '1' }, STORED_ANSWERS[3]]],
      ['participation.rescheduled', STORED_ANSWERS],
    ]);
  });
});
