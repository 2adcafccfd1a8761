/**
 * A1's answers, serialized, per request shape and resource versions (listing_version(): how many
 * changes that can alter the resource's listing were committed, migration 006). An entry is served only while every
 * resource it covers still has the version it was computed at, and only within the time it stays
 * true (until the first listed slot starts, the next live hold expires, or MAX_AGE_MS passes), so
 * it never shows what the database would not. One cache per database handle (per service instance).
 *
 * Concurrent misses for the same request shape and versions share one computation: a request
 * whose version read (made after it arrived) equals the versions of a computation in flight knows
 * nothing the listing depends on was committed since that computation read its data, so its
 * result is as fresh as a computation of its own would be.
 */
import type { Db } from '../storage/db.js';
import { listingMetrics } from './metrics.js';

export interface CachedListing {
  /** JSON of the answer; null: nothing bookable */
  json: Buffer | null;
  computedAtMs: number;
  validUntilMs: number;
}

interface Entry extends CachedListing {
  versions: string;
}

/** Slots entering the 90-day horizon appear at most this late; bounds every entry's life. */
export const MAX_AGE_MS = 60_000;
const BUDGET_BYTES = 16 * 1024 * 1024;
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;

const validAt = (e: CachedListing, nowMs: number) => nowMs >= e.computedAtMs && nowMs < e.validUntilMs;

export class ListingCache {
  private readonly entries = new Map<string, Entry>();
  private readonly computing = new Map<string, Promise<CachedListing>>();
  private bytes = 0;
  constructor(private readonly budgetBytes = BUDGET_BYTES) {}

  get(key: string, versions: string, nowMs: number): CachedListing | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.versions !== versions || !validAt(e, nowMs)) {
      this.remove(key, e);
      return undefined;
    }
    // most recently used last: Map keeps insertion order
    this.entries.delete(key);
    this.entries.set(key, e);
    return e;
  }

  /** The versions the entry for `key` was computed at, while it is valid in time; null otherwise. */
  versionsOf(key: string, nowMs: number): string | null {
    const e = this.entries.get(key);
    return e && validAt(e, nowMs) ? e.versions : null;
  }

  set(key: string, versions: string, value: CachedListing): void {
    const size = (value.json?.length ?? 0) + key.length;
    if (size > Math.min(MAX_ENTRY_BYTES, this.budgetBytes)) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { ...value, versions });
    this.bytes += size;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(k, e);
    }
  }

  /** The cached answer, else the one being computed for the same versions, else `compute`'s (then cached). */
  async answer(key: string, versions: string, nowMs: number, compute: () => Promise<CachedListing>): Promise<CachedListing> {
    const hit = this.get(key, versions, nowMs);
    if (hit) {
      listingMetrics.answers.inc({ source: 'cache' });
      return hit;
    }
    const flight = `${versions}|${key}`;
    const running = this.computing.get(flight);
    if (running) {
      const shared = await running;
      if (validAt(shared, nowMs)) {
        listingMetrics.answers.inc({ source: 'shared' });
        return shared;
      }
    }
    const started = compute();
    this.computing.set(flight, started);
    try {
      const computed = await started;
      listingMetrics.answers.inc({ source: 'computed' });
      this.set(key, versions, computed);
      return computed;
    } finally {
      if (this.computing.get(flight) === started) this.computing.delete(flight);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= (e.json?.length ?? 0) + key.length;
  }
}

const caches = new WeakMap<Db, ListingCache>();

export function listingCacheFor(db: Db): ListingCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new ListingCache()));
  return cache;
}
