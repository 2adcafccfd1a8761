/**
 * Everything after a booking through a pool names the member assigned (issue 53, DESIGN 7.11):
 * the webhook events (plus poolReference), the mails and their calendar part, the calendar feeds,
 * D2 and D5, the consumer's manage page, and the reschedule, which may move the booking to any
 * member of the pool: to a member's slot (timeslot_uuid) or to whichever member the pool picks
 * (pool_uuid). Concurrent reschedules through a pool: pools-race.test.ts.
 */
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMail } from '../../src/notifications/render.js';
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

type Member = PoolSetup['members'][number];

/** The calendar part of each consumer mail of this template, rendered as the mail worker renders it. */
async function calendarsOf(s: PoolSetup, template: string) {
  return (await outboxOf(t, s.p.crmId))
    .filter((m) => m.template === template)
    .map((m) => {
      const ics = renderMail(
        { template: m.template, locale: m.locale, recipient: m.recipient, payload: m.payload },
        { mailFrom: t.config.mailFrom },
      ).calendar!.content;
      const event = new ICAL.Event(new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')!);
      return { uid: event.uid, summary: event.summary, description: event.description, start: event.startDate };
    });
}

async function newFeed(s: PoolSetup, member?: Member) {
  const res = await s.p.call(
    'POST',
    `${s.base}/calendar-feeds`,
    member ? { resourceReference: member.reference } : undefined,
  );
  expect(res.statusCode, res.body).toBe(201);
  return new URL(res.json().feed.url).pathname;
}

/** A feed's events: UID and SUMMARY. */
async function feedEvents(path: string) {
  const res = await t.app.inject({ method: 'GET', url: path });
  expect(res.statusCode).toBe(200);
  return new ICAL.Component(ICAL.parse(res.body))
    .getAllSubcomponents('vevent')
    .map((v) => new ICAL.Event(v))
    .map((e) => ({ uid: e.uid, summary: e.summary }));
}

/** D5 on one member: its active appointments' resource and participants. */
async function d5(s: PoolSetup, member: Member) {
  const res = await s.p.call('GET', `${s.base}/appointments`, undefined, { resourceRef: member.reference });
  expect(res.statusCode, res.body).toBe(200);
  return (
    res.json() as {
      uuid: string;
      start: string;
      state: string;
      resourceReference: string;
      participations: { email: string; state: string }[];
    }[]
  ).filter((a) => a.participations.some((p) => p.state === 'BOOKED'));
}

const managePage = async (cancelLink: string) => {
  const res = await t.app.inject({ method: 'GET', url: `${new URL(cancelLink).pathname}?lang=en` });
  expect(res.statusCode).toBe(200);
  return res.body;
};

/** The pool's listed slot at that local time of `day` (a models.PoolBookable). */
async function poolSlot(s: PoolSetup, time: string) {
  const slot = (flatten(await upcoming(t, s.pool.reference)) as unknown as PoolBookable[]).find((x) =>
    x.start.startsWith(`${day}T${time}`),
  );
  expect(slot, `a pool slot at ${time}`).toBeDefined();
  return slot!;
}

interface PoolBookable {
  kind: string;
  pool_uuid: string;
  start: string;
  end: string;
  capacity_left: number;
}

describe('what names the member of a pool booking', () => {
  it('the calendar part of the mails names the member, as a booking of the resource itself does', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: `${day}T13:00`, end: `${day}T14:00` }]);
    const first = await bookThroughPool(s, '13:00');
    const second = await bookThroughPool(s, '13:00');
    // a booking of member 2 itself, not through the pool: what its calendar part says of its resource
    const direct = flatten(await upcoming(t, s.members[1].reference)).find((x) => x.start.includes('T13:30'))!;
    const res = await book(t, s.members[1].reference, {
      start: direct.start,
      end: direct.end,
      timeslot_uuid: direct.timeslot_uuid,
      product_uuid: s.product.uuid,
      ...consumer(),
    });
    expect(res.statusCode, res.body).toBe(201);
    const calendars = await calendarsOf(s, 'booking-confirmed');
    expect(calendars).toHaveLength(3);
    const whereOf = (description: string) => description.split('\n').find((l) => /^(Wo|Where): /.test(l));
    const [a, b, own] = calendars;
    expect(whereOf(a.description)).toMatch(new RegExp(`: ${s.members[0].publicName}\\b`));
    expect(whereOf(b.description)).toMatch(new RegExp(`: ${s.members[1].publicName}\\b`));
    // the member's line reads as its own booking's does
    expect(whereOf(b.description)).toBe(whereOf(own.description));
    for (const c of calendars) expect(`${c.summary}\n${c.description}`).not.toContain(s.pool.publicName);
    expect([a.uid, b.uid]).not.toContain(own.uid);
    expect(first.resource_uuid).toBe(s.members[0].uuid);
    expect(second.resource_uuid).toBe(s.members[1].uuid);
  });

  it("the calendar feeds list a pool booking in its member's feed and name the member", async () => {
    const s = await setupPool(t, 2);
    const [feed0, feed1, all] = [await newFeed(s, s.members[0]), await newFeed(s, s.members[1]), await newFeed(s)];
    await memberTimeslots(s, [{ start: `${day}T14:00`, end: `${day}T15:00` }]);
    const first = await bookThroughPool(s, '14:00');
    const second = await bookThroughPool(s, '14:00');
    const [e0, e1] = [await feedEvents(feed0), await feedEvents(feed1)];
    expect(e0.map((e) => e.uid)).toEqual([first.appointment_uuid]);
    expect(e1.map((e) => e.uid)).toEqual([second.appointment_uuid]);
    expect(e0[0].summary).toContain(s.members[0].publicName);
    expect(e1[0].summary).toContain(s.members[1].publicName);
    expect(`${e0[0].summary}${e1[0].summary}`).not.toContain(s.pool.publicName);
    expect((await feedEvents(all)).map((e) => e.uid).sort()).toEqual(
      [first.appointment_uuid, second.appointment_uuid].sort(),
    );
  });

  it('D2 and D5 show the booking on the member it was assigned to, and on no other', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: `${day}T15:00`, end: `${day}T16:00` }]);
    const who = consumer();
    const slot = await poolSlot(s, '15:00');
    const res = await book(t, s.pool.reference, {
      start: slot.start,
      end: slot.end,
      pool_uuid: s.pool.uuid,
      product_uuid: s.product.uuid,
      ...who,
    });
    expect(res.statusCode, res.body).toBe(201);
    const booked = res.json().createdAppointment;
    const d2 = async (m: Member) => {
      const r = await s.p.call('GET', `${s.base}/resource/${encodeURIComponent(m.reference)}/timeslots`, undefined, {
        from: `${day}T00:00`,
        to: `${day}T23:59`,
      });
      expect(r.statusCode, r.body).toBe(200);
      return r.json() as {
        timeslots: unknown[];
        appointments: { uuid: string; resourceReference: string; participations: { email: string }[] }[];
      };
    };
    const [on0, on1] = [await d2(s.members[0]), await d2(s.members[1])];
    expect(on0.timeslots).toHaveLength(1);
    expect(on0.appointments.map((a) => [a.uuid, a.resourceReference, a.participations.map((p) => p.email)])).toEqual([
      [booked.appointment_uuid, s.members[0].reference, [who.email]],
    ]);
    expect(on1.appointments).toEqual([]);
    expect((await d5(s, s.members[0])).map((a) => [a.uuid, a.resourceReference])).toEqual([
      [booked.appointment_uuid, s.members[0].reference],
    ]);
    expect(await d5(s, s.members[1])).toEqual([]);
    // the pool is no resource of the partner API
    const byPool = await s.p.call(
      'GET',
      `${s.base}/resource/${encodeURIComponent(s.pool.reference)}/timeslots`,
      undefined,
      {
        from: `${day}T00:00`,
        to: `${day}T23:59`,
      },
    );
    expect(byPool.statusCode).toBe(404);
  });

  it("the manage page names the member and offers the pool's times to move to", async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: `${day}T16:00`, end: `${day}T17:00` }]);
    await bookThroughPool(s, '16:00');
    const second = await bookThroughPool(s, '16:00');
    const page = await managePage(second.cancelLink);
    expect(page).toMatch(new RegExp(`<dd>${s.members[1].publicName}(,|<)`));
    expect(page).not.toContain(s.members[0].publicName);
    expect(page).not.toContain(s.pool.publicName);
    // the slot picker lists the pool (anyone, or a member chosen): the booking may move to any member
    expect(page).toContain(`data-ref="${s.pool.uuid}"`);
    const manage = await t.app.inject({ method: 'GET', url: '/widget/manage.js' });
    expect(manage.body).toContain("slot.kind === 'models.PoolBookable'");
  });
});

