/**
 * fetchIcs against a real local HTTP server (no database: calendar reading is I/O only): conditional
 * GET, gzip, redirects, every failure with a message a person understands, and the address guard
 * (loopback refused when private networks are not allowed, also behind a redirect or a DNS name).
 */
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertCalendarUrl, calendarUrl } from '../../src/calendars/address.js';
import { CalendarUnreadable, fetchIcs } from '../../src/calendars/fetchIcs.js';
import { DomainError } from '../../src/errors.js';
import { refusedRange, type Lookup } from '../../src/net/destination.js';

const ICS =
  'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n' +
  'BEGIN:VEVENT\r\nUID:a@test\r\nDTSTART:20270105T090000Z\r\nDTEND:20270105T100000Z\r\nEND:VEVENT\r\n' +
  'END:VCALENDAR\r\n';
const ETAG = '"v1"';
const MODIFIED = 'Tue, 05 Jan 2027 08:00:00 GMT';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let base: string;
let requests: { path: string; headers: IncomingMessage['headers'] }[] = [];
const routes: Record<string, Handler> = {};

const open = { allowPrivate: true };
const unreadable = (message: RegExp | string) =>
  expect.objectContaining({
    name: 'CalendarUnreadable',
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ path: req.url!, headers: req.headers });
    const handler = routes[req.url!.split('?')[0]];
    if (handler) return handler(req, res);
    res.writeHead(404).end('no such calendar');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(routes, {
    '/cal.ics': (req, res) => {
      if (req.headers['if-none-match'] === ETAG || req.headers['if-modified-since'] === MODIFIED)
        return res.writeHead(304).end();
      res.writeHead(200, { 'content-type': 'text/calendar', etag: ETAG, 'last-modified': MODIFIED }).end(ICS);
    },
    '/gzip.ics': (req, res) => {
      expect(req.headers['accept-encoding']).toMatch(/gzip/);
      res.writeHead(200, { 'content-type': 'text/calendar', 'content-encoding': 'gzip' }).end(gzipSync(`\uFEFF${ICS}`));
    },
    '/page': (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in</body></html>'),
    '/json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    '/big.ics': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar' });
      res.write(ICS.replace('END:VCALENDAR\r\n', ''));
      res.end(`X-FILL:${'x'.repeat(4000)}\r\nEND:VCALENDAR\r\n`); // no content-length: counted while streaming
    },
    '/bomb.ics': (_req, res) =>
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(ICS + ' '.repeat(10 * 1024 * 1024))),
    '/slow.ics': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar' });
      res.write('BEGIN:VCALENDAR\r\n'); // then nothing: the deadline covers the body too
    },
    '/hang.ics': () => {},
    '/gone': (_req, res) => res.writeHead(410).end(),
    '/forbidden': (_req, res) => res.writeHead(403, 'Access Denied').end(),
    '/r1': (_req, res) => res.writeHead(301, { location: '/r2' }).end(),
    '/r2': (_req, res) => res.writeHead(302, { location: `${base}/r3` }).end(),
    '/r3': (_req, res) => res.writeHead(307, { location: '/cal.ics' }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/nowhere': (_req, res) => res.writeHead(302).end(),
    '/to-ftp': (_req, res) => res.writeHead(302, { location: 'ftp://example.org/cal.ics' }).end(),
  } satisfies Record<string, Handler>);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests = [];
});

