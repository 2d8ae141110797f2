/** CIDR helpers for the route controller (cluster CIDR parsing, responsibility check). */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type ParsedCIDR = [Address, number];

/** Parses a CIDR strictly; `undefined` when it does not parse. */
export function tryParseCIDR(cidr: string): ParsedCIDR | undefined {
  try {
    return ipaddr.parseCIDR(cidr);
  } catch {
    return undefined;
  }
}

/**
 * Parses `--cluster-cidr` as upstream: comma-separated, 1 or 2 entries, two entries must be a
 * dual-stack pair. An empty value is an error (fatal for the CCM when routes are enabled).
 */
export function parseClusterCIDRs(value: string | readonly string[]): ParsedCIDR[] {
  const parts = (typeof value === 'string' ? value.split(',') : [...value]).map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) throw new Error('--cluster-cidr is required when configuring cloud routes');
  if (parts.length > 2) throw new Error(`--cluster-cidr "${parts.join(',')}" has more than 2 CIDRs`);
  const parsed = parts.map((p) => {
    const cidr = tryParseCIDR(p);
    if (!cidr) throw new Error(`--cluster-cidr: invalid CIDR "${p}"`);
    return cidr;
  });
  const [a, b] = parsed;
  if (a && b && a[0].kind() === b[0].kind()) throw new Error(`--cluster-cidr "${parts.join(',')}" must be a dual-stack pair`);
  return parsed;
}

function lastAddress(cidr: ParsedCIDR): Address {
  const text = `${cidr[0].toString()}/${cidr[1]}`;
  return cidr[0].kind() === 'ipv4' ? ipaddr.IPv4.broadcastAddressFromCIDR(text) : ipaddr.IPv6.broadcastAddressFromCIDR(text);
}

function firstAddress(cidr: ParsedCIDR): Address {
  const text = `${cidr[0].toString()}/${cidr[1]}`;
  return cidr[0].kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
}

function contains(range: ParsedCIDR, ip: Address): boolean {
  return range[0].kind() === ip.kind() && ip.match(range);
}

/** Upstream `isResponsibleForRoute`: the route CIDR parses and its first or last IP is in a cluster CIDR. */
export function isResponsibleForCIDR(destinationCIDR: string, clusterCIDRs: readonly ParsedCIDR[]): boolean {
  const cidr = tryParseCIDR(destinationCIDR);
  if (!cidr) return false;
  const first = firstAddress(cidr);
  const last = lastAddress(cidr);
  return clusterCIDRs.some((range) => contains(range, first) || contains(range, last));
}