describe('reschedule of a pool booking', () => {
  it('by pool_uuid: the pool picks the member free then; everything after names that member', async () => {
    const s = await setupPool(t, 2);
    const feeds = [await newFeed(s, s.members[0]), await newFeed(s, s.members[1])];
    const at = `/${uniqueId('hook')}`;
    await subscribe(s.p, `${t.receiver.url}${at}`, { events: ['participation.rescheduled'] });
    await memberTimeslots(s, [{ start: `${day}T09:00`, end: `${day}T12:00` }]);
    const booked = await bookThroughPool(s, '09:00');
    expect(booked.resource_uuid).toBe(s.members[0].uuid);
    // member 1 was booked through the pool last, member 2 never: the pool's rule picks member 2
    const target = await poolSlot(s, '10:00');
    const moved = await reschedule(t, tokenOf(booked.cancelLink), {
      start: target.start,
      end: target.end,
      pool_uuid: s.pool.uuid,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const created = moved.json().createdAppointment;
    expect(created).toMatchObject({
      resource_uuid: s.members[1].uuid,
      resource_name: s.members[1].publicName,
      pool_uuid: s.pool.uuid,
    });
    expect(created.start).toBe(target.start);
    // the mail and its calendar part
    const mails = (await outboxOf(t, s.p.crmId)).filter((m) => m.template === 'booking-rescheduled');
    expect(mails.map((m) => (m.payload as { appointment: { resourceName: string } }).appointment.resourceName)).toEqual(
      [s.members[1].publicName],
    );
    const [calendar] = await calendarsOf(s, 'booking-rescheduled');
    expect(calendar.description).toContain(s.members[1].publicName);
    // the webhook event
    await t.receiver.waitFor(() => t.receiver.events(at).length >= 1);
    const [event] = t.receiver.events(at).map((e) => e.body.data);
    expect([event.poolReference, event.appointment.resourceReference, event.appointment.uuid]).toEqual([
      s.pool.reference,
      s.members[1].reference,
      created.appointment_uuid,
    ]);
    // D5, the feeds, the manage page
    expect(await d5(s, s.members[0])).toEqual([]);
    expect((await d5(s, s.members[1])).map((a) => a.uuid)).toEqual([created.appointment_uuid]);
    expect((await feedEvents(feeds[0])).map((e) => e.uid)).toEqual([]);
    expect((await feedEvents(feeds[1])).map((e) => e.uid)).toEqual([created.appointment_uuid]);
    expect(await managePage(booked.cancelLink)).toMatch(new RegExp(`<dd>${s.members[1].publicName}(,|<)`));
    // the old time is free again on member 1
    expect((await poolSlot(s, '09:00')).capacity_left).toBe(2);
    // a move is no booking through the pool: member 2 was still never booked through it, so is picked first
    expect((await bookThroughPool(s, '11:00')).resource_uuid).toBe(s.members[1].uuid);
  });

  it('by pool_uuid: 412 "201" when every member is taken, the booking stays; 400 for another pool', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: `${day}T17:00`, end: `${day}T18:00` }]);
    const booked = await bookThroughPool(s, '17:00');
    await bookThroughPool(s, '17:30');
    await bookThroughPool(s, '17:30');
    const target = flatten(await upcoming(t, s.members[0].reference)).find((x) => x.start.includes('T17:30'));
    expect(target).toBeUndefined(); // taken on both members
    const token = tokenOf(booked.cancelLink);
    const start = booked.start.replace('T17:00', 'T17:30');
    const end = booked.end.replace('T17:30', 'T18:00');
    const taken = await reschedule(t, token, { start, end, pool_uuid: s.pool.uuid });
    expect(taken.statusCode, taken.body).toBe(412);
    expect(taken.json().errors[0].errorCode).toBe('201');
    // nothing moved: member 1 has its 17:00 (this booking) and 17:30
    const kept = await d5(s, s.members[0]);
    expect(kept.map((a) => a.start)).toEqual([booked.start, start]);
    expect(kept[0].uuid).toBe(booked.appointment_uuid);
    // only the pool the booking was made through, and only one of timeslot_uuid and pool_uuid
    const other = await setupPool(t, 1);
    const free = { start: booked.start.replace('T17:00', 'T17:30'), end };
    for (const body of [
      { ...free, pool_uuid: other.pool.uuid },
      { ...free, pool_uuid: s.pool.uuid, timeslot_uuid: booked.timeslot_uuid },
    ]) {
      const res = await reschedule(t, token, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0].message).toMatch(/pool_uuid/);
    }
    // moving to where it is through the pool changes nothing
    const same = await reschedule(t, token, { start: booked.start, end: booked.end, pool_uuid: s.pool.uuid });
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json().createdAppointment.appointment_uuid).toBe(booked.appointment_uuid);
    expect((await outboxOf(t, s.p.crmId)).filter((m) => m.template === 'booking-rescheduled')).toEqual([]);
  });

  it('by pool_uuid is refused for a booking not made through a pool', async () => {
    const s = await setupPool(t, 2);
    await memberTimeslots(s, [{ start: `${day}T18:00`, end: `${day}T19:00` }]);
    const [slot, next] = flatten(await upcoming(t, s.members[0].reference)).filter((x) => x.start.includes(`${day}T`));
    const res = await book(t, s.members[0].reference, {
      start: slot.start,
      end: slot.end,
      timeslot_uuid: slot.timeslot_uuid,
      product_uuid: s.product.uuid,
      ...consumer(),
    });
    expect(res.statusCode, res.body).toBe(201);
    const moved = await reschedule(t, tokenOf(res.json().createdAppointment.cancelLink), {
      start: next.start,
      end: next.end,
      pool_uuid: s.pool.uuid,
    });
    expect(moved.statusCode, moved.body).toBe(400);
    expect(moved.json().errors[0].message).toMatch(/not made through a pool/);
  });
});
