/**
 * A1 upcoming_bookables: validates the query, reads the resources' listing versions (and the data
 * when they changed) in one statement, and answers from the listing cache, from a computation in
 * flight, or computes the listing afresh.
 *
 * Freshness, the one rule: every answer is checked by a read of the resources' listing versions
 * sent after its request arrived (listing_version(): the changes ever committed for a resource,
 * counted by triggers on every table the listing reads). A cached answer is served only while those
 * versions equal the ones it was computed at, so a change committed before a request is never
 * hidden, whatever instance or process made it (docs/decisions.md, "One freshness rule").
 */
import type { ChannelKey } from '../offerings/channels.js';
import { DomainError } from '../errors.js';
import { findPublicPool } from '../pools/publicPools.js';
import {
  readListing,
  readVersions,
  withChanges,
  type ListingData,
  type ListingRead,
  type ListingReadQuery,
} from './bookablesLoader.js';
import { listingMetrics } from '../booking/metrics.js';
import type { CompiledPattern } from '../booking/datePattern.js';
import { DEFAULT_GROUP_FORMAT, DEFAULT_TIME_FORMAT, localeOf, timePattern } from '../booking/timeFormats.js';
import { MAX_AGE_MS, type ListingBase } from './listingCache.js';
import type { ListingState } from './state.js';
import { computeListing, listingUntilMs } from './listingCompute.js';
import type { PoolFacts } from './poolListing.js';

export { BOOKING_HORIZON_DAYS } from './listingCompute.js';
export interface UpcomingQuery {
  refs: { ref: string; field: string }[];
  groupFormat?: string;
  timeFormat?: string;
  languageTag?: string;
  channelKey: ChannelKey;
  prdRef?: string;
  /** a pool's listing: refs are its members (listing/poolListing.ts); version: the pool's, in the cache key */
  pool?: PoolFacts & { version: string };
}

/** The listing as JSON (the A1 object of group texts plus public_visible), or null when nothing is bookable. */
export async function upcomingBookables(listing: ListingState, q: UpcomingQuery): Promise<Buffer | null> {
  const groupFormat = q.groupFormat ?? DEFAULT_GROUP_FORMAT;
  const timeFormat = q.timeFormat ?? DEFAULT_TIME_FORMAT;
  const patterns = {
    group: timePattern(groupFormat, 'query.groupFormat', ''),
    time: timePattern(timeFormat, 'query.timeFormat', ''),
  };
  const shape: Shape = {
    refs: q.refs,
    channelKey: q.channelKey,
    prdRef: q.prdRef,
    groupFormat,
    timeFormat,
    locale: localeOf(q.languageTag),
    pool: q.pool,
  };
  // Identical requests arriving together share one answer, read after each of them arrived (FreshReads):
  // while the listing changes with every booking of a rush, it
  // is read at most once per round trip, not once per viewer.
  const shapeKey = shapeKeyOf(shape);
  const last = listing.shapes.get(shapeKey);
  const delay = last?.changing && last.shared ? CHANGING_READ_DELAY_MS : 0;
  return listing.reads.read(
    shapeKey,
    (readDone, callers) => currentListing(listing, shapeKey, shape, patterns, readDone, callers > 1),
    delay,
  );
}

type Shape = Omit<UpcomingQuery, 'groupFormat' | 'timeFormat' | 'languageTag'> & {
  groupFormat: string;
  timeFormat: string;
  locale: string;
};

/**
 * A shape's key, built on every request: its parts joined by NUL, which no query text holds
 * (http/nulGuard.ts). A reference's field follows from its position, and prdRef, when given,
 * carries a prefix, so that no two shapes share a key.
 */
export function shapeKeyOf(shape: Shape): string {
  const prd = shape.prdRef === undefined ? '' : `=${shape.prdRef}`;
  let key = `${shape.channelKey}\u0000${prd}\u0000${shape.groupFormat}\u0000${shape.timeFormat}\u0000${shape.locale}`;
  if (shape.pool) key += `\u0000pool=${shape.pool.id}:${shape.pool.version}`;
  for (const r of shape.refs) key += `\u0000${r.ref}`;
  return key;
}

