/**
 * Where the service may send requests to addresses a partner gave it (webhook receivers,
 * calendars): http(s) URLs whose addresses lie outside loopback, private, link-local and multicast
 * networks, checked when the URL is registered and again at every connection after DNS resolution
 * (the checked address is the one connected to, so a name cannot re-resolve to a private address
 * in between). Each caller has its own switch that turns the address checks off
 * (WEBHOOK_ALLOW_PRIVATE_NETWORKS, CALENDAR_ALLOW_PRIVATE_NETWORKS) and words its own errors.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from '../errors.js';

/** Ranges (ipaddr.js names) never connected to; an IPv4-mapped IPv6 address is judged as its IPv4 address. */
const REFUSED = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'private',
  'carrierGradeNat',
  'uniqueLocal',
  'deprecatedSiteLocal',
]);

export const MAX_URL_LENGTH = 2048;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const LABEL = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H16 = '[0-9A-Fa-f]{1,4}';
// RFC 4291's forms: full, compressed (::) anywhere, and the IPv4-mapped and -embedded ones most written
const IPV6 = [
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}:`,
  ...[1, 2, 3, 4, 5, 6].map((n) => `(?:${H16}:){1,${7 - n}}(?::${H16}){1,${n}}`),
  `:(?::${H16}){1,7}`,
  '::',
  `(?:${H16}:){6}${IPV4}`,
  `::(?:[Ff]{4}(?::0{1,4})?:)?${IPV4}`,
  `(?:${H16}:){1,4}:${IPV4}`,
].join('|');
// the last label starts with a letter: a name, never a number a URL parser would read as an IPv4 address
const HOST = `(?:(?:${LABEL}\\.)*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\\.?|${IPV4}|\\[(?:${IPV6})\\])`;
const PORT = '(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0)';
const USER_INFO = '(?:[A-Za-z0-9._~-]+(?::[A-Za-z0-9._~-]*)?@)?';
// RFC 3986 path, query and fragment: unreserved and sub-delims characters, ':', '@' and %XX escapes
const PCHAR = "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
const REST = `(?:/(?:${PCHAR}|/)*)?(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?`;

/** `[Hh][Tt]...`: a scheme as a pattern of either case. */
const anyCase = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c}]`).join('');

/**
 * The form of an absolute URL with one of `schemes` (lower case; any case matches): an ASCII host
 * name, an IPv4 address or an [IPv6] address, an optional port and user info, then an RFC 3986 path,
 * query and fragment.
 * Every URL of this form parses (WHATWG URL) and is an RFC 3986 URI; the request schemas publish it.
 */
export function urlPattern(schemes: readonly string[]): string {
  return `^(?:${schemes.map(anyCase).join('|')})://${USER_INFO}${HOST}(?::${PORT})?${REST}$`;
}

/** What a refusal message adds so that a person knows the rule. */
export const REFUSED_RULE = 'loopback, private, link-local and multicast destinations are not allowed';

/** The refused range an address lies in, or null when it may be connected to. */
export function refusedRange(address: string): string | null {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  return REFUSED.has(range) ? range : null;
}

/** A connection that must not be made; `reason` names the host and the range, never the whole URL. */
export class RefusedDestination extends Error {
  constructor(readonly reason: string) {
    super(`destination refused: ${reason}`);
    this.name = 'RefusedDestination';
  }
}

/** The URL's host as an address when it is one (IPv6 without brackets), else null. */
function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : null;
}

const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** The reason a host is refused before any lookup (an address literal or localhost), else null. */
function refusedHost(url: URL): string | null {
  const literal = literalAddress(url);
  if (literal) {
    const range = refusedRange(literal);
    return range ? `${literal} lies in a ${range} network` : null;
  }
  return isLocalName(url.hostname) ? `${url.hostname} is this machine` : null;
}

/** The DNS lookup used (node's getaddrinfo); tests pass their own. */
export type Lookup = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const resolveAll = (host: string, lookup: Lookup) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    lookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** The URL, when `raw` is an absolute http or https URL of at most 2048 characters; else 400 naming `field`. */
export function parseDestination(raw: string, field: string, accepted = 'an http or https URL'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${field} must be an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(`${field} must be ${accepted}, got ${url.protocol}`);
  if (raw.length > MAX_URL_LENGTH) throw invalid(`${field} must be at most ${MAX_URL_LENGTH} characters`);
  return url;
}

/**
 * Why the URL's host must not be connected to (a refused address, literally or in any DNS answer),
 * or null. A name that does not resolve now is not refused here: the connection checks again.
 */
export async function refusedDestination(url: URL, lookup: Lookup = dnsLookup): Promise<string | null> {
  const refused = refusedHost(url);
  if (refused || literalAddress(url)) return refused;
  const addresses = await resolveAll(url.hostname, lookup).catch(() => []);
  const bad = addresses.find((a) => refusedRange(a.address));
  return bad ? `${url.hostname} resolves to ${bad.address} in a ${refusedRange(bad.address)} network` : null;
}

/** 400 naming `field` unless the URL is an http(s) URL that may be connected to (any address when `allowPrivate`). */
export async function assertDestination(
  raw: string,
  allowPrivate: boolean,
  field: string,
  lookup: Lookup = dnsLookup,
): Promise<void> {
  const url = parseDestination(raw, field);
  if (allowPrivate) return;
  const refused = await refusedDestination(url, lookup);
  if (refused) throw invalid(`${field} is refused: ${refused} (${REFUSED_RULE})`);
}

/**
 * Throws RefusedDestination when a connection to this URL's host must
 * not even be tried (checked again on connect by `guardedLookup`).
 */
export function assertDeliverable(url: URL, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const refused = refusedHost(url);
  if (refused) throw new RefusedDestination(refused);
}

/** A DNS lookup for http.request that fails with RefusedDestination when the name resolves to a refused address. */
export function guardedLookup(allowPrivate: boolean, lookup: Lookup = dnsLookup): LookupFunction | undefined {
  if (allowPrivate) return undefined;
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const bad = addresses.find((a) => refusedRange(a.address));
      if (bad)
        return callback(
          new RefusedDestination(`${hostname} resolves to ${bad.address} in a ${refusedRange(bad.address)} network`),
          '',
          0,
        );
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
