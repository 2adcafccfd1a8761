/**
 * iCalendar output, in mails and in calendar feeds (DESIGN 7.10, docs/provider-links.md):
 *   - every content line is at most 75 octets of UTF-8, folded between characters, never inside one;
 *   - SEQUENCE rises with every change, also with several changes in one second.
 * The mails are the outbox's, rendered as the worker renders them; the feeds are fetched over HTTP.
 */
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueParticipationMails } from '../../src/notifications/compose.js';
import { renderMail } from '../../src/notifications/render.js';
import { mailSources } from '../../src/offerings/contact.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { outboxOf } from '../helpers/mailFixtures.js';
import {
  createAppointment,
  createCustomer,
  participate,
  setupScheduling,
  type Scheduling,
} from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publicBaseUrl: 'https://book.example' });
});
afterAll(() => t.close());

/** A name whose lines need folding, with characters of 2, 3 and 4 octets: ä, –, 🏠. */
const WIDE = 'äöü–'.repeat(12);
const LONG_NAME = `Ferienwohnung „Über den Dächern“ – Dachgeschoss links 🏠 mit Blick auf den Fluss – ${WIDE}`;

/** Every physical line of the iCalendar bytes: at most 75 octets, and whole UTF-8 characters only. */
function expectFoldedByOctets(bytes: Buffer): void {
  const text = bytes.toString('latin1'); // one char per octet: CRLF found by position, not by decoding
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  let longest = 0;
  for (const line of text.split('\r\n')) {
    const raw = bytes.subarray(start, start + line.length);
    start += line.length + 2;
    expect(raw.length, line).toBeLessThanOrEqual(75);
    expect(() => decoder.decode(raw), `a line that splits a character: ${raw.toString('hex')}`).not.toThrow();
    longest = Math.max(longest, raw.length);
  }
  // the name did need folding, and a folded line is not cut short needlessly
  expect(longest).toBeGreaterThan(70);
}

const unfold = (ics: string) => ics.replace(/\r\n[ \t]/g, '');

async function setup(): Promise<{ s: Scheduling; appointment: { uuid: string; reference: string } }> {
  const s = await setupScheduling(t, { resource: { publicName: LONG_NAME, internalName: 'DG links' } });
  const appointment = await createAppointment(s, { start: '2026-06-12T10:00', end: '2026-06-12T11:00', capacity: 3 });
  return { s, appointment };
}

/** The calendar parts of the crm's outbox mails, rendered as the mail worker renders them, in order. */
async function calendarParts(crmId: string): Promise<string[]> {
  const mails = await outboxOf(t, crmId);
  return mails
    .map(
      (m) =>
        renderMail(
          { template: m.template, locale: m.locale, recipient: m.recipient, payload: m.payload },
          { mailFrom: t.config.mailFrom },
        ).calendar?.content,
    )
    .filter((c): c is string => Boolean(c));
}

const sequenceOf = (ics: string) => Number(/^SEQUENCE:(\d+)$/m.exec(unfold(ics))![1]);