/**
 * While a listing keeps changing (its last read found new versions: a rush) and is asked for by
 * many (its last read answered more than one request), its next read starts this long after its
 * first request, so a burst of requests shares it (FreshReads): fewer reads, and
 * so more room for bookings. A listing served from the cache is not delayed, nor one
 * asked for by one client at a time: the first request after a change waits for nobody
 * (docs/decisions.md).
 */
const CHANGING_READ_DELAY_MS = 2;

/**
 * What the last read of a request shape found: its cache key (resolved resource ids and the rest of
 * the shape), its data key (resolved resource ids, channel and product: what every shape of the
 * same data shares), whether the listing had changed, and whether the read answered more than one request.
 */
const MAX_REMEMBERED_SHAPES = 10_000;

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  if (!map.has(key) && map.size >= MAX_REMEMBERED_SHAPES) map.clear();
  map.set(key, value);
}

/**
 * The data is read this far beyond the listing's window, so that it can be brought up to date with
 * the changes since for this long (ListingBase): the window moves with the clock.
 */
const DATA_REUSE_MS = MAX_AGE_MS;

/**
 * The listing at the resources' current versions: cached, being computed, or computed now; `shared`: this read answers
 * more than one request.
 */
async function currentListing(
  listing: ListingState,
  shapeKey: string,
  shape: Shape,
  patterns: { group: CompiledPattern; time: CompiledPattern },
  readDone: () => void,
  shared: boolean,
): Promise<Buffer | null> {
  const { cache, shapes, dataKeys } = listing;
  const nowMs = listing.clock.now().getTime();
  const refsKey = JSON.stringify([shape.refs, shape.channelKey, shape.prdRef ?? null]);
  const last = shapes.get(shapeKey);
  const lastDataKey = last?.dataKey ?? dataKeys.get(refsKey);
  const query = {
    refs: shape.refs,
    channelKey: shape.channelKey,
    prdRef: shape.prdRef,
    nowMs,
    untilMs: listingUntilMs(nowMs) + DATA_REUSE_MS,
  };
  // What the cache offers: while the resources still have the versions of this shape's answer, the
  // statement reads no data; while the data of any shape of the same resources can be brought up
  // to date, only the changes since.
  const offered = cache.knownOf(last?.key, lastDataKey, nowMs);
  if (last && !last.changing && offered.versions !== null) {
    // A listing that did not change at its last read is checked by its versions alone, a statement
    // that costs PostgreSQL a fraction of the full read's; a change it finds is read by the full
    // read after it (counted by what that found).
    const check = await readVersions(listing.db, shape.refs);
    const hit = check.versions === offered.versions ? cache.get(last.key, check.versions, nowMs) : undefined;
    if (hit) {
      readDone();
      listingMetrics.reads.inc({ read: 'versions' });
      listingMetrics.answers.inc({ source: 'cache' });
      if (last.shared !== shared) remember(shapes, shapeKey, { ...last, shared });
      return hit.json;
    }
  }
  const base = offered.base;
  const known =
    offered.versions === null && !base
      ? null
      : { versions: offered.versions, since: base ? { snapshot: base.snapshot, total: base.total } : null };
  const read = await countedRead(listing, { ...query, known });
  readDone(); // the next read of this shape may start: it will see what this one saw and what came since
  const dataKey = JSON.stringify([read.resourceIds, shape.channelKey, shape.prdRef ?? null]);
  const pool = shape.pool ? [shape.pool.id, shape.pool.version, shape.pool.name] : null;
  const key = JSON.stringify([dataKey, shape.groupFormat, shape.timeFormat, shape.locale, pool]);
  remember(shapes, shapeKey, { key, dataKey, changing: read.data !== null || read.changes !== null, shared });
  remember(dataKeys, refsKey, dataKey);
  // the data the changes were read against (another shape's computation may have kept newer data since)
  const since = dataKey === lastDataKey && read.changes ? base : undefined;
  const days = key === last?.key ? cache.daysOf(key) : undefined;
  const answer = await cache.answer(key, read.versions, nowMs, async () => {
    // No data means the versions equalled the cached entry's, or changes were read against the data
    // of other resources (a reference that names another one now): then it is read anew (a later
    // snapshot, never a staler one).
    const from = read.data || since ? read : await countedRead(listing, { ...query, known: null });
    const data = from.data ?? (read.changes!.ids.length === 0 ? since!.data : withChanges(since!.data, read.changes!));
    const computed = computeListing(
      data,
      {
        channelKey: shape.channelKey,
        prdRef: shape.prdRef,
        groupFormat: patterns.group,
        timeFormat: patterns.time,
        locale: shape.locale,
        nowMs,
        pool: shape.pool,
      },
      days,
    );
    // The days are kept for a request shape asked for again (last): kept for every one-off query,
    // they outlive the young generation and raise the peak RSS.
    // The data is kept with every answer: all shapes of the same resources share it.
    return {
      json: computed.json,
      computedAtMs: nowMs,
      validUntilMs: Math.min(computed.changesAtMs, nowMs + MAX_AGE_MS),
      base: baseOf(dataKey, data, from, since?.windowEndsMs ?? nowMs + DATA_REUSE_MS),
      days: key === last?.key ? computed.days : undefined,
    };
  });
  return answer.json;
}

