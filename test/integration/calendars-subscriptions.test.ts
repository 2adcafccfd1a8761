/**
 * Subscribed calendars (DESIGN.md §7.6) through the partner API, served by a real HTTP server:
 * read before the 201 (an unreadable calendar is not stored), busy events block A1 and A2, free
 * (TRANSP) and cancelled ones do not, nor do events with this service's own UIDs; POST sync reads
 * again (a 304 keeps what is there); a calendar that fails keeps its last good busy times, with
 * one calendar.sync_failed per outage and calendar.sync_recovered; the refresh job reads when due;
 * DELETE frees the time at once; the URL is never shown again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  createTimeslots,
  flatten,
  reserve,
  reserveBodyFor,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';
import { bookSlot } from '../helpers/lifecycleFixtures.js';

/** A calendar server whose answer the test sets; it honours If-None-Match. */
class CalendarServer {
  body = '';
  status = 200;
  requests = 0;
  private server!: Server;
  base = '';
  async start() {
    this.server = createServer((req, res) => {
      this.requests++;
      const etag = `"${Buffer.from(this.body).length}-${this.body.length % 97}-${hash(this.body)}"`;
      if (this.status !== 200) return res.writeHead(this.status).end('nope');
      if (req.headers['if-none-match'] === etag) return res.writeHead(304).end();
      res.writeHead(200, { 'content-type': 'text/calendar', etag }).end(this.body);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close() {
    return new Promise((resolve) => this.server.close(resolve));
  }
}
const hash = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7);

/** A VCALENDAR of VEVENTs given as [uid, start, end, extra lines] in UTC (YYYYMMDDTHHMMSSZ). */
function calendar(events: [string, string, string, string[]?][]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//calendar//EN'];
  for (const [uid, start, end, extra = []] of events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20260501T000000Z',
      `DTSTART:${start}`,
      `DTEND:${end}`,
      'SUMMARY:Dentist (private)',
      ...extra,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

let t: TestApp;
let cal: CalendarServer;
beforeAll(async () => {
  cal = new CalendarServer();
  await cal.start();
  t = await startTestApp({ calendarAllowPrivateNetworks: true, webhookAllowPrivateNetworks: true });
});
afterAll(async () => {
  await t.close();
  await cal.close();
});

/** 09:00-11:00 Berlin (07:00-09:00 UTC) at raster 30, no buffers. */
async function ground(): Promise<Booking> {
  const b = await setupBooking(t);
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 }]);
  return b;
}
const times = async (b: Booking) =>
  flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference })).map((s) => s.start.slice(11, 16));

function subscribe(b: Booking, body: object) {
  return b.p.call('POST', `${b.base}/calendar-subscriptions`, body);
}

// 09:30-10:00 Berlin is busy; 10:00-10:30 is marked free; 10:30-11:00 is cancelled
const DENTIST = calendar([
  ['dentist@example.com', '20260602T073000Z', '20260602T080000Z'],
  ['free@example.com', '20260602T080000Z', '20260602T083000Z', ['TRANSP:TRANSPARENT']],
  ['cancelled@example.com', '20260602T083000Z', '20260602T090000Z', ['STATUS:CANCELLED']],
]);

