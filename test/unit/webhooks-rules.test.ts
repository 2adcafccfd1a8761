import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { assertDestination, guardedLookup, refusedRange, type Lookup } from '../../src/net/destination.js';
import { MAX_ATTEMPTS, retryDelayMs } from '../../src/webhooks/schedule.js';
import { newSecret, signedHeaders } from '../../src/webhooks/signing.js';

/** A DNS stand-in: internal.example resolves into a private network, public.example outside. */
const fakeDns: Lookup = (host, _options, callback) => {
  const table: Record<string, LookupAddress[]> = {
    'internal.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'public.example': [{ address: '93.184.215.14', family: 4 }],
  };
  const found = table[host];
  if (found) callback(null, found);
  else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
};

describe('webhook destinations', () => {
  it('names the refused range of loopback, private, link-local and multicast addresses, v4 and v6', () => {
    expect(refusedRange('127.0.0.1')).toBe('loopback');
    expect(refusedRange('10.9.8.7')).toBe('private');
    expect(refusedRange('169.254.1.1')).toBe('linkLocal');
    expect(refusedRange('239.1.1.1')).toBe('multicast');
    expect(refusedRange('::1')).toBe('loopback');
    expect(refusedRange('fe80::1')).toBe('linkLocal');
    expect(refusedRange('ff02::1')).toBe('multicast');
    expect(refusedRange('::ffff:192.168.1.1')).toBe('private');
    expect(refusedRange('93.184.215.14')).toBeNull();
    expect(refusedRange('2606:4700::1111')).toBeNull();
  });

  it('refuses a name resolving into a private network at registration, accepts a public or unknown one', async () => {
    await expect(assertDestination('https://internal.example/hook', false, 'body.url', fakeDns)).rejects.toThrow(
      /body\.url is refused: internal\.example resolves to 10\.0\.0\.5/,
    );
    await expect(assertDestination('https://public.example/hook', false, 'body.url', fakeDns)).resolves.toBeUndefined();
    await expect(
      assertDestination('https://nowhere.example/hook', false, 'body.url', fakeDns),
    ).resolves.toBeUndefined();
    await expect(
      assertDestination('https://internal.example/hook', true, 'body.url', fakeDns),
    ).resolves.toBeUndefined();
  });

  it('fails the connection lookup at delivery when the name resolves into a private network', async () => {
    const lookup = guardedLookup(false, fakeDns)!;
    const resolve = (host: string) =>
      new Promise<unknown>((ok, fail) =>
        lookup(host, { all: true }, (err, addresses) => (err ? fail(err) : ok(addresses))),
      );
    await expect(resolve('internal.example')).rejects.toThrow(
      /destination refused: internal\.example resolves to 10\.0\.0\.5/,
    );
    await expect(resolve('public.example')).resolves.toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(guardedLookup(true, fakeDns)).toBeUndefined();
  });
});

describe('webhook retry schedule', () => {
  it('doubles from the base, waits at most an hour, retries 24 h or more with the default base, any jitter', () => {
    const base = 5000;
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, base, () => 0))).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(retryDelayMs(30, base, () => 0)).toBe(3_600_000);
    expect(retryDelayMs(1, base, () => 0.999)).toBeGreaterThanOrEqual(4000);
    let shortest = 0;
    for (let n = 1; n < MAX_ATTEMPTS; n++) shortest += retryDelayMs(n, base, () => 1);
    expect(shortest).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(MAX_ATTEMPTS).toBeGreaterThanOrEqual(8);
  });

  it('shrinks the whole schedule in proportion to a small base', () => {
    expect(retryDelayMs(1, 5, () => 0)).toBe(5);
    expect(retryDelayMs(30, 5, () => 0)).toBe(3600);
  });
});

describe('webhook signatures', () => {
  it('signs with every given secret, each verifiable by the reference implementation alone', () => {
    const [a, b] = [newSecret(), newSecret()];
    expect(a).toMatch(/^whsec_/);
    const at = new Date('2026-06-01T10:00:00Z');
    const body = '{"type":"webhook.test"}';
    const headers = signedHeaders([a, b], 'evt-1', at, body);
    expect(headers['webhook-timestamp']).toBe(String(at.getTime() / 1000));
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [a, b]) {
      const wh = new Webhook(secret);
      // the reference verifier checks the timestamp against the current time
      const fresh = signedHeaders([a, b], 'evt-1', new Date(), body);
      expect(wh.verify(body, fresh)).toEqual({ type: 'webhook.test' });
    }
    expect(() => new Webhook(newSecret()).verify(body, signedHeaders([a], 'evt-1', new Date(), body))).toThrow();
  });
});
