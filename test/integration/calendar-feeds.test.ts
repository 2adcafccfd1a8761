/**
 * Calendar feeds (docs/provider-links.md): the partner endpoints, and the feed itself parsed with ical.js
 * (UIDs, times, statuses), its ETag and 304, and changes showing at the next request.
 */
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, type TestApp } from '../helpers/app.js';
import { book, bookBodyFor, consumer, flatten, upcoming } from '../helpers/bookingFixtures.js';
import { createResource } from '../helpers/offeringsFixtures.js';
import {
  createAppointment,
  createCustomer,
  participate,
  setupScheduling,
  type Scheduling,
} from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the test clock stands at 2026-06-01T08:00Z
  t = await startTestApp({ publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

const feeds = (s: Scheduling) => `${s.base}/calendar-feeds`;

async function newFeed(
  s: Scheduling,
  resourceReference?: string,
): Promise<{ id: string; url: string; path: string; resourceReference: string | null }> {
  const res = await s.p.call('POST', feeds(s), resourceReference === undefined ? undefined : { resourceReference });
  expect(res.statusCode, res.body).toBe(201);
  const { feed } = res.json();
  return { ...feed, path: new URL(feed.url).pathname };
}

const fetchFeed = (path: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: path, headers });

interface Event {
  uid: string;
  start: string;
  end: string;
  status: string;
  sequence: number;
  summary: string;
  description: string;
}

/** The feed's events as ical.js reads them, by UID. */
function parse(ics: string): Map<string, Event> {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const events = new Map<string, Event>();
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    const e = new ICAL.Event(vevent);
    events.set(e.uid, {
      uid: e.uid,
      start: e.startDate.toJSDate().toISOString(),
      end: e.endDate.toJSDate().toISOString(),
      status: String(vevent.getFirstPropertyValue('status')),
      sequence: e.sequence,
      summary: e.summary,
      description: e.description ?? '',
    });
  }
  return events;
}

