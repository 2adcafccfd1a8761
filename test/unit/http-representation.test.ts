import { describe, expect, it } from 'vitest';
import negotiate from '@fastify/accept-negotiator';
import { acceptedEncoding, notModified } from '../../src/http/representation.js';

describe('acceptedEncoding', () => {
  it('takes the client preference among br and gzip, honouring q-values', () => {
    expect(acceptedEncoding('gzip, deflate, br')).toBe('br');
    expect(acceptedEncoding('gzip')).toBe('gzip');
    expect(acceptedEncoding('br;q=0, gzip')).toBe('gzip');
    expect(acceptedEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(acceptedEncoding('GZIP')).toBe('gzip');
    expect(acceptedEncoding('*')).toBe('br');
  });

  it('falls back to no encoding when neither is acceptable', () => {
    for (const header of [undefined, '', 'identity', 'deflate', 'br;q=0, gzip;q=0'])
      expect(acceptedEncoding(header)).toBeNull();
  });

  it('answers a header it negotiated before the same way, also after more distinct headers than it remembers', () => {
    const headers = Array.from({ length: 600 }, (_, i) =>
      i % 2 ? `gzip;q=0.${(i % 9) + 1}, br;q=0.${(i % 7) + 1}, x-${i}` : `br;q=0, x-${i}, gzip`,
    );
    const unmemoized = headers.map((h) => negotiate(h, ['br', 'gzip']));
    expect(new Set(unmemoized)).toEqual(new Set(['br', 'gzip']));
    expect(headers.map((h) => acceptedEncoding(h))).toEqual(unmemoized);
    expect(headers.map((h) => acceptedEncoding(h))).toEqual(unmemoized);
  });
});

describe('notModified', () => {
  const etag = 'W/"abc"';
  it('matches weakly, in lists and with *', () => {
    for (const header of ['W/"abc"', '"abc"', '"x", W/"abc"', ' * ']) expect(notModified(header, etag)).toBe(true);
    expect(notModified('"abc"', '"abc"')).toBe(true);
  });
  it('does not match other tags or no header', () => {
    for (const header of [undefined, '', '"abcd"', 'W/"ab"', 'abc']) expect(notModified(header, etag)).toBe(false);
  });
});
