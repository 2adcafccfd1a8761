import { describe, expect, it } from 'vitest';
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
    for (const header of [undefined, '', 'identity', 'deflate', 'br;q=0, gzip;q=0']) expect(acceptedEncoding(header)).toBeNull();
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
