import { describe, expect, it } from 'vitest';
import { clientKey } from '../../src/booking/clientKey.js';
import { loadConfig } from '../../src/config.js';

describe('clientKey: the client a per-client limit counts', () => {
  it('keeps an IPv4 address as it is, also when it comes IPv4-mapped', () => {
    expect(clientKey('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7', 64)).toBe('203.0.113.7');
  });

  it('counts an IPv6 address as its network of the prefix length, however it is written', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1', 64)).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0DB8:0001:0002:FFFF:FFFF:FFFF:FFFF', 64)).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:3::1', 64)).toBe('2001:db8:1:3::/64');
    expect(clientKey('2001:db8:1:2:aaaa::1', 48)).toBe('2001:db8:1::/48');
    expect(clientKey('fe80::1%eth0', 64)).toBe('fe80::/64');
  });

  it('counts every IPv6 address alone with a prefix length of 128', () => {
    expect(clientKey('2001:0db8::0001', 128)).toBe('2001:db8::1');
  });

  it('reads IPV6_PREFIX_LENGTH (default 64) and stops on a bad value naming it', () => {
    const load = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'memory://', ...env });
    expect(load({}).ipv6PrefixLength).toBe(64);
    expect(load({ IPV6_PREFIX_LENGTH: '56' }).ipv6PrefixLength).toBe(56);
    for (const bad of ['0', '31', '129', '64.5', 'x'])
      expect(() => load({ IPV6_PREFIX_LENGTH: bad })).toThrow('IPV6_PREFIX_LENGTH');
  });
});
