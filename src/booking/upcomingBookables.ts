/**
 * A1 upcoming_bookables: validates the query, resolves the resources (with their listing
 * versions), and answers from the listing cache, from a computation in flight, or computes the
 * listing afresh.
 */
import type { Deps } from '../context.js';
import { invalid } from '../errors.js';
import type { ChannelKey } from '../offerings/channels.js';
import { compilePattern, localeFromLanguageTag, PatternError, type CompiledPattern } from './datePattern.js';
import { listingCacheFor, MAX_AGE_MS } from './listingCache.js';
import { computeListing } from './listingCompute.js';
import { resolveListingVersions } from './publicResources.js';
import type { Db } from '../storage/db.js';
import { FreshReads } from '../storage/freshReads.js';

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
  const patterns = { group: timePattern(groupFormat, 'query.groupFormat', ''), time: timePattern(timeFormat, 'query.timeFormat', '') };
  const shape = { refs: q.refs, channelKey: q.channelKey, prdRef: q.prdRef, groupFormat, timeFormat, locale: localeOf(q.languageTag) };
  // Identical requests arriving together share one answer, read after each of them arrived (FreshReads):
  // while the listing changes with every booking of a rush, it is computed at most once per read, not once per viewer.
  let reads = listingReads.get(deps.db);
  if (!reads) listingReads.set(deps.db, (reads = new FreshReads()));
  return reads.read(JSON.stringify(shape), () => currentListing(deps, shape, patterns));
}

type Shape = Omit<UpcomingQuery, 'groupFormat' | 'timeFormat' | 'languageTag'> & { groupFormat: string; timeFormat: string; locale: string };

const listingReads = new WeakMap<Db, FreshReads<Buffer | null>>();

/** The listing at the resources' current versions: cached, being computed, or computed now. */
async function currentListing(deps: Deps, shape: Shape, patterns: { group: CompiledPattern; time: CompiledPattern }): Promise<Buffer | null> {
  const resources = await resolveListingVersions(deps.db, shape.refs);
  const ids = resources.map((r) => r.id);
  const key = JSON.stringify([ids, shape.channelKey, shape.prdRef ?? null, shape.groupFormat, shape.timeFormat, shape.locale]);
  const versions = resources.map((r) => r.listing_version).join(',');
  const nowMs = deps.clock.now().getTime();
  const answer = await listingCacheFor(deps.db).answer(key, versions, nowMs, async () => {
    const listing = await computeListing(deps, {
      resourceIds: ids,
      channelKey: shape.channelKey,
      prdRef: shape.prdRef,
      groupFormat: patterns.group,
      timeFormat: patterns.time,
      locale: shape.locale,
      nowMs,
    });
    const json = listing.json === null ? null : Buffer.from(listing.json);
    return { json, computedAtMs: nowMs, validUntilMs: Math.min(listing.changesAtMs, nowMs + MAX_AGE_MS) };
  });
  return answer.json;
}
