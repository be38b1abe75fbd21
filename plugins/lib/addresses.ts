// Address classification shared by every outbound connection forgekit makes (migration sources, webhook targets).
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * True only for a globally routable unicast address, as ipaddr.js classifies it (its ranges follow the IANA special
 * registries: loopback, private, link-local, carrier-grade NAT, documentation, 6to4, NAT64, IPv4-translated…).
 * IPv4-mapped IPv6 addresses are judged by their IPv4 part; every other non-`unicast` range is refused.
 */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('::'), 96];

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || net.isIP(address) === 0) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  // ipaddr.js calls the deprecated IPv4-compatible block (::/96, e.g. ::7f00:1) unicast: it never is global.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return false;
  return parsed.range() === 'unicast';
}