describe('reading an iCalendar URL', () => {
  it('reads the file with its ETag and Last-Modified, then answers unchanged to a conditional GET', async () => {
    const first = await fetchIcs(`${base}/cal.ics`, {}, open);
    expect(first).toEqual({ kind: 'ok', text: ICS, etag: ETAG, lastModified: MODIFIED });
    expect(requests[0].headers['if-none-match']).toBeUndefined();

    expect(await fetchIcs(`${base}/cal.ics`, { etag: ETAG, lastModified: MODIFIED }, open)).toEqual({
      kind: 'unchanged',
    });
    expect(requests[1].headers).toMatchObject({ 'if-none-match': ETAG, 'if-modified-since': MODIFIED });
    expect(await fetchIcs(`${base}/cal.ics`, { etag: null, lastModified: MODIFIED }, open)).toEqual({
      kind: 'unchanged',
    });
    expect(await fetchIcs(`${base}/cal.ics`, { etag: '"old"' }, open)).toMatchObject({ kind: 'ok', etag: ETAG });
  });

  it('accepts a gzip body (and drops a byte-order mark)', async () => {
    expect(await fetchIcs(`${base}/gzip.ics`, {}, open)).toMatchObject({
      kind: 'ok',
      text: ICS,
      etag: null,
      lastModified: null,
    });
  });

  it('follows up to 3 redirects, relative or absolute, and fails on a 4th', async () => {
    expect(await fetchIcs(`${base}/r1`, {}, open)).toMatchObject({ kind: 'ok', text: ICS });
    expect(requests.map((r) => r.path)).toEqual(['/r1', '/r2', '/r3', '/cal.ics']);
    await expect(fetchIcs(`${base}/r1`, {}, { ...open, maxRedirects: 2 })).rejects.toEqual(
      unreadable('too many redirects (more than 2)'),
    );
    await expect(fetchIcs(`${base}/loop`, {}, open)).rejects.toEqual(unreadable('too many redirects (more than 3)'));
    await expect(fetchIcs(`${base}/nowhere`, {}, open)).rejects.toEqual(
      unreadable('the server sent a redirect without a Location'),
    );
    await expect(fetchIcs(`${base}/to-ftp`, {}, open)).rejects.toEqual(
      unreadable('the server redirected to a ftp: address'),
    );
  });

  it('sends the conditional headers along a redirect, so a moved calendar can still be unchanged', async () => {
    expect(await fetchIcs(`${base}/r3`, { etag: ETAG }, open)).toEqual({ kind: 'unchanged' });
  });

  it('names the HTTP status of an error answer', async () => {
    await expect(fetchIcs(`${base}/missing.ics`, {}, open)).rejects.toEqual(unreadable(/^HTTP 404 Not Found$/));
    await expect(fetchIcs(`${base}/gone`, {}, open)).rejects.toEqual(unreadable(/^HTTP 410 Gone$/));
    await expect(fetchIcs(`${base}/forbidden`, {}, open)).rejects.toEqual(unreadable(/^HTTP 403 Access Denied$/));
  });

  it('refuses what is not an iCalendar file, saying when it was a web page', async () => {
    await expect(fetchIcs(`${base}/page`, {}, open)).rejects.toEqual(
      unreadable(/^not an iCalendar file \(the server sent a web page\)$/),
    );
    await expect(fetchIcs(`${base}/json`, {}, open)).rejects.toEqual(unreadable(/^not an iCalendar file$/));
  });

  it('stops reading past the size limit, also when a small gzip body expands', async () => {
    await expect(fetchIcs(`${base}/big.ics`, {}, { ...open, maxBytes: 1024 })).rejects.toEqual(
      unreadable(/^larger than 1 KiB$/),
    );
    expect(await fetchIcs(`${base}/big.ics`, {}, { ...open, maxBytes: 8192 })).toMatchObject({ kind: 'ok' });
    await expect(fetchIcs(`${base}/bomb.ics`, {}, open)).rejects.toEqual(unreadable(/^larger than 5 MiB$/));
  });

  it('gives up after the time limit, waiting for the answer or for the rest of the body', async () => {
    const started = Date.now();
    await expect(fetchIcs(`${base}/hang.ics`, {}, { ...open, timeoutMs: 300 })).rejects.toEqual(
      unreadable(/^no answer within 0.3 s$/),
    );
    await expect(fetchIcs(`${base}/slow.ics`, {}, { ...open, timeoutMs: 300 })).rejects.toEqual(
      unreadable(/^no answer within 0.3 s$/),
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('says when nobody answers at the address or the name does not exist', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(fetchIcs(`http://127.0.0.1:${port}/cal.ics`, {}, open)).rejects.toEqual(
      unreadable(`the server at 127.0.0.1:${port} refused the connection (is it running?)`),
    );
    await expect(fetchIcs('https://calendar.invalid/cal.ics', {}, open)).rejects.toEqual(
      unreadable(/^the host name calendar\.invalid (was not found|could not be looked up now)$/),
    );
  });

  it('reads webcal:// as https:// and refuses other schemes', async () => {
    expect(calendarUrl('webcal://p01-caldav.icloud.com/published/2/abc')).toBe(
      'https://p01-caldav.icloud.com/published/2/abc',
    );
    expect(calendarUrl('WEBCALS://example.org/x.ics')).toBe('https://example.org/x.ics');
    expect(calendarUrl('http://example.org/x.ics')).toBe('http://example.org/x.ics');
    // webcal to this plain-http test server is therefore a TLS handshake
    // with a plain-http server: it fails, it is not read as http
    const port = new URL(base).port;
    await expect(fetchIcs(`webcal://127.0.0.1:${port}/cal.ics`, {}, open)).rejects.toBeInstanceOf(CalendarUnreadable);
    await expect(fetchIcs('ftp://example.org/cal.ics', {}, open)).rejects.toEqual(
      unreadable('ftp: addresses cannot be read'),
    );
    await expect(fetchIcs('not a url', {}, open)).rejects.toEqual(unreadable('the address is not a URL'));
  });

  it('is a DomainError with code CALENDAR_UNREADABLE, which the API answers as 422', async () => {
    const err = await fetchIcs(`${base}/gone`, {}, open).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('CALENDAR_UNREADABLE');
  });

  it('never puts the address path (it may be the secret) in a message', async () => {
    const err = (await fetchIcs(`${base}/secret-token-123/missing.ics`, {}, open).catch((e: unknown) => e)) as Error;
    const refused = (await fetchIcs('http://127.0.0.1:1/secret-token-123', {}, { allowPrivate: false }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(`${err.message} ${refused.message}`).not.toMatch(/secret-token/);
  });
});

/** A DNS stand-in: calendar.test resolves to this machine, public.test outside. */
const fakeDns: Lookup = (host, _options, callback) => {
  const table: Record<string, LookupAddress[]> = {
    'calendar.test': [{ address: '127.0.0.1', family: 4 }],
    'public.test': [{ address: '93.184.215.14', family: 4 }],
  };
  if (table[host]) callback(null, table[host]);
  else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
};

describe('the address guard for calendars (CALENDAR_ALLOW_PRIVATE_NETWORKS unset)', () => {
  const guarded = { allowPrivate: false, lookup: fakeDns };

  it('refuses to read from 127.0.0.1, localhost, or a name that resolves to this machine', async () => {
    const port = new URL(base).port;
    await expect(fetchIcs(`${base}/cal.ics`, {}, guarded)).rejects.toEqual(
      unreadable(/^address not allowed: 127\.0\.0\.1 lies in a loopback network$/),
    );
    await expect(fetchIcs(`http://localhost:${port}/cal.ics`, {}, guarded)).rejects.toEqual(
      unreadable(/^address not allowed: localhost is this machine$/),
    );
    await expect(fetchIcs(`http://[::1]:${port}/cal.ics`, {}, guarded)).rejects.toEqual(
      unreadable(/^address not allowed: ::1 lies in a loopback network$/),
    );
    await expect(fetchIcs(`http://calendar.test:${port}/cal.ics`, {}, guarded)).rejects.toEqual(
      unreadable(/^address not allowed: calendar\.test resolves to 127\.0\.0\.1 in a loopback network$/),
    );
    expect(requests).toEqual([]);
  });

  // A redirect is checked like the first address. Proving it needs a first hop that may be read: a
  // server on an address of this machine outside the refused ranges (192.0.2.2 on the test machines).
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4' && !refusedRange(i.address));
  it.runIf(outside)('refuses a redirect to 127.0.0.1 from an address that may be read', async () => {
    const front = createServer((_req, res) => res.writeHead(302, { location: `${base}/cal.ics` }).end());
    await new Promise<void>((resolve) => front.listen(0, outside!.address, resolve));
    try {
      const frontUrl = `http://${outside!.address}:${(front.address() as AddressInfo).port}/cal.ics`;
      await expect(fetchIcs(frontUrl, {}, guarded)).rejects.toEqual(
        unreadable(/^address not allowed: 127\.0\.0\.1 lies in a loopback network$/),
      );
      expect(requests).toEqual([]);
      front.removeAllListeners('request');
      front.on('request', (_req, res) =>
        res.writeHead(302, { location: `http://calendar.test:${new URL(base).port}/cal.ics` }).end(),
      );
      await expect(fetchIcs(frontUrl, {}, guarded)).rejects.toEqual(
        unreadable(/^address not allowed: calendar\.test resolves to 127\.0\.0\.1/),
      );
      expect(requests).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
  });

  it('refuses a loopback address at registration (400 CALENDAR_URL_NOT_ALLOWED), passes a public one', async () => {
    const refused = await assertCalendarUrl('webcal://calendar.test/x.ics', false, 'body.url', fakeDns).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({
      code: 'CALENDAR_URL_NOT_ALLOWED',
      message: expect.stringMatching(
        /^body\.url is refused: calendar\.test resolves to 127\.0\.0\.1 in a loopback network/,
      ),
    });
    await expect(assertCalendarUrl('https://127.0.0.1/x.ics', false, 'body.caldav.url')).rejects.toMatchObject({
      code: 'CALENDAR_URL_NOT_ALLOWED',
    });
    await expect(assertCalendarUrl('https://127.0.0.1/x.ics', true, 'body.url')).resolves.toBe(
      'https://127.0.0.1/x.ics',
    );
    await expect(assertCalendarUrl('webcal://public.test/x.ics', false, 'body.url', fakeDns)).resolves.toBe(
      'https://public.test/x.ics',
    );
    await expect(assertCalendarUrl('ftp://public.test/x.ics', false, 'body.url', fakeDns)).rejects.toMatchObject({
      code: 'VALIDATION',
      message: 'body.url must be an https, http or webcal URL, got ftp:',
    });
    await expect(assertCalendarUrl('nope', false, 'body.url', fakeDns)).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/^body\.url /),
    });
  });
});
