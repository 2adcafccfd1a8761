import { describe, expect, it } from 'vitest';
import { ListingCache } from '../../src/listing/listingCache.js';

const entry = (json: string | null, computedAtMs = 1_000, validUntilMs = 2_000) => ({
  json: json === null ? null : Buffer.from(json),
  computedAtMs,
  validUntilMs,
});

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

  it('offers a read its versions while the answer holds, and its data while that can be brought up to date', () => {
    const cache = new ListingCache();
    const data = { views: new Map(), prd: null, timeslots: [], appointments: [], busy: [] };
    const base = {
      dataKey: 'd',
      data,
      total: '7',
      snapshot: '10:12:10,11',
      windowEndsMs: 5_000,
      reusableUntilMs: 3_000,
    };
    cache.set('k', 'v', { ...entry('{}', 1_000, 2_000), base });
    expect(cache.knownOf('k', 'd', 1_500)).toEqual({ versions: 'v', base });
    // the answer expired (a slot started), the data did not: only the changes since its snapshot are read
    expect(cache.knownOf('k', 'd', 2_500)).toEqual({ versions: null, base });
    // a hold in the data expired: it must be read again
    expect(cache.knownOf('k', 'd', 3_000)).toEqual({ versions: null, base: undefined });
    expect(cache.knownOf('other', undefined, 1_500)).toEqual({ versions: null, base: undefined });
    expect(cache.knownOf('k', 'd', 999)).toEqual({ versions: null, base: undefined }); // the clock went back
  });

  it('offers the data of one request shape to another shape of the same data, the latest kept', () => {
    const cache = new ListingCache();
    const data = { views: new Map(), prd: null, timeslots: [], appointments: [], busy: [] };
    const base = (snapshot: string) => ({
      dataKey: 'd',
      data,
      total: '7',
      snapshot,
      windowEndsMs: 5_000,
      reusableUntilMs: 3_000,
    });
    cache.set('en', 'v', { ...entry('{}'), base: base('10:12:') });
    // a shape never asked for: no versions of its own, the data of the other shape
    expect(cache.knownOf('de', 'd', 1_500)).toEqual({ versions: null, base: base('10:12:') });
    expect(cache.knownOf('de', 'other data', 1_500).base).toBeUndefined();
    cache.set('de', 'v', { ...entry('{}'), base: base('10:14:') });
    expect(cache.latestBase('d', 1_500)?.snapshot).toBe('10:14:');
    // the entry holding the latest data gone (evicted, or replaced by one without data): none is offered
    cache.set('de', 'v', entry('{}'));
    expect(cache.knownOf('en', 'd', 1_500)).toEqual({ versions: 'v', base: undefined });
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

  describe('answer', () => {
    /** A computation that finishes when told to, counting how often it started. */
    function gated(value = entry('{"n":1}')) {
      let release!: () => void;
      let fail!: (err: Error) => void;
      const done = new Promise<typeof value>((resolve, reject) => {
        release = () => resolve(value);
        fail = reject;
      });
      const compute = {
        starts: 0,
        release: () => release(),
        fail: (err: Error) => fail(err),
        run: () => {
          compute.starts++;
          return done;
        },
      };
      return compute;
    }

    it('lets requests for the same versions wait for the computation in flight, not start their own', async () => {
      const cache = new ListingCache();
      const c = gated();
      const first = cache.answer('k', 'v1', 1_500, c.run);
      const second = cache.answer('k', 'v1', 1_600, c.run);
      c.release();
      const [a, b] = await Promise.all([first, second]);
      expect(c.starts).toBe(1);
      expect(b.json).toBe(a.json);
      expect((await cache.answer('k', 'v1', 1_700, c.run)).json).toBe(a.json); // now from the cache
      expect(c.starts).toBe(1);
    });

    it('computes afresh for other versions: a change committed since makes the running computation stale', async () => {
      const cache = new ListingCache();
      const old = gated(entry('{"old":1}'));
      const fresh = gated(entry('{"new":1}'));
      const first = cache.answer('k', 'v1', 1_500, old.run);
      const second = cache.answer('k', 'v2', 1_500, fresh.run);
      fresh.release();
      expect((await second).json?.toString()).toBe('{"new":1}');
      old.release();
      await first;
      expect(old.starts + fresh.starts).toBe(2);
    });

    it('does not hand a joined result to a request it is no longer true for', async () => {
      const cache = new ListingCache();
      const c = gated(entry('{"n":1}', 1_000, 2_000));
      const later = gated(entry('{"n":2}', 2_500, 3_000));
      const first = cache.answer('k', 'v', 1_000, c.run);
      const second = cache.answer('k', 'v', 2_500, later.run);
      c.release();
      await first;
      later.release();
      expect((await second).json?.toString()).toBe('{"n":2}');
    });

    it('passes a failed computation to those waiting for it and caches nothing', async () => {
      const cache = new ListingCache();
      const c = gated();
      const first = cache.answer('k', 'v', 1_500, c.run);
      const second = cache.answer('k', 'v', 1_500, c.run);
      c.fail(new Error('database gone'));
      await expect(first).rejects.toThrow('database gone');
      await expect(second).rejects.toThrow('database gone');
      const retry = gated(entry('{"ok":1}'));
      const third = cache.answer('k', 'v', 1_500, retry.run);
      retry.release();
      expect((await third).json?.toString()).toBe('{"ok":1}');
    });
  });
});
