/**
 * A provider's CalDAV calendar collection (DESIGN §7.6): reading its events in a time range and
 * writing this service's appointments into it. tsdav builds and parses the WebDAV XML; every
 * request goes through calendars/http.ts (tsdav takes a `fetch` per call), so CalDAV gets the same
 * address guard at connect time, deadline and size limit as the iCalendar URLs, and failures are
 * CalendarUnreadable with a message a person understands. Redirects are not followed: a moved
 * calendar fails with its HTTP status until its new address is registered.
 *
 * An unchanged calendar costs one small request: PROPFIND of the collection's sync-token and ctag,
 * compared with those of the last good read (the tokens are read before the events, so a change
 * in between only causes one more read later). The caller should still read in full now and then
 * (pass no tokens): the tokens say that the calendar did not change, not that the range did not move.
 */
import { calendarQuery, deleteObject, propfind, updateObject, type DAVResponse } from 'tsdav';
import type { Lookup } from '../net/destination.js';
import {
  CalendarUnreadable,
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  exchange,
  statusText,
  withDeadline,
} from './http.js';

export { CalendarUnreadable } from './http.js';

export interface CalDavAccount {
  /** the calendar collection, e.g. https://dav.example.org/calendars/anna/work/ */
  url: string;
  username: string;
  password: string;
}

export interface CalDavOptions {
  /** CALENDAR_ALLOW_PRIVATE_NETWORKS */
  allowPrivate: boolean;
  lookup?: Lookup;
  /** per operation (default 10 s) */
  timeoutMs?: number;
  /** per answer (default 5 MiB) */
  maxBytes?: number;
}

export interface CalDavTokens {
  ctag?: string | null;
  syncToken?: string | null;
}

export type CalDavRead =
  | { kind: 'unchanged' }
  | {
      kind: 'ok' /** iCalendar texts, one per calendar object */;
      objects: string[];
      ctag: string | null;
      syncToken: string | null;
    };

/** The collection's URL with one trailing slash, so that `<uid>.ics` resolves inside it. */
const collectionOf = (account: CalDavAccount) => new URL(account.url.replace(/\/*$/, '/'));

/** What an HTTP status means for a calendar, in words; null when it is a success. */
function statusProblem(status: number, reason: string): string | null {
  if (status >= 200 && status < 300) return null;
  if (status === 401) return 'the calendar refused the user name or password';
  if (status === 403) return `the calendar refused access to this user (${statusText(status, reason)})`;
  if (status === 404) return `no calendar at this address (${statusText(status, reason)})`;
  if (status >= 300 && status < 400)
    return `the calendar answered with a redirect (${statusText(status, reason)}); register its new address`;
  return `the calendar answered ${statusText(status, reason)}`;
}

/**
 * A fetch for tsdav that speaks through the guarded exchange with the account's credentials. An
 * answer whose status is not a success (nor one of `alsoFine`) fails as CalendarUnreadable before
 * tsdav sees it, so its message stays a person's, not tsdav's "Collection query failed".
 */
function davFetch(
  account: CalDavAccount,
  opts: CalDavOptions,
  signal: AbortSignal,
  alsoFine: number[] = [],
): typeof fetch {
  const authorization = `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url, collectionOf(account));
    const headers: Record<string, string> = {
      ...Object.fromEntries(new Headers(init.headers).entries()),
      authorization,
    };
    const body = init.body == null ? undefined : String(init.body);
    const answer = await exchange(
      url,
      { method: init.method ?? 'GET', headers, body },
      { allowPrivate: opts.allowPrivate, lookup: opts.lookup, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES, signal },
    );
    const problem = alsoFine.includes(answer.status) ? null : statusProblem(answer.status, answer.reason);
    if (problem) throw new CalendarUnreadable(problem);
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && name !== 'content-encoding' && name !== 'content-length')
        responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const empty = answer.status === 204 || answer.status === 205 || answer.status === 304;
    return new Response(empty ? null : new Uint8Array(answer.body), {
      status: answer.status,
      statusText: answer.reason,
      headers: responseHeaders,
    });
  }) as typeof fetch;
}

/** Runs one CalDAV operation under the deadline, with tsdav's own errors (unexpected XML) worded too. */
async function operation<T>(opts: CalDavOptions, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return withDeadline(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, async (signal) => {
    try {
      return await work(signal);
    } catch (err) {
      if (err instanceof CalendarUnreadable || signal.aborted) throw err;
      throw new CalendarUnreadable(`the calendar's answer was not understood: ${(err as Error).message.slice(0, 200)}`);
    }
  });
}

