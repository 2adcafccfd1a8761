/**
 * What the A1 listing keeps for one database: its cache, the reads in flight, and what it learnt of
 * the request shapes asked for. Built once per app (buildApp) and carried in Deps.
 */
import { FreshReads } from './freshReads.js';
import { ListingCache } from './listingCache.js';

/** A request shape's last answer: which data it used, and whether that read found changes and answered several requests. */
export interface ShapeState {
  key: string;
  dataKey: string;
  changing: boolean;
  shared: boolean;
  /** the versions its last read found, and the Unchanged mark taken before that read was sent */
  confirmed?: { versions: string; mark: number };
}

/**
 * Tells when nothing can have changed in the database since a mark was taken: this instance writes
 * alone (InstanceLease) and sent nothing that may write since (WriteWatch). A cached answer whose
 * versions were read after the mark is then served without reading them again.
 */
export interface Unchanged {
  mark(): number;
  since(mark: number): boolean;
}

export interface ListingState {
  cache: ListingCache;
  /** identical requests arriving together share one read */
  reads: FreshReads<Buffer | null>;
  /** per request shape (references, channel, product, formats, locale) */
  shapes: Map<string, ShapeState>;
  /** per references, channel and product: the data key they resolved to last (what a shape asked for the first time may start from) */
  dataKeys: Map<string, string>;
  /** absent: every answer from the cache is checked by a read of its versions */
  unchanged?: Unchanged;
}

/** budgetBytes: what the cache of computed answers may hold (LISTING_CACHE_MIB) */
export function createListingState(budgetBytes?: number, unchanged?: Unchanged): ListingState {
  return { cache: new ListingCache(budgetBytes), reads: new FreshReads(), shapes: new Map(), dataKeys: new Map(), unchanged };
}
