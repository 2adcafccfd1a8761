/**
 * Reads an iCalendar URL (a subscribed calendar, DESIGN §7.6): conditional GET with the ETag and
 * Last-Modified of the last good read (a 304 costs nothing to parse), at most 5 MiB and 10 s in all
 * (redirects included), at most 3 redirects, each target checked by the address guard before and at
 * connect time. webcal:// and webcals:// are read as https:// (calendars/address.ts).
 *
 * The body must start with BEGIN:VCALENDAR (after a byte-order mark or blank lines): checked here,
 * so that an HTML login page or an error page served with 200 fails as "not an iCalendar file"
 * rather than as an empty calendar. Everything inside the file is the parser's business.
 */
import { calendarUrl } from './address.js';
import {
  CalendarUnreadable,
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  exchange,
  statusText,
  withDeadline,
  type ExchangeOptions,
} from './http.js';
import type { Lookup } from '../net/destination.js';

export { CalendarUnreadable } from './http.js';

export interface IcsValidators {
  etag?: string | null;
  lastModified?: string | null;
}

export interface FetchIcsOptions {
  /** CALENDAR_ALLOW_PRIVATE_NETWORKS */
  allowPrivate: boolean;
  lookup?: Lookup;
  /** for the whole read, redirects included (default 10 s) */
  timeoutMs?: number;
  /** of the decoded body (default 5 MiB) */
  maxBytes?: number;
  /** redirects followed; one more fails (default 3) */
  maxRedirects?: number;
}

export type IcsRead =
  | { kind: 'unchanged' }
  | { kind: 'ok'; text: string; etag: string | null; lastModified: string | null };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ICALENDAR = /^\uFEFF?\s*BEGIN:VCALENDAR\b/i;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? null;

function conditionalHeaders(known: IcsValidators): Record<string, string> {
  const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5' };
  if (known.etag) headers['if-none-match'] = known.etag;
  if (known.lastModified) headers['if-modified-since'] = known.lastModified;
  return headers;
}

/** The next address of a redirect, or a CalendarUnreadable naming why it is not followed. */
function redirectTarget(location: string | null, from: URL): URL {
  if (!location) throw new CalendarUnreadable('the server sent a redirect without a Location');
  let target: URL;
  try {
    target = new URL(calendarUrl(location), from);
  } catch {
    throw new CalendarUnreadable('the server redirected to an address that is not a URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new CalendarUnreadable(`the server redirected to a ${target.protocol} address`);
  return target;
}

export async function fetchIcs(url: string, known: IcsValidators, opts: FetchIcsOptions): Promise<IcsRead> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = opts.maxRedirects ?? 3;
  let current: URL;
  try {
    current = new URL(calendarUrl(url));
  } catch {
    throw new CalendarUnreadable('the address is not a URL');
  }
  if (current.protocol !== 'http:' && current.protocol !== 'https:')
    throw new CalendarUnreadable(`${current.protocol} addresses cannot be read`);
  return withDeadline(timeoutMs, async (signal) => {
    const options: ExchangeOptions = { allowPrivate: opts.allowPrivate, lookup: opts.lookup, maxBytes, signal };
    for (let redirects = 0; ; redirects++) {
      const answer = await exchange(current, { method: 'GET', headers: conditionalHeaders(known) }, options);
      if (REDIRECTS.has(answer.status)) {
        if (redirects >= maxRedirects) throw new CalendarUnreadable(`too many redirects (more than ${maxRedirects})`);
        current = redirectTarget(header(answer.headers.location), current);
        continue;
      }
      if (answer.status === 304) return { kind: 'unchanged' };
      if (answer.status < 200 || answer.status >= 300)
        throw new CalendarUnreadable(statusText(answer.status, answer.reason));
      const text = answer.body.toString('utf8').replace(/^\uFEFF/, '');
      if (!ICALENDAR.test(text)) {
        const html = /html/i.test(header(answer.headers['content-type']) ?? '');
        throw new CalendarUnreadable(
          html ? 'not an iCalendar file (the server sent a web page)' : 'not an iCalendar file',
        );
      }
      return {
        kind: 'ok',
        text,
        etag: header(answer.headers.etag),
        lastModified: header(answer.headers['last-modified']),
      };
    }
  });
}
