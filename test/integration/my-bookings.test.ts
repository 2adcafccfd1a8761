/**
 * "My bookings" (DESIGN 7.12): the link is asked for by e-mail with one answer for every address,
 * mailed at most 3 times an hour, and shows only that person's bookings at that provider, as a page
 * and as JSON; forged, expired and erased links answer 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMail } from '../../src/notifications/render.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  book,
  bookBodyFor,
  consumer,
  createTimeslots,
  flatten,
  publicCall,
  setupBooking,
  upcoming,
  type Booking,
} from '../helpers/bookingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ bookingRateLimitPerMinute: 10_000, publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

const HOUR = 3_600_000;

/** A provider with four free half-hour slots on 2026-06-02 (the clock stands at 2026-06-01). */
async function provider(): Promise<Booking> {
  const b = await setupBooking(t);
  await createTimeslots(b, [{ start: '2026-06-02T09:00', end: '2026-06-02T11:00' }]);
  return b;
}

/** A3 on the first free slot for this person; the booking's cancel link. */
async function bookFor(b: Booking, who: object): Promise<string> {
  const [slot] = flatten(await upcoming(t, b.resource.reference));
  const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().createdAppointment.cancelLink;
}

const ask = (ref: string, body: object) => publicCall(t, 'POST', '/rest/1/my-bookings', body, { ref });

/** The links of the crm's my-bookings mails to this address, oldest first. */
async function mailedLinks(crmId: string, address: string): Promise<string[]> {
  const rows = await t.db.query<{ template: string; locale: string; recipient: string; payload: unknown }>(
    `SELECT template, locale, recipient, payload FROM outbox WHERE crm_id = $1 AND template = 'my-bookings'
       AND lower(recipient) = lower($2) ORDER BY created_at`,
    [crmId, address],
  );
  return rows.map((m) => {
    const { text } = renderMail(m, { mailFrom: t.config.mailFrom });
    return /https:\/\/book\.example\/my-bookings\/\S+/.exec(text)![0];
  });
}

const tokenOf = (link: string) => link.split('/').pop()!;
const listOf = (link: string) => publicCall(t, 'GET', `/rest/1/my-bookings/${tokenOf(link)}`);
const pageOf = (link: string, lang = 'en') =>
  publicCall(t, 'GET', `/my-bookings/${tokenOf(link)}`, undefined, { lang });

