/**
 * Which calendar addresses the service reads (DESIGN §7.6): http and https URLs, and webcal://
 * (or webcals://), which is only a hint for desktop apps to subscribe; every publisher that hands
 * out webcal links (Google, Outlook, iCloud) serves the same calendar over https, and no one serves
 * it over plain http, so webcal becomes https. Addresses in loopback, private, link-local and
 * multicast networks are refused unless CALENDAR_ALLOW_PRIVATE_NETWORKS is true (the guard is
 * net/destination.ts, shared with webhooks; the reads check again at connect time).
 */
import { lookup as dnsLookup } from 'node:dns';
import { DomainError } from '../errors.js';
import { parseDestination, refusedDestination, REFUSED_RULE, type Lookup } from '../net/destination.js';

/** The http(s) address to read: webcal:// and webcals:// become https://, anything else is kept as it is. */
export function calendarUrl(raw: string): string {
  return raw.replace(/^webcals?:\/\//i, 'https://');
}

/** A calendar address that the guard refuses: 400 CALENDAR_URL_NOT_ALLOWED. */
export const calendarUrlNotAllowed = (message: string) => new DomainError('CALENDAR_URL_NOT_ALLOWED', message);

/**
 * The address to store and read, after checking it at registration: 400 VALIDATION naming `field`
 * when it is no http(s)/webcal URL of at most 2048 characters, 400 CALENDAR_URL_NOT_ALLOWED when its
 * host is (or resolves to) a refused address and `allowPrivate` is false. A name that does not
 * resolve now passes here; the read fails on it.
 */
export async function assertCalendarUrl(
  raw: string,
  allowPrivate: boolean,
  field: string,
  lookup: Lookup = dnsLookup,
): Promise<string> {
  const url = parseDestination(calendarUrl(raw), field, 'an https, http or webcal URL');
  if (!allowPrivate) {
    const refused = await refusedDestination(url, lookup);
    if (refused) throw calendarUrlNotAllowed(`${field} is refused: ${refused} (${REFUSED_RULE})`);
  }
  return url.href;
}