describe('partner endpoints', () => {
  it('create a feed of the provider (no body) or a resource, list them without URLs, keep the token hash', async () => {
    const s = await setupScheduling(t);
    const all = await newFeed(s);
    expect(all.url).toMatch(/^https:\/\/book\.example\/feeds\/[A-Za-z0-9_-]{43}\.ics$/);
    expect(all).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), resourceReference: null });
    const one = await newFeed(s, s.resourceRef);
    expect(one.resourceReference).toBe(s.resourceRef);
    expect(one.url).not.toBe(all.url);

    const list = await s.p.call('GET', feeds(s));
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      'api-info': { version: '1' },
      feeds: [
        { id: all.id, resourceReference: null, createdAt: expect.any(String) },
        { id: one.id, resourceReference: s.resourceRef, createdAt: expect.any(String) },
      ],
    });
    const token = all.path.slice('/feeds/'.length, -'.ics'.length);
    const stored = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM calendar_feeds WHERE id = $1', [
      all.id,
    ]);
    expect(stored).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex') }]);
  });

  it('answer 404 for an unknown provider or resource, 400 naming the field, 401 without a key', async () => {
    const s = await setupScheduling(t);
    expect((await s.p.call('POST', feeds(s), { resourceReference: 'nope@crm' })).statusCode).toBe(404);
    expect((await s.p.call('POST', '/provider/nope%40crm/calendar-feeds', {})).statusCode).toBe(404);
    expect((await s.p.call('GET', '/provider/nope%40crm/calendar-feeds')).statusCode).toBe(404);
    const bad = await s.p.call('POST', feeds(s), { resourceReference: 5 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].message).toContain('body.resourceReference');
    const anonymous = await t.app.inject({ method: 'GET', url: `/crms/${s.p.crmId}${feeds(s)}` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('revoke: 204, the URL is 404 after, and another partner can neither see nor revoke the feed', async () => {
    const s = await setupScheduling(t);
    const feed = await newFeed(s);
    expect((await fetchFeed(feed.path)).statusCode).toBe(200);
    const other = await newPartner(t);
    expect(
      (await other.call('GET', `/provider/${encodeURIComponent(s.provider.providerRef)}/calendar-feeds`)).statusCode,
    ).toBe(404);
    expect(
      (await other.call('DELETE', `/provider/${encodeURIComponent(s.provider.providerRef)}/calendar-feeds/${feed.id}`))
        .statusCode,
    ).toBe(404);
    expect((await fetchFeed(feed.path)).statusCode).toBe(200);

    expect((await s.p.call('DELETE', `${feeds(s)}/${feed.id}`)).statusCode).toBe(204);
    expect((await fetchFeed(feed.path)).statusCode).toBe(404);
    expect((await s.p.call('DELETE', `${feeds(s)}/${feed.id}`)).statusCode).toBe(404);
    expect((await s.p.call('DELETE', `${feeds(s)}/not-a-uuid`)).statusCode).toBe(404);
    expect((await s.p.call('GET', feeds(s))).json().feeds).toEqual([]);
  });

  it('answers 404 for a guessed or malformed feed URL', async () => {
    for (const path of ['/feeds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.ics', '/feeds/x.ics', '/feeds/whatever']) {
      expect((await fetchFeed(path)).statusCode, path).toBe(404);
    }
  });
});

describe('the feed', () => {
  /** A provider with two resources and every kind of appointment the feed must show or leave out. */
  async function scenario() {
    const s = await setupScheduling(t, {
      resource: {
        publicName: 'Flat 12',
        internalName: 'F12',
        channels: { RESOURCE_REFERENCE: { bookingProcess: 'REQUESTED' } },
      },
    });
    const other = await createResource(s.p, s.provider.providerRef, {
      publicName: 'Flat 14',
      internalName: 'F14',
      products: [s.productRef],
    });
    const customer = (userName: string) => createCustomer(s, { userName });
    const withPeople = async (start: string, states: string[]) => {
      const a = await createAppointment(s, {
        start,
        end: start.replace(/T(\d\d)/, (_, h) => `T${String(Number(h) + 1).padStart(2, '0')}`),
      });
      const refs: string[] = [];
      for (const [i, state] of states.entries()) {
        const c = await customer(`Person ${i + 1} ${state}`);
        const res = await participate(
          s,
          { appointmentReference: a.reference, customerReference: c.customerReference, state },
          { sendMails: 'false' },
        );
        expect(res.statusCode, res.body).toBe(201);
        refs.push(res.json().participation.reference);
      }
      return { uuid: a.uuid as string, reference: a.reference as string, refs };
    };
    const booked = await withPeople('2026-06-10T10:00', ['BOOKED']);
    const requested = await withPeople('2026-06-11T10:00', ['REQUESTED']);
    const mixed = await withPeople('2026-06-12T10:00', ['REQUESTED', 'BOOKED']);
    const empty = await withPeople('2026-06-13T10:00', []);
    const allCancelled = await withPeople('2026-06-14T10:00', ['BOOKED']);
    expect(
      (
        await s.p.call(
          'POST',
          `${s.base}/participations/${encodeURIComponent(allCancelled.refs[0])}`,
          { state: 'CANCELED' },
          { sendMails: 'false' },
        )
      ).statusCode,
    ).toBe(200);
    const cancelledAppointment = await withPeople('2026-06-15T10:00', ['BOOKED']);
    expect(
      (await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: cancelledAppointment.reference }))
        .statusCode,
    ).toBe(200);
    const longAgo = await withPeople('2026-04-20T10:00', ['BOOKED']); // 42 days back
    const recent = await withPeople('2026-05-10T10:00', ['BOOKED']); // 22 days back
    const tooFar = await withPeople('2027-06-10T10:00', ['BOOKED']); // 374 days ahead
    const elsewhere = await createAppointment(s, {
      resourceReference: other.reference,
      start: '2026-06-10T12:00',
      end: '2026-06-10T13:00',
    });

    // the public flow: a booking, a request, and a booking the consumer cancelled (its appointment stays, empty)
    const slots = await s.p.call('POST', `${s.base}/timeslots`, {
      timeslots: [
        {
          resourceReference: s.resourceRef,
          start: '2026-06-20T09:00',
          end: '2026-06-20T12:00',
          raster: 60,
          defaultCapacity: 1,
          defaultAcceptBookings: true,
          state: 'BOOKABLE',
        },
      ],
    });
    expect(slots.statusCode, slots.body).toBe(201);
    const [productUuid] = (
      await t.db.query<{ id: string }>(
        'SELECT id FROM products WHERE provider_id = (SELECT provider_id FROM resources WHERE reference = $1)',
        [s.resourceRef],
      )
    ).map((r) => r.id);
    const bookPublic = async (who: object, hour: string) => {
      const slot = flatten(await upcoming(t, s.resourceRef, { prdRef: s.productRef })).find(
        (b) => b.start === `2026-06-20T${hour}:00:00+02:00`,
      )!;
      const res = await book(t, s.resourceRef, bookBodyFor(slot, productUuid, undefined, who));
      expect(res.statusCode, res.body).toBe(201);
      return res.json().createdAppointment as { appointment_uuid: string; cancelLink: string };
    };
    const publicBooked = await bookPublic(consumer({ firstname: 'Paula', lastname: 'Public' }), '09');
    const publicRequested = await bookPublic(
      consumer({ firstname: 'Rita', lastname: 'Request', channelKey: 'RESOURCE_REFERENCE' }),
      '10',
    );
    const publicCancelled = await bookPublic(consumer({ firstname: 'Carl', lastname: 'Cancel' }), '11');
    expect((await t.app.inject({ method: 'POST', url: new URL(publicCancelled.cancelLink).pathname })).statusCode).toBe(
      200,
    );

    return {
      s,
      other,
      booked,
      requested,
      mixed,
      empty,
      allCancelled,
      cancelledAppointment,
      longAgo,
      recent,
      tooFar,
      elsewhere,
      publicBooked,
      publicRequested,
      publicCancelled,
    };
  }

  it('has an event per shown appointment: uuid as UID, UTC times, statuses, product, resource, names', async () => {
    const x = await scenario();
    const feed = await newFeed(x.s, x.s.resourceRef);
    const res = await fetchFeed(feed.path);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=0, s-maxage=1');
    expect(res.headers['cdn-cache-control']).toBe('public, max-age=1, stale-while-revalidate=1');
    expect(res.headers.vary).toBe('accept-encoding');
    expect(res.body).toMatch(/^BEGIN:VCALENDAR\r\nVERSION:2\.0\r\n/);
    expect(res.body.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(res.body.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    expect(res.body).toContain('\r\nDTSTART:20260610T080000Z\r\n');
    const events = parse(res.body);
    // partner-created ones stay even when empty or all cancelled; public ones only with a live participation
    expect([...events.keys()].sort()).toEqual(
      [x.booked, x.requested, x.mixed, x.empty, x.allCancelled, x.recent]
        .map((a) => a.uuid)
        .concat(x.publicBooked.appointment_uuid, x.publicRequested.appointment_uuid)
        .sort(),
    );
    expect(events.get(x.booked.uuid)).toMatchObject({
      start: '2026-06-10T08:00:00.000Z',
      end: '2026-06-10T09:00:00.000Z',
      status: 'CONFIRMED',
      summary: 'Viewing – Flat 12 (F12)',
    });
    expect(events.get(x.booked.uuid)!.description).toContain('Person 1 BOOKED');
    expect(events.get(x.requested.uuid)).toMatchObject({ status: 'TENTATIVE', start: '2026-06-11T08:00:00.000Z' });
    expect(events.get(x.requested.uuid)!.description).toMatch(/Person 1 REQUESTED \(angefragt/);
    expect(events.get(x.mixed.uuid)!.status).toBe('CONFIRMED');
    expect(events.get(x.mixed.uuid)!.description).toMatch(/Person 1 REQUESTED[\s\S]*Person 2 BOOKED/);
    expect(events.get(x.empty.uuid)!.status).toBe('CONFIRMED');
    expect(events.get(x.allCancelled.uuid)!.description).not.toContain('Person');
    expect(events.get(x.publicBooked.appointment_uuid)).toMatchObject({
      status: 'CONFIRMED',
      start: '2026-06-20T07:00:00.000Z',
    });
    expect(events.get(x.publicBooked.appointment_uuid)!.description).toContain('Paula Public');
    expect(events.get(x.publicRequested.appointment_uuid)!.status).toBe('TENTATIVE');
    expect(events.has(x.publicCancelled.appointment_uuid)).toBe(false);
    expect(events.has(x.elsewhere.uuid)).toBe(false);

    const en = parse((await fetchFeed(`${feed.path}?lang=en`)).body);
    expect(en.get(x.requested.uuid)!.description).toMatch(/Participants:\n- Person 1 REQUESTED \(requested/);
  });

  it('of the provider covers every resource, also one created after the feed', async () => {
    const x = await scenario();
    const feed = await newFeed(x.s);
    const before = parse((await fetchFeed(feed.path)).body);
    expect(before.get(x.elsewhere.uuid)).toMatchObject({ summary: 'Viewing – Flat 14 (F14)', status: 'CONFIRMED' });
    expect(before.has(x.booked.uuid)).toBe(true);
    const later = await createResource(x.s.p, x.s.provider.providerRef, {
      publicName: 'Flat 16',
      products: [x.s.productRef],
    });
    const a = await createAppointment(x.s, {
      resourceReference: later.reference,
      start: '2026-06-30T10:00',
      end: '2026-06-30T11:00',
    });
    expect(parse((await fetchFeed(feed.path)).body).get(a.uuid)!.summary).toBe('Viewing – Flat 16 (MS1)');
  });

  it('answers 304 to its ETag; a change shows at the next request with a new ETag and a higher SEQUENCE', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s, { start: '2026-06-10T10:00', end: '2026-06-10T11:00' });
    const c = await createCustomer(s, { userName: 'Tina Tentative' });
    const joined = await participate(
      s,
      { appointmentReference: a.reference, customerReference: c.customerReference, state: 'REQUESTED' },
      { sendMails: 'false' },
    );
    const ref = encodeURIComponent(joined.json().participation.reference);
    const feed = await newFeed(s, s.resourceRef);

    const first = await fetchFeed(feed.path);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await fetchFeed(feed.path)).headers.etag).toBe(etag); // the same content, the same tag
    const unchanged = await fetchFeed(feed.path, { 'if-none-match': etag });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    expect(unchanged.headers['content-length']).toBeUndefined();
    expect(unchanged.headers.etag).toBe(etag);
    expect((await fetchFeed(feed.path, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);
    const tentative = parse(first.body).get(a.uuid)!;
    expect(tentative.status).toBe('TENTATIVE');

    expect(
      (await s.p.call('POST', `${s.base}/participations/${ref}`, { state: 'BOOKED' }, { sendMails: 'false' }))
        .statusCode,
    ).toBe(200);
    const changed = await fetchFeed(feed.path, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    const confirmed = parse(changed.body).get(a.uuid)!;
    expect(confirmed).toMatchObject({ uid: a.uuid, status: 'CONFIRMED' });
    expect(confirmed.sequence).toBeGreaterThan(tentative.sequence);

    expect(
      (
        await s.p.call(
          'DELETE',
          `${s.base}/appointments`,
          { appointmentReference: a.reference },
          { sendMails: 'false' },
        )
      ).statusCode,
    ).toBe(200);
    const gone = await fetchFeed(feed.path, { 'if-none-match': changed.headers.etag as string });
    expect(gone.statusCode).toBe(200);
    expect(parse(gone.body).size).toBe(0);
  });
});
