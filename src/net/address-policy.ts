import ipaddr from 'ipaddr.js';

// Which addresses the service may send to (spec 6.1, 7.5). Only public unicast addresses pass;
// loopback, private, link-local, CGNAT, unique-local, unspecified, multicast, reserved and
// cloud metadata addresses never do, nor IPv4 addresses wrapped in IPv6.

// Public addresses that are nonetheless a cloud's internal service.
const METADATA_ADDRESSES = new Set(['168.63.129.16']);

const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.intranet', '.lan', '.home', '.corp', '.home.arpa', '.localdomain'];

// IPv6 outside 2000::/3 (global unicast) is never public: that also refuses the deprecated
// IPv4-compatible form ::a.b.c.d, which ipaddr.js calls unicast.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (!v6.match(GLOBAL_UNICAST_V6)) return false;
  }
  if (METADATA_ADDRESSES.has(parsed.toString())) return false;
  return parsed.range() === 'unicast';
}

export function isLoopbackAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'loopback';
}

/** The URL's host without IPv6 brackets, lowercased. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host);
}

/** Names that only mean something inside a network: localhost, single labels, .internal and the like. */
export function isInternalHostname(host: string): boolean {
  if (isIpLiteral(host)) return false;
  if (host === 'localhost' || !host.includes('.')) return true;
  return INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
}

export type Resolver = (hostname: string) => Promise<string[]>;