async function countedRead(listing: ListingState, q: ListingReadQuery): Promise<ListingRead> {
  const read = await readListing(listing.db, q);
  listingMetrics.reads.inc({ read: read.data ? 'full' : read.changes ? 'changes' : 'versions' });
  return read;
}

/**
 * The base of a computed answer: its data can be brought up to date until its window runs out or a hold in it expires.
 */
function baseOf(dataKey: string, data: ListingData, read: ListingRead, windowEndsMs: number): ListingBase {
  let reusableUntilMs = windowEndsMs;
  for (const a of data.appointments)
    if (a.nextHoldExpiryMs !== null && a.nextHoldExpiryMs < reusableUntilMs) reusableUntilMs = a.nextHoldExpiryMs;
  return { dataKey, data, total: read.total, snapshot: read.snapshot, windowEndsMs, reusableUntilMs };
}

/**
 * A1 on a resource, or on a pool (DESIGN 7.11) when the path's reference names no resource: the
 * pool's listing is its members' listings merged (poolListing.ts), read, cached and freshened by
 * the one rule above, with the members as the listed resources. Archived members are left out.
 */
export async function upcomingBookablesOrPool(listing: ListingState, q: UpcomingQuery): Promise<Buffer | null> {
  const path = q.refs[0];
  // a reference that named a pool before is read as one first (a resource never takes a pool's reference)
  if (listing.poolRefs.has(path.ref)) {
    const pooled = await poolListing(listing, q);
    if (pooled !== undefined) return pooled;
    listing.poolRefs.delete(path.ref);
  }
  try {
    return await upcomingBookables(listing, q);
  } catch (err) {
    if (!(err instanceof DomainError) || err.message !== `no resource found for ${path.field} ${path.ref}`) throw err;
    const pooled = await poolListing(listing, q);
    if (pooled === undefined) throw err;
    if (listing.poolRefs.size >= 10_000) listing.poolRefs.clear();
    listing.poolRefs.add(path.ref);
    return pooled;
  }
}

/** The listing of the pool the path's reference names; undefined when it names no pool. */
async function poolListing(listing: ListingState, q: UpcomingQuery): Promise<Buffer | null | undefined> {
  const path = q.refs[0];
  const pool = await findPublicPool(listing.db, path.ref, path.field);
  if (!pool) return undefined;
  const members = pool.members.filter((m) => !m.archived);
  if (members.length === 0) return null;
  return upcomingBookables(listing, {
    ...q,
    refs: members.map((m) => ({ ref: m.id, field: path.field })),
    pool: { id: pool.id, name: pool.public_name, version: pool.version },
  });
}
