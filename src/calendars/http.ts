/**
 * One HTTP exchange with a calendar server, as every calendar read and write makes it: the address
 * guard before connecting (an address literal, localhost) and at connect time (the guarded DNS
 * lookup of net/destination.ts), a deadline for the whole exchange, a size limit enforced while the
 * body streams in (after gzip/deflate decoding, so a small compressed body cannot expand past it),
 * and failures as CalendarUnreadable with a message a person understands. Redirects are not followed
 * here (fetchIcs follows them itself, checking each target).
 */
import http, { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { DomainError } from '../errors.js';
import { assertDeliverable, guardedLookup, RefusedDestination, type Lookup } from '../net/destination.js';

/** A calendar that cannot be read or written now; the message says why (422 CALENDAR_UNREADABLE at registration). */
export class CalendarUnreadable extends DomainError {
  constructor(message: string) {
    super('CALENDAR_UNREADABLE', message);
    this.name = 'CalendarUnreadable';
  }
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const USER_AGENT = 'booking-service-calendars/1';

export interface Answer {
  status: number;
  /** the status line's reason phrase as the server sent it */
  reason: string;
  headers: IncomingHttpHeaders;
  /** the decoded body */
  body: Buffer;
}

export interface ExchangeOptions {
  allowPrivate: boolean;
  /** DNS for the connect-time check (tests); only used when private networks are refused */
  lookup?: Lookup;
  maxBytes: number;
  /** aborts the exchange: the caller's deadline */
  signal: AbortSignal;
}

export interface Exchange {
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

/** "5 MiB", "64 KiB", "1000 bytes". */
export function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** "HTTP 404 Not Found". */
export const statusText = (status: number, message?: string) =>
  `HTTP ${status} ${message || STATUS_CODES[status] || ''}`.trimEnd();

/**
 * Runs `work` with a signal that aborts after `timeoutMs`; an exchange cut off by it fails with
 * "no answer within 10 s", whatever step it was in.
 */
export async function withDeadline<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await work(controller.signal);
  } catch (err) {
    if (controller.signal.aborted) throw new CalendarUnreadable(`no answer within ${timeoutMs / 1000} s`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** A person's words for a failed connection: never the URL (its path may be a secret), only the host. */
export function connectionProblem(err: unknown, url: URL): CalendarUnreadable {
  if (err instanceof CalendarUnreadable) return err;
  if (err instanceof RefusedDestination) return new CalendarUnreadable(`address not allowed: ${err.reason}`);
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const host = url.host;
  if (code === 'ECONNREFUSED')
    return new CalendarUnreadable(`the server at ${host} refused the connection (is it running?)`);
  if (code === 'ENOTFOUND') return new CalendarUnreadable(`the host name ${url.hostname} was not found`);
  if (code === 'EAI_AGAIN') return new CalendarUnreadable(`the host name ${url.hostname} could not be looked up now`);
  if (code === 'ECONNRESET' || code === 'EPIPE')
    return new CalendarUnreadable(`the server at ${host} closed the connection unexpectedly`);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return new CalendarUnreadable(`the server at ${host} cannot be reached`);
  if (/CERT|SELF_SIGNED|TLS|SSL/.test(code))
    return new CalendarUnreadable(`the TLS certificate of ${host} is not valid (${code})`);
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR')
    return new CalendarUnreadable(`the server at ${host} sent a body that does not decompress`);
  return new CalendarUnreadable(`the connection to ${host} failed: ${code || (err as Error).message}`);
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  return response;
}

/** The body, decoded, failing as soon as it passes `maxBytes`. */
async function readBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (!response.headers['content-encoding'] && declared > maxBytes)
    throw new CalendarUnreadable(`larger than ${sizeText(maxBytes)}`);
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = decoded(response);
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.destroy();
      stream.destroy();
      throw new CalendarUnreadable(`larger than ${sizeText(maxBytes)}`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The lookup to connect with: the guard's when private networks are refused, else the system's. */
const connectLookup = (options: ExchangeOptions) => guardedLookup(options.allowPrivate, options.lookup);

/** One request and its whole answer (any status); failures to connect or read are CalendarUnreadable. */
export async function exchange(url: URL, request: Exchange, options: ExchangeOptions): Promise<Answer> {
  try {
    assertDeliverable(url, options.allowPrivate);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(url, {
        method: request.method,
        headers: {
          'user-agent': USER_AGENT,
          'accept-encoding': 'gzip, deflate',
          ...request.headers,
          ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) }),
        },
        lookup: connectLookup(options),
        signal: options.signal,
        agent: false,
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end(request.body);
    });
    const body = await readBody(response, options.maxBytes);
    return { status: response.statusCode ?? 0, reason: response.statusMessage ?? '', headers: response.headers, body };
  } catch (err) {
    if (options.signal.aborted) throw err; // withDeadline words it
    throw connectionProblem(err, url);
  }
}