describe('mails', () => {
  it('fold every calendar line at 75 octets of UTF-8, never inside a character', async () => {
    const { s, appointment } = await setup();
    const c = await createCustomer(s, { userName: 'Jürgen Groß' });
    const res = await participate(s, {
      appointmentReference: appointment.reference,
      customerReference: c.customerReference,
      state: 'BOOKED',
    });
    expect(res.statusCode, res.body).toBe(201);
    const [ics] = await calendarParts(s.p.crmId);
    expectFoldedByOctets(Buffer.from(ics, 'utf8'));
    // the details (the resource's long name among them) read back whole once unfolded
    const description = new ICAL.Event(new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')!).description;
    expect(description).toContain(LONG_NAME);
  });

  it('give each calendar part a higher SEQUENCE than the one before, also several within one second', async () => {
    const { s, appointment } = await setup();
    const c = await createCustomer(s);
    const res = await participate(
      s,
      { appointmentReference: appointment.reference, customerReference: c.customerReference, state: 'REQUESTED' },
      { sendMails: 'false' },
    );
    const ref = encodeURIComponent(res.json().participation.reference);
    const [{ id }] = await t.db.query<{ id: string }>('SELECT id FROM participations WHERE crm_id = $1', [s.p.crmId]);
    // booked (REQUEST), the same invite twice more as a reminder would send it, then cancelled (CANCEL): all at once
    expect((await s.p.call('POST', `${s.base}/participations/${ref}`, { state: 'BOOKED' })).statusCode).toBe(200);
    for (let i = 0; i < 2; i++)
      await t.db.transaction((tx) => enqueueParticipationMails(tx, mailSources(t.config), id, ['booking-reminder']));
    expect((await s.p.call('POST', `${s.base}/participations/${ref}`, { state: 'CANCELED' })).statusCode).toBe(200);
    const parts = await calendarParts(s.p.crmId);
    expect(parts.map((p) => /^METHOD:(\w+)$/m.exec(p)![1])).toEqual(['REQUEST', 'REQUEST', 'REQUEST', 'CANCEL']);
    const sequences = parts.map(sequenceOf);
    for (let i = 1; i < sequences.length; i++)
      expect(sequences[i], sequences.join(', ')).toBeGreaterThan(sequences[i - 1]);
  });
});

describe('calendar feeds', () => {
  async function feedOf(s: Scheduling): Promise<string> {
    const res = await s.p.call('POST', `${s.base}/calendar-feeds`);
    expect(res.statusCode, res.body).toBe(201);
    return new URL(res.json().feed.url).pathname;
  }

  function eventOf(ics: string, uid: string) {
    const vevent = new ICAL.Component(ICAL.parse(ics))
      .getAllSubcomponents('vevent')
      .find((v) => v.getFirstPropertyValue('uid') === uid)!;
    const e = new ICAL.Event(vevent);
    return {
      sequence: e.sequence,
      status: String(vevent.getFirstPropertyValue('status')),
      description: e.description ?? '',
    };
  }

  it('fold every line at 75 octets of UTF-8, never inside a character', async () => {
    const { s, appointment } = await setup();
    const res = await t.app.inject({ method: 'GET', url: await feedOf(s) });
    expect(res.statusCode).toBe(200);
    expectFoldedByOctets(res.rawPayload);
    expect(unfold(res.body)).toContain(LONG_NAME);
    expect(eventOf(res.body, appointment.uuid).status).toBe('CONFIRMED');
  });

  it("raise an event's SEQUENCE with every change, also several in one second, and keep it otherwise", async () => {
    const { s, appointment } = await setup();
    const path = await feedOf(s);
    const sequence = async () =>
      eventOf((await t.app.inject({ method: 'GET', url: path })).body, appointment.uuid).sequence;
    const c = await createCustomer(s, { userName: 'Tina Tentative' });

    const seen = [await sequence()];
    const joined = await participate(
      s,
      { appointmentReference: appointment.reference, customerReference: c.customerReference, state: 'REQUESTED' },
      { sendMails: 'false' },
    );
    seen.push(await sequence());
    const ref = encodeURIComponent(joined.json().participation.reference);
    expect(
      (await s.p.call('POST', `${s.base}/participations/${ref}`, { state: 'BOOKED' }, { sendMails: 'false' }))
        .statusCode,
    ).toBe(200);
    seen.push(await sequence());
    seen.push(await sequence()); // unchanged: the same number
    expect(
      (
        await s.p.call('PUT', `${s.base}/customers/${encodeURIComponent(c.customerReference)}`, {
          userName: 'Tina Booked',
        })
      ).statusCode,
    ).toBe(200);
    seen.push(await sequence());
    expect(seen[1]).toBeGreaterThan(seen[0]);
    expect(seen[2]).toBeGreaterThan(seen[1]);
    expect(seen[3]).toBe(seen[2]);
    expect(seen[4]).toBeGreaterThan(seen[3]);
  });
});