describe('a subscribed iCalendar URL', () => {
  it('is read before the 201; only its busy events block; the URL is never shown again', async () => {
    const b = await ground();
    cal.body = DENTIST;
    cal.status = 200;
    const url = `${cal.base}/secret/basic/private-token.ics`;
    const res = await subscribe(b, { resourceReference: b.resource.reference, url });
    expect(res.statusCode, res.body).toBe(201);
    const { subscription } = res.json();
    expect(subscription).toMatchObject({
      resourceReference: b.resource.reference,
      kind: 'ics',
      host: new URL(cal.base).host,
      status: 'OK',
      busyCount: 1,
      lastError: null,
      failingSince: null,
    });
    expect(await times(b)).toEqual(['09:00', '10:00', '10:30']);

    const slots = flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));
    expect(slots.length).toBe(3);
    const list = await b.p.call('GET', `${b.base}/calendar-subscriptions`);
    const one = await b.p.call('GET', `${b.base}/calendar-subscriptions/${subscription.id}`);
    for (const r of [res, list, one]) expect(r.body).not.toContain('private-token');
    expect(list.json().subscriptions).toEqual([subscription]);
    const busy = await b.p.call('GET', `${b.base}/busy-times`);
    expect(busy.json().busyTimes).toEqual([
      {
        start: '2026-06-02T09:30:00+02:00',
        end: '2026-06-02T10:00:00+02:00',
        source: 'subscription',
        sourceId: subscription.id,
      },
    ]);
    expect(busy.body).not.toContain('Dentist');
  });

  it('answers 422 CALENDAR_UNREADABLE and stores nothing when the calendar cannot be read', async () => {
    const b = await ground();
    cal.status = 404;
    const res = await subscribe(b, { url: `${cal.base}/gone.ics` });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'CALENDAR_UNREADABLE' });
    expect(res.json().errors[0].message).toMatch(/404/);
    cal.status = 200;
    cal.body = '<html>login</html>';
    const html = await subscribe(b, { url: `${cal.base}/login` });
    expect(html.statusCode).toBe(422);
    expect(html.json().errors[0].message).toMatch(/iCalendar/);
    expect((await b.p.call('GET', `${b.base}/calendar-subscriptions`)).json().subscriptions).toEqual([]);
  });

  it('answers 400 for a body without exactly one source, and a bad URL', async () => {
    const b = await ground();
    for (const body of [
      {},
      { url: `${cal.base}/x.ics`, caldav: { url: `${cal.base}/dav/`, username: 'u', password: 'p' } },
      { url: 'ftp://example.com/x.ics' },
    ]) {
      const res = await subscribe(b, body);
      expect(res.statusCode, res.body).toBe(400);
    }
  });

  it("leaves events with this service's own UIDs out (its feed and its write-back)", async () => {
    const b = await ground();
    const [first] = flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));
    const booked = await bookSlot(t, b, first);
    cal.status = 200;
    cal.body = calendar([[booked.appointment_uuid, '20260602T070000Z', '20260602T090000Z']]);
    const res = await subscribe(b, { url: `${cal.base}/feed.ics` });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().subscription.busyCount).toBe(0);
    expect(await times(b)).toEqual(['09:30', '10:00', '10:30']);
  });

  it('reads again on POST sync; a failing calendar keeps its busy times, and tells once per outage', async () => {
    const b = await ground();
    const hook = await b.p.call('POST', '/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['calendar.sync_failed', 'calendar.sync_recovered'],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    cal.status = 200;
    cal.body = DENTIST;
    const { subscription } = (await subscribe(b, { url: `${cal.base}/cal.ics` })).json();
    const sync = () => b.p.call('POST', `${b.base}/calendar-subscriptions/${subscription.id}/sync`);

    // unchanged: a 304
    const before = cal.requests;
    const same = await sync();
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json().subscription).toMatchObject({ status: 'OK', busyCount: 1 });
    expect(cal.requests).toBe(before + 1);

    // changed: 09:00-09:30 busy instead
    cal.body = calendar([['moved@example.com', '20260602T070000Z', '20260602T073000Z']]);
    expect((await sync()).json().subscription.busyCount).toBe(1);
    expect(await times(b)).toEqual(['09:30', '10:00', '10:30']);

    cal.status = 500;
    t.clock.advance(60_000);
    const failed = await sync();
    expect(failed.statusCode).toBe(200);
    expect(failed.json().subscription).toMatchObject({ status: 'ERROR', busyCount: 1 });
    expect(failed.json().subscription.lastError).toMatch(/500/);
    const failingSince = failed.json().subscription.failingSince;
    expect(failingSince).toBe(t.clock.now().toISOString());
    expect(await times(b)).toEqual(['09:30', '10:00', '10:30']);
    t.clock.advance(60_000);
    expect((await sync()).json().subscription.failingSince).toBe(failingSince);

    cal.status = 200;
    const recovered = await sync();
    expect(recovered.json().subscription).toMatchObject({ status: 'OK', lastError: null, failingSince: null });

    const events = await t.db.query<{ type: string; body: string }>(
      `SELECT type, body FROM webhook_events WHERE crm_id = $1 ORDER BY created_at, type`,
      [b.p.crmId],
    );
    expect(events.map((e) => e.type)).toEqual(['calendar.sync_failed', 'calendar.sync_recovered']);
    for (const e of events) {
      expect(e.body).not.toContain('/cal.ics');
      expect(JSON.parse(e.body).data).toMatchObject({
        subscriptionId: subscription.id,
        providerReference: b.provider.providerRef,
        kind: 'ics',
      });
    }
  });

  it('frees its time at once when deleted', async () => {
    const b = await ground();
    cal.status = 200;
    cal.body = DENTIST;
    const { subscription } = (await subscribe(b, { url: `${cal.base}/cal.ics` })).json();
    expect(await times(b)).toEqual(['09:00', '10:00', '10:30']);
    expect((await b.p.call('DELETE', `${b.base}/calendar-subscriptions/${subscription.id}`)).statusCode).toBe(204);
    expect(await times(b)).toEqual(['09:00', '09:30', '10:00', '10:30']);
    expect((await b.p.call('GET', `${b.base}/calendar-subscriptions/${subscription.id}`)).statusCode).toBe(404);
  });

  it('blocks A2 with 412 "201"; a booking already there stays and shows as an overlap', async () => {
    const b = await ground();
    const slots = flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }));
    const at = (hhmm: string) => slots.find((s) => s.start.slice(11, 16) === hhmm)!;
    await bookSlot(t, b, at('09:00'));
    cal.status = 200;
    cal.body = calendar([['all-morning@example.com', '20260602T060000Z', '20260602T090000Z']]);
    expect((await subscribe(b, { url: `${cal.base}/cal.ics` })).statusCode).toBe(201);
    const held = await reserve(t, b.resource.reference, reserveBodyFor(at('10:00'), b.product.uuid));
    expect(held.statusCode, held.body).toBe(412);
    expect(held.json().errors[0].errorCode).toBe('201');
    const list = await b.p.call('GET', `${b.base}/appointments`, undefined, {
      from: '2026-06-02T00:00',
      to: '2026-06-03T00:00',
    });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toHaveLength(1);
  });
});

