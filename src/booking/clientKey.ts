/**
 * The client a per-client limit counts (MAX_HOLDS_PER_IP, BOOKING_RATE_LIMIT_PER_MINUTE): an IPv4
 * address as it is (an IPv4-mapped IPv6 address as its IPv4 address), an IPv6 address as its network
 * of IPV6_PREFIX_LENGTH bits (default 64), written `2001:db8:1:2::/64`: one host usually has a whole
 * /64 and could otherwise take a new address for every request. Anything that is not an address
 * (never the case behind Fastify) is its own key.
 */
import ipaddr from 'ipaddr.js';

export function clientKey(ip: string, ipv6PrefixLength: number): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  if (ipv6PrefixLength >= 128) return new ipaddr.IPv6(v6.parts).toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${new ipaddr.IPv6(v6.parts).toString()}/${ipv6PrefixLength}`);
  return `${network.toString()}/${ipv6PrefixLength}`;
}
