/**
 * The CalDAV client against a real Radicale (test/helpers/radicale.ts) with a real password check:
 * reading events in a time range, an unchanged calendar costing one request, write-back (create,
 * update, delete) seen in a fresh read, a wrong password, Radicale down and back (nothing lost:
 * the write that failed succeeds when retried), the address guard and the deadline.
 * The time range goes out in UTC whatever the process's zone (checked on the wire; run under a TZ
 * other than UTC, e.g. TZ=Europe/Berlin).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteEvent, putEvent, readCalDav, type CalDavAccount } from '../../src/calendars/caldav.js';
import { skipWithoutRadicale, startRadicale, type Radicale } from '../helpers/radicale.js';

const open = { allowPrivate: true };
const RANGE = { fromMs: Date.parse('2027-03-01T00:00:00Z'), toMs: Date.parse('2027-04-01T00:00:00Z') };

const event = (uid: string, start: string, end: string, extra = '') =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20270101T000000Z',
    `DTSTART:${start}`,
    `DTEND:${end}`,
    `SUMMARY:${uid}`,
    ...(extra ? [extra] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

const uidsOf = (objects: string[]) => objects.map((o) => /^UID:(.*)$/m.exec(o)![1].trim()).sort();

/** An HTTP relay in front of Radicale that counts the requests a read makes. */
async function countingRelay(
  target: string,
): Promise<{ url: string; count: () => number; bodies: string[]; close: () => Promise<void> }> {
  let requests = 0;
  const bodies: string[] = [];
  const { hostname, port } = new URL(target);
  const relay: Server = createServer((req, res) => {
    requests++;
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => bodies.push(`${req.method} ${body}`));
    const upstream = request({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    count: () => requests,
    bodies,
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}

describe.skipIf(skipWithoutRadicale())('a CalDAV calendar (Radicale)', () => {
  let radicale: Radicale;
  let account: CalDavAccount;

  beforeAll(async () => {
    radicale = await startRadicale();
    account = { url: await radicale.makeCalendar('work'), username: radicale.username, password: radicale.password };
    const seed = async (uid: string, ics: string) => {
      const auth = `Basic ${Buffer.from(`${radicale.username}:${radicale.password}`).toString('base64')}`;
      const response = await fetch(`${account.url}${uid}.ics`, {
        method: 'PUT',
        headers: { authorization: auth, 'content-type': 'text/calendar' },
        body: ics,
      });
      expect(response.status).toBe(201);
    };
    await seed('dentist', event('dentist', '20270310T080000Z', '20270310T090000Z'));
    await seed('last-year', event('last-year', '20260310T080000Z', '20260310T090000Z'));
    await seed('after-range', event('after-range', '20270401T000000Z', '20270401T010000Z'));
    await seed('weekly', event('weekly', '20270104T150000Z', '20270104T160000Z', 'RRULE:FREQ=WEEKLY;COUNT=20'));
  });
  afterAll(() => radicale?.close());

  it('reads the objects with an event in the range, recurring ones whole, with the tokens', async () => {
    const read = await readCalDav(account, {}, RANGE, open);
    if (read.kind !== 'ok') throw new Error('expected a read');
    expect(uidsOf(read.objects)).toEqual(['dentist', 'weekly']);
    expect(read.objects.find((o) => o.includes('UID:weekly'))).toMatch(/RRULE:FREQ=WEEKLY;COUNT=20/);
    expect(read.ctag).toMatch(/\S/);
    expect(read.syncToken).toMatch(/\S/);
  });

  it('answers unchanged after one request for the known sync-token or ctag, reads again after a change', async () => {
    const relay = await countingRelay(radicale.base);
    try {
      const relayed = { ...account, url: account.url.replace(radicale.base, relay.url) };
      const first = await readCalDav(relayed, {}, RANGE, open);
      if (first.kind !== 'ok') throw new Error('expected a read');
      expect(relay.count()).toBe(2); // PROPFIND + REPORT
      expect(relay.bodies[1]).toMatch(
        /^REPORT [\s\S]*<c:time-range start="20270301T000000Z" end="20270401T000000Z"\/>/,
      );

      expect(await readCalDav(relayed, { ctag: first.ctag, syncToken: first.syncToken }, RANGE, open)).toEqual({
        kind: 'unchanged',
      });
      expect(relay.count()).toBe(3);
      expect(await readCalDav(relayed, { syncToken: first.syncToken }, RANGE, open)).toEqual({ kind: 'unchanged' });
      expect(relay.count()).toBe(4);

      await putEvent(relayed, 'moved-in', event('moved-in', '20270320T100000Z', '20270320T110000Z'), open);
      const again = await readCalDav(relayed, { ctag: first.ctag, syncToken: first.syncToken }, RANGE, open);
      expect(again).toMatchObject({ kind: 'ok' });
      expect(uidsOf((again as { objects: string[] }).objects)).toContain('moved-in');
      await deleteEvent(relayed, 'moved-in', open);
    } finally {
      await relay.close();
    }
  });

  it('writes an event, replaces it, writes it again harmlessly, removes it; removing it twice is fine', async () => {
    const uid = '0b6f7c1e-8c1d-4f7e-9a43-3f2a1c9d5e10';
    const objectsWith = async () => {
      const read = await readCalDav(account, {}, RANGE, open);
      return (read as { objects: string[] }).objects.filter((o) => o.includes(uid));
    };
    await putEvent(account, uid, event(uid, '20270315T090000Z', '20270315T100000Z', 'STATUS:TENTATIVE'), open);
    expect(await objectsWith()).toEqual([expect.stringMatching(/STATUS:TENTATIVE/)]);

    const confirmed = event(uid, '20270316T090000Z', '20270316T100000Z', 'STATUS:CONFIRMED');
    await putEvent(account, uid, confirmed, open);
    await putEvent(account, uid, confirmed, open);
    const now = await objectsWith();
    expect(now).toHaveLength(1);
    expect(now[0]).toMatch(/STATUS:CONFIRMED/);
    expect(now[0]).toMatch(/DTSTART:20270316T090000Z/);

    await deleteEvent(account, uid, open);
    expect(await objectsWith()).toEqual([]);
    await expect(deleteEvent(account, uid, open)).resolves.toBeUndefined();
  });

  it('says the password was refused, for reads and writes', async () => {
    const wrong = { ...account, password: 'wrong' };
    const refused = {
      name: 'CalendarUnreadable',
      code: 'CALENDAR_UNREADABLE',
      message: 'the calendar refused the user name or password',
    };
    await expect(readCalDav(wrong, {}, RANGE, open)).rejects.toMatchObject(refused);
    await expect(putEvent(wrong, 'x', event('x', '20270315T090000Z', '20270315T100000Z'), open)).rejects.toMatchObject(
      refused,
    );
    await expect(deleteEvent(wrong, 'x', open)).rejects.toMatchObject(refused);
  });

  it('says when the address is no calendar', async () => {
    await expect(
      readCalDav({ ...account, url: `${radicale.base}/${radicale.username}/nothing/` }, {}, RANGE, open),
    ).rejects.toMatchObject({ message: 'no calendar at this address (HTTP 404 Not Found)' });
    await expect(
      readCalDav({ ...account, url: `${radicale.base}/${radicale.username}/` }, {}, RANGE, open),
    ).rejects.toMatchObject({ message: 'the address is not a CalDAV calendar collection' });
  });

  it('fails while Radicale is down, saying so, and a write retried after it is back is there', async () => {
    const uid = 'written-while-down';
    await radicale.stop();
    try {
      const down = `the server at ${new URL(radicale.base).host} refused the connection (is it running?)`;
      await expect(readCalDav(account, {}, RANGE, open)).rejects.toMatchObject({
        name: 'CalendarUnreadable',
        message: down,
      });
      await expect(
        putEvent(account, uid, event(uid, '20270317T090000Z', '20270317T100000Z'), open),
      ).rejects.toMatchObject({ message: down });
    } finally {
      await radicale.start();
    }
    await putEvent(account, uid, event(uid, '20270317T090000Z', '20270317T100000Z'), open);
    const read = await readCalDav(account, {}, RANGE, open);
    expect(uidsOf((read as { objects: string[] }).objects)).toEqual(['dentist', uid, 'weekly'].sort());
  });

  it('refuses a calendar on this machine unless private networks are allowed', async () => {
    await expect(readCalDav(account, {}, RANGE, { allowPrivate: false })).rejects.toMatchObject({
      message: 'address not allowed: 127.0.0.1 lies in a loopback network',
    });
    await expect(putEvent(account, 'x', 'BEGIN:VCALENDAR', { allowPrivate: false })).rejects.toMatchObject({
      message: /^address not allowed/,
    });
  });
});

describe('a CalDAV server that does not answer', () => {
  it('gives up after the time limit', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const account = {
        url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/cal/`,
        username: 'a',
        password: 'b',
      };
      await expect(readCalDav(account, {}, RANGE, { allowPrivate: true, timeoutMs: 300 })).rejects.toMatchObject({
        message: 'no answer within 0.3 s',
      });
      await expect(deleteEvent(account, 'x', { allowPrivate: true, timeoutMs: 300 })).rejects.toMatchObject({
        message: 'no answer within 0.3 s',
      });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
