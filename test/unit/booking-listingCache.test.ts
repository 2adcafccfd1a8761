import { describe, expect, it } from 'vitest';
import { ListingCache } from '../../src/booking/listingCache.js';

const entry = (json: string | null, computedAtMs = 1_000, validUntilMs = 2_000) => ({ json: json === null ? null : Buffer.from(json), computedAtMs, validUntilMs });

describe('ListingCache', () => {
  it('serves an entry only for the versions it was computed at', () => {
    const cache = new ListingCache();
    cache.set('k', '1,7', entry('{"a":1}'));
    expect(cache.get('k', '1,7', 1_500)?.json?.toString()).toBe('{"a":1}');
    expect(cache.get('k', '1,8', 1_500)).toBeUndefined();
    // a miss drops the stale entry
    expect(cache.get('k', '1,7', 1_500)).toBeUndefined();
  });

  it('serves an entry only between the time it was computed and the time it stops being true', () => {
    const cache = new ListingCache();
    cache.set('k', 'v', entry(null, 1_000, 2_000));
    expect(cache.get('k', 'v', 999)).toBeUndefined();
    cache.set('k', 'v', entry(null, 1_000, 2_000));
    expect(cache.get('k', 'v', 1_999)).toEqual({ json: null, computedAtMs: 1_000, validUntilMs: 2_000, versions: 'v' });
    expect(cache.get('k', 'v', 2_000)).toBeUndefined();
  });

  it('keeps within its byte budget by dropping the least recently used entries', () => {
    const cache = new ListingCache(250);
    cache.set('a', 'v', entry('x'.repeat(99)));
    cache.set('b', 'v', entry('x'.repeat(99)));
    expect(cache.get('a', 'v', 1_500)).toBeDefined(); // a is now the most recently used
    cache.set('c', 'v', entry('x'.repeat(99)));
    expect(cache.get('b', 'v', 1_500)).toBeUndefined();
    expect(cache.get('a', 'v', 1_500)).toBeDefined();
    expect(cache.get('c', 'v', 1_500)).toBeDefined();
    cache.set('huge', 'v', entry('x'.repeat(300)));
    expect(cache.get('huge', 'v', 1_500)).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