describe('the refresh job', () => {
  it('reads a calendar again once CALENDAR_SYNC_SECONDS have passed', async () => {
    const jobs = await startTestApp(
      { calendarAllowPrivateNetworks: true, calendarPollMs: 50, calendarSyncMs: 300_000 },
      undefined,
      { jobs: true },
    );
    try {
      const b = await setupBooking(jobs);
      await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00', raster: 30 }]);
      cal.status = 200;
      cal.body = DENTIST;
      const { subscription } = (
        await b.p.call('POST', `${b.base}/calendar-subscriptions`, { url: `${cal.base}/job.ics` })
      ).json();
      cal.body = calendar([['later@example.com', '20260602T080000Z', '20260602T090000Z']]);
      const listed = async () =>
        flatten(await upcoming(jobs, b.resource.reference, { prdRef: b.product.reference })).map((s) =>
          s.start.slice(11, 16),
        );
      await new Promise((r) => setTimeout(r, 300));
      expect(await listed()).toEqual(['09:00', '10:00', '10:30']);
      jobs.clock.advance(301_000);
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await listed()).join() !== '09:00,09:30')
        await new Promise((r) => setTimeout(r, 50));
      expect(await listed()).toEqual(['09:00', '09:30']);
      const row = (await b.p.call('GET', `${b.base}/calendar-subscriptions/${subscription.id}`)).json().subscription;
      expect(row.lastSyncedAt).toBe(jobs.clock.now().toISOString());
    } finally {
      await jobs.close();
    }
  });
});
