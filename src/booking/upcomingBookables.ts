/**
 * A1 upcoming_bookables: validates the query, resolves the resources (with their listing
 * versions), and answers from the listing cache, from a computation in flight, or computes the listing afresh.
 */
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { compilePattern, localeFromLanguageTag, PatternError, type CompiledPattern } from './datePattern.js';
import { listingCacheFor, MAX_AGE_MS } from './listingCache.js';
import { computeListing } from './listingCompute.js';
import { resolveListingVersions } from './publicResources.js';

export { BOOKING_HORIZON_DAYS } from './listingCompute.js';
export const DEFAULT_GROUP_FORMAT = 'yyyy-MM-dd';
export const DEFAULT_TIME_FORMAT = 'yyyy-MM-dd HH:mm';

export interface UpcomingQuery {
  refs: { ref: string; field: string }[];
  groupFormat?: string;
  timeFormat?: string;
  languageTag?: string;
  channelKey: ChannelKey;
  prdRef?: string;
}

/** A pattern from the query as a formatter; 400 naming the field when it is not a valid pattern. */
export function timePattern(pattern: string | undefined, field: string, fallback: string): CompiledPattern {
  try {
    return compilePattern(pattern ?? fallback);
  } catch (err) {
    if (err instanceof PatternError) throw invalid(`${field}: ${err.message}`);
    throw err;
  }
}

export function localeOf(languageTag: string | undefined): string {
  try {
    return localeFromLanguageTag(languageTag);
  } catch (err) {
    if (err instanceof PatternError) throw invalid(`query.languageTag: ${err.message}`);
    throw err;
  }
}

/** The listing as JSON (the A1 object of group texts plus public_visible), or null when nothing is bookable. */
export async function upcomingBookables(deps: Deps, q: UpcomingQuery): Promise<Buffer | null> {
  const groupFormat = q.groupFormat ?? DEFAULT_GROUP_FORMAT;
  const timeFormat = q.timeFormat ?? DEFAULT_TIME_FORMAT;
  const compiled = { group: timePattern(groupFormat, 'query.groupFormat', ''), time: timePattern(timeFormat, 'query.timeFormat', '') };
  const locale = localeOf(q.languageTag);

  const resources = await resolveListingVersions(deps.db, q.refs);
  const key = JSON.stringify([resources.map((r) => r.id), q.channelKey, q.prdRef ?? null, groupFormat, timeFormat, locale]);
  const versions = resources.map((r) => r.listing_version).join(',');
  const nowMs = deps.clock.now().getTime();
  const answer = await listingCacheFor(deps.db).answer(key, versions, nowMs, async () => {
    const listing = await computeListing(deps, {
      resourceIds: resources.map((r) => r.id),
      channelKey: q.channelKey,
      prdRef: q.prdRef,
      groupFormat: compiled.group,
      timeFormat: compiled.time,
      locale,
      nowMs,
    });
    const json = listing.json === null ? null : Buffer.from(listing.json);
    return { json, computedAtMs: nowMs, validUntilMs: Math.min(listing.changesAtMs, nowMs + MAX_AGE_MS) };
  });
  return answer.json;
}