describe('my bookings', () => {
  it("lists the person's own bookings at the provider, never another's, also one sharing their phone", async () => {
    const b = await provider();
    const anna = consumer({ firstname: 'Anna', mobile: '+49 170 5550123' });
    const ben = consumer({ firstname: 'Ben', mobile: '0170 5550123' });
    const annas = [await bookFor(b, anna), await bookFor(b, { ...anna, email: anna.email.toUpperCase() })];
    const bens = await bookFor(b, ben);

    const res = await ask(b.resource.reference, { email: anna.email.toUpperCase(), locale: 'en' });
    expect(res.statusCode, res.body).toBe(202);
    const [link] = await mailedLinks(b.p.crmId, anna.email);
    expect(link).toMatch(/^https:\/\/book\.example\/my-bookings\/[\w.-]+$/);

    const list = await listOf(link);
    expect(list.statusCode, list.body).toBe(200);
    expect(
      list
        .json()
        .bookings.map((x: { cancelLink: string }) => x.cancelLink)
        .sort(),
    ).toEqual([...annas].sort());
    expect(list.json().bookings[0]).toMatchObject({
      state: 'BOOKED',
      start: '2026-06-02T09:00:00+02:00',
      timeZone: 'Europe/Berlin',
      productName: 'Viewing',
      canCancel: true,
      canReschedule: true,
    });
    const page = await pageOf(link);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('My bookings');
    expect(page.body).toContain('Choose another time');
    for (const own of annas) expect(page.body).toContain(`../cancel/${tokenOf(own)}`);
    expect(page.body).not.toContain(tokenOf(bens));
    expect(page.body).not.toContain('Ben');
    expect(JSON.stringify(list.json())).not.toContain(tokenOf(bens));
  });

  it('answers known and unknown addresses alike, and mails only a known one', async () => {
    const b = await provider();
    const known = consumer();
    await bookFor(b, known);
    const unknown = consumer();
    const a = await ask(b.resource.reference, { email: known.email });
    const z = await ask(b.resource.reference, { email: unknown.email });
    expect([a.statusCode, z.statusCode]).toEqual([202, 202]);
    expect(z.body).toBe(a.body);
    expect(await mailedLinks(b.p.crmId, known.email)).toHaveLength(1);
    expect(await mailedLinks(b.p.crmId, unknown.email)).toHaveLength(0);
    // a person known at another provider only has nothing to see here
    const other = await provider();
    const elsewhere = await ask(other.resource.reference, { email: known.email });
    expect(elsewhere.body).toBe(a.body);
    expect(await mailedLinks(other.p.crmId, known.email)).toHaveLength(0);
  });

  it('mails at most 3 links per address within an hour', async () => {
    const b = await provider();
    const who = consumer();
    await bookFor(b, who);
    for (let i = 0; i < 5; i++) expect((await ask(b.resource.reference, { email: who.email })).statusCode).toBe(202);
    expect(await mailedLinks(b.p.crmId, who.email)).toHaveLength(3);
    t.clock.advance(HOUR + 60_000);
    try {
      expect((await ask(b.resource.reference, { email: who.email })).statusCode).toBe(202);
      expect(await mailedLinks(b.p.crmId, who.email)).toHaveLength(4);
    } finally {
      t.clock.advance(-(HOUR + 60_000));
    }
  });

  it('holds the limit under concurrent requests', async () => {
    const b = await provider();
    const who = consumer();
    await bookFor(b, who);
    const answers = await Promise.all(Array.from({ length: 8 }, () => ask(b.resource.reference, { email: who.email })));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(202));
    expect(await mailedLinks(b.p.crmId, who.email)).toHaveLength(3);
  });

  it('answers 404 for a forged, an altered and an expired link, as JSON and as a page', async () => {
    const b = await provider();
    const who = consumer();
    await bookFor(b, who);
    await ask(b.resource.reference, { email: who.email });
    const [link] = await mailedLinks(b.p.crmId, who.email);
    const [customerId, expiry, mac] = tokenOf(link).split('.');
    const forged = [
      `${customerId}.${expiry}.${'A'.repeat(mac.length)}`,
      `${customerId}.${Number(expiry) + 3600}.${mac}`,
      'nothing-like-a-token',
    ];
    for (const token of forged) {
      const res = await publicCall(t, 'GET', `/rest/1/my-bookings/${token}`);
      expect(res.statusCode, token).toBe(404);
      expect(res.json().errors[0].errorCode).toBe('NOT_FOUND');
      const page = await publicCall(t, 'GET', `/my-bookings/${token}`);
      expect(page.statusCode).toBe(404);
      expect(page.body).toContain('Link ungültig');
    }
    t.clock.advance(24 * HOUR + 1000);
    try {
      expect((await listOf(link)).statusCode).toBe(404);
    } finally {
      t.clock.advance(-(24 * HOUR + 1000));
    }
    expect((await listOf(link)).statusCode).toBe(200);
  });

  it("answers 404 once the person's data was erased", async () => {
    const b = await provider();
    const who = consumer();
    await bookFor(b, who);
    await ask(b.resource.reference, { email: who.email });
    const [link] = await mailedLinks(b.p.crmId, who.email);
    expect((await listOf(link)).statusCode).toBe(200);
    const erased = await b.p.call('POST', '/consumer-data/erase', { email: who.email });
    expect(erased.statusCode, erased.body).toBe(200);
    expect((await listOf(link)).statusCode).toBe(404);
    expect((await pageOf(link)).statusCode).toBe(404);
    // the erasure took the mail with the link too, and the address gets no new one
    expect(await mailedLinks(b.p.crmId, who.email)).toHaveLength(0);
    await ask(b.resource.reference, { email: who.email });
    expect(await mailedLinks(b.p.crmId, who.email)).toHaveLength(0);
  });

  it('shows a cancelled booking without actions, and a booking of the last 30 days', async () => {
    const b = await provider();
    const who = consumer();
    const cancelled = await bookFor(b, who);
    expect((await publicCall(t, 'POST', new URL(cancelled).pathname)).statusCode).toBe(200);
    await bookFor(b, who);
    t.clock.advance(30 * HOUR); // 2026-06-02 16:00 Berlin: both are over, and a link asked for now still shows them
    try {
      await ask(b.resource.reference, { email: who.email });
      const [link] = await mailedLinks(b.p.crmId, who.email);
      const list = (await listOf(link)).json().bookings as {
        state: string;
        canCancel: boolean;
        canReschedule: boolean;
      }[];
      expect(list.map((x) => [x.state, x.canCancel, x.canReschedule]).sort()).toEqual([
        ['BOOKED', false, false],
        ['CANCELED', false, false],
      ]);
    } finally {
      t.clock.advance(-30 * HOUR);
    }
  });

  it('refuses a bad address or reference with 400 and an unknown reference with 404', async () => {
    const b = await provider();
    const bad = await ask(b.resource.reference, { email: 'not-an-address' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].message).toMatch(/email/);
    expect((await publicCall(t, 'POST', '/rest/1/my-bookings', { email: 'a@b.example' })).statusCode).toBe(400);
    expect((await ask('nobody@nowhere', { email: 'a@b.example' })).statusCode).toBe(404);
  });
});
