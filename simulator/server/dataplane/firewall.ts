// Source-address filter of a load balancer VIP: a pure CIDR matcher built once per apply() and
// consulted on every accepted connection. IPv4-mapped IPv6 peers (::ffff:a.b.c.d) match IPv4 ranges.
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface SourceFilter {
  /** true when the address may connect. */
  allows(address: string | undefined): boolean;
}

export interface CompiledFilter {
  filter: SourceFilter;
  /** Entries that are not valid CIDRs (or bare addresses); they match nothing. */
  invalid: string[];
}

const allowAll: SourceFilter = { allows: () => true };

/** Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address (a /32 or /128). */
export function parseRange(entry: string): Range | null {
  const text = entry.trim();
  try {
    if (text.includes('/')) return normalizeRange(ipaddr.parseCIDR(text));
    const addr = ipaddr.process(text);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

function normalizeRange([addr, bits]: Range): Range {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [addr, bits];
}

function parseAddress(address: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (address === undefined) return null;
  try {
    return ipaddr.process(address);
  } catch {
    return null;
  }
}

/** null = allow everything; [] = allow nothing. */
export function compileSourceFilter(cidrs: readonly string[] | null): CompiledFilter {
  if (cidrs === null) return { filter: allowAll, invalid: [] };
  const ranges: Range[] = [];
  const invalid: string[] = [];
  for (const entry of cidrs) {
    const range = parseRange(entry);
    if (range === null) invalid.push(entry);
    else ranges.push(range);
  }
  const allows = (address: string | undefined): boolean => {
    const addr = parseAddress(address);
    if (addr === null) return false;
    return ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
  };
  return { filter: { allows }, invalid };
}
