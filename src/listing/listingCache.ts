/**
 * A1's answers, serialized, per request shape and resource versions (listing_version.sql: how many
 * changes that can alter the resource's listing were committed). An entry is served only while every
 * resource it covers still has the version it was computed at, and only within the time it stays
 * true (until the first listed slot starts, the next live hold expires, or MAX_AGE_MS passes), so
 * it never shows what the database would not. One cache per database handle (per service instance).
 *
 * An answer also keeps the data it was computed from (ListingBase), which serves every request
 * shape of the same data (resources, channel and product, whatever the formats and locale): a shape
 * asked for the first time reads only what changed since and computes from that data.
 *
 * Concurrent misses for the same request shape and versions share one computation: a request
 * whose version read (made after it arrived) equals the versions of a computation in flight knows
 * nothing the listing depends on was committed since that computation read its data, so its
 * result is as fresh as a computation of its own would be.
 */
import type { ListingData } from './bookablesLoader.js';
import type { SerializedDays } from './listingCompute.js';
import { listingMetrics } from '../booking/metrics.js';

/**
 * The data an answer was computed from, with what the read that gave it saw (its versions' total
 * and its snapshot): the next read after a change reads only the changed appointments and brings
 * this data up to date (booking/bookablesLoader.ts).
 */
export interface ListingBase {
  /** what the data is of (resource ids, channel and product): the same for every request shape of it */
  dataKey: string;
  data: ListingData;
  total: string;
  snapshot: string;
  /**
   * its timeslots and appointments reach far enough for a listing
   * computed before this (the window moves with the clock)
   */
  windowEndsMs: number;
  /**
   * the data stays true at any time before this (windowEndsMs, or a hold
   * in it expires), but for the changes committed since its snapshot
   */
  reusableUntilMs: number;
}

export interface CachedListing {
  /** JSON of the answer; null: nothing bookable */
  json: Buffer | null;
  computedAtMs: number;
  validUntilMs: number;
  base?: ListingBase;
  /**
   * the answer's days, so a computation of the same shape from its
   * data brought up to date serializes only the days that changed
   */
  days?: SerializedDays;
}

interface Entry extends CachedListing {
  versions: string;
}

/** Slots entering the 90-day horizon appear at most this late; bounds every entry's life. */
export const MAX_AGE_MS = 60_000;
/** the default budget (LISTING_CACHE_MIB); a listing of 28 busy days is 0.5-0.7 MiB with its kept days and data */
const BUDGET_BYTES = 16 * 1024 * 1024;
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;

const validAt = (e: CachedListing, nowMs: number) => nowMs >= e.computedAtMs && nowMs < e.validUntilMs;

export class ListingCache {
  private readonly entries = new Map<string, Entry>();
  private readonly computing = new Map<string, Promise<CachedListing>>();
  /** per data key, the entry whose base is the latest of that data */
  private readonly dataOwners = new Map<string, string>();
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

  /**
   * What a read of the shape cached as `key` can be spared: the versions of its answer, while that
   * is valid in time; the latest data kept for `dataKey`, while that can be brought up to date
   * (its snapshot and total name what the read need not read again). The data is an immutable
   * value: it stays the base of that read even if a newer one replaces it meanwhile.
   */
  knownOf(
    key: string | undefined,
    dataKey: string | undefined,
    nowMs: number,
  ): { versions: string | null; base: ListingBase | undefined } {
    const e = key === undefined ? undefined : this.entries.get(key);
    return {
      versions: e && validAt(e, nowMs) ? e.versions : null,
      base: dataKey === undefined ? undefined : this.latestBase(dataKey, nowMs),
    };
  }

  /** The days of the answer cached as `key`, whatever its versions. */
  daysOf(key: string): SerializedDays | undefined {
    return this.entries.get(key)?.days;
  }

  /** The latest data kept for `dataKey`, while it can still be brought up to date at `nowMs`. */
  latestBase(dataKey: string, nowMs: number): ListingBase | undefined {
    const owner = this.dataOwners.get(dataKey);
    const e = owner === undefined ? undefined : this.entries.get(owner);
    const base = e?.base;
    return base && base.dataKey === dataKey && nowMs >= e.computedAtMs && nowMs < base.reusableUntilMs
      ? base
      : undefined;
  }

  set(key: string, versions: string, value: CachedListing): void {
    const size = sizeOf(key, value);
    if (size > Math.min(MAX_ENTRY_BYTES, this.budgetBytes)) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { ...value, versions });
    if (value.base) this.dataOwners.set(value.base.dataKey, key);
    this.bytes += size;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(k, e);
    }
  }

  /** The cached answer, else the one being computed for the same versions, else `compute`'s (then cached). */
  async answer(
    key: string,
    versions: string,
    nowMs: number,
    compute: () => Promise<CachedListing>,
  ): Promise<CachedListing> {
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
    if (e.base && this.dataOwners.get(e.base.dataKey) === key) this.dataOwners.delete(e.base.dataKey);
    this.bytes -= sizeOf(key, e);
  }
}

/**
 * An entry's bytes: its JSON and key, a rough measure of its data's
 * objects, and of its days' slots (their bytes are the JSON's).
 */
function sizeOf(key: string, e: CachedListing): number {
  let size = (e.json?.length ?? 0) + key.length;
  if (e.base)
    size += 200 * (e.base.data.appointments.length + e.base.data.timeslots.length) + 2000 * e.base.data.views.size;
  if (e.days) for (const day of e.days.parts.values()) size += 100 * day.slots.length;
  return size;
}
