/**
 * What the A1 listing keeps for one service instance: where it reads, its cache, the reads in
 * flight, and what it learnt of the request shapes asked for. Built once per app (buildApp) and
 * handed to A1's route alone.
 */
import type { Clock } from '../context.js';
import type { Queryable } from '../storage/db.js';
import { FreshReads } from './freshReads.js';
import { ListingCache } from './listingCache.js';

/**
 * A request shape's last answer: which data it used, and whether that read found changes and answered several requests.
 */
export interface ShapeState {
  key: string;
  dataKey: string;
  changing: boolean;
  shared: boolean;
}

export interface ListingState {
  /** the instance's listing connections (LISTING_POOL_SIZE): A1 never queues behind bookings for one */
  db: Queryable;
  clock: Clock;
  cache: ListingCache;
  /** identical requests arriving together share one read */
  reads: FreshReads<Buffer | null>;
  /** per request shape (references, channel, product, formats, locale) */
  shapes: Map<string, ShapeState>;
  /**
   * per references, channel and product: the data key they resolved
   * to last (what a shape asked for the first time may start from)
   */
  dataKeys: Map<string, string>;
  /** references that named a pool at their last request: A1 resolves them as pools first (upcomingBookables.ts) */
  poolRefs: Set<string>;
}

/** budgetBytes: what the cache of computed answers may hold (LISTING_CACHE_MIB) */
export function createListingState(db: Queryable, clock: Clock, budgetBytes?: number): ListingState {
  return {
    db,
    clock,
    cache: new ListingCache(budgetBytes),
    reads: new FreshReads(),
    shapes: new Map(),
    dataKeys: new Map(),
    poolRefs: new Set(),
  };
}