const text = (value: unknown): string | null => {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'object' && '_text' in value) return text((value as { _text: unknown })._text);
  return String(value);
};

/** The collection's own answer in a PROPFIND, failing when it is not a calendar. */
function collectionProps(responses: DAVResponse[]): { ctag: string | null; syncToken: string | null } {
  const own = responses[0];
  if (!own?.ok)
    throw new CalendarUnreadable(
      statusProblem(own?.status ?? 0, own?.statusText ?? '') ?? 'no calendar at this address',
    );
  const props = own.props ?? {};
  if (!props.resourcetype || !('calendar' in props.resourcetype))
    throw new CalendarUnreadable('the address is not a CalDAV calendar collection');
  return { ctag: text(props.getctag), syncToken: text(props.syncToken) };
}

const utcStamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;

/**
 * The calendar's objects that have an event in [fromMs, toMs) (a time-range calendar-query REPORT:
 * recurring events come whole, with all their instances and overrides, for the parser to expand),
 * or 'unchanged' when its sync-token or ctag equals the known one (one PROPFIND, nothing else).
 */
export async function readCalDav(
  account: CalDavAccount,
  known: CalDavTokens,
  range: { fromMs: number; toMs: number },
  opts: CalDavOptions,
): Promise<CalDavRead> {
  return operation(opts, async (signal) => {
    const fetch = davFetch(account, opts, signal, [207]);
    const url = collectionOf(account).href;
    const tokens = collectionProps(
      await propfind({ url, depth: '0', props: { 'd:resourcetype': {}, 'cs:getctag': {}, 'd:sync-token': {} }, fetch }),
    );
    const same = (a: string | null | undefined, b: string | null) => Boolean(a) && a === b;
    if (same(known.syncToken, tokens.syncToken) || (!tokens.syncToken && same(known.ctag, tokens.ctag)))
      return { kind: 'unchanged' };
    const found = await calendarQuery({
      url,
      depth: '1',
      props: { 'd:getetag': {}, 'c:calendar-data': {} },
      filters: {
        'c:comp-filter': {
          _attributes: { name: 'VCALENDAR' },
          'c:comp-filter': {
            _attributes: { name: 'VEVENT' },
            'c:time-range': { _attributes: { start: utcStamp(range.fromMs), end: utcStamp(range.toMs) } },
          },
        },
      },
      fetch,
    });
    const objects = found.map((r) => text(r.props?.calendarData)).filter((data): data is string => data !== null);
    return { kind: 'ok', objects, ...tokens };
  });
}

/** The URL of this service's event `uid` in the collection. */
const eventUrl = (account: CalDavAccount, uid: string) =>
  new URL(`${encodeURIComponent(uid)}.ics`, collectionOf(account)).href;

/**
 * Creates or replaces the event `uid` (PUT `<collection>/<uid>.ics`, no precondition: repeating it is harmless). Throws
 * CalendarUnreadable to retry later.
 */
export async function putEvent(account: CalDavAccount, uid: string, ics: string, opts: CalDavOptions): Promise<void> {
  await operation(opts, async (signal) => {
    await updateObject({
      url: eventUrl(account, uid),
      data: ics,
      headers: { 'content-type': 'text/calendar; charset=utf-8' },
      fetch: davFetch(account, opts, signal),
    });
  });
}

/**
 * Removes the event `uid`; one that is not there (404, 410)
 * counts as removed. Throws CalendarUnreadable to retry later.
 */
export async function deleteEvent(account: CalDavAccount, uid: string, opts: CalDavOptions): Promise<void> {
  await operation(opts, async (signal) => {
    await deleteObject({ url: eventUrl(account, uid), fetch: davFetch(account, opts, signal, [404, 410]) });
  });
}
