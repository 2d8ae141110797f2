/** Allocation from the address pools: the first free host of a range, the first free sub-range, local addresses. */
import { contains, intToIp, overlaps, parseCidr, rangeSize, type Range } from '../../lib/ipv4.ts';

/**
 * First free host address of `cidr` (skipping the network address, the first host when
 * `reserveGateway`, and the broadcast address for ranges larger than /31), or null.
 */
export function firstFree(cidr: string, isUsed: (ip: string) => boolean, reserveGateway = false): string | null {
  const r = parseCidr(cidr);
  const size = rangeSize(r);
  const start = r.prefix >= 31 ? 0 : reserveGateway ? 2 : 1;
  const end = r.prefix >= 31 ? size : size - 1;
  for (let i = start; i < end; i++) {
    const ip = intToIp(r.base + i);
    if (!isUsed(ip)) return ip;
  }
  return null;
}

/** First sub-range of `size` prefix inside `pool` that overlaps none of `taken`, or null. */
export function firstFreeRange(pool: string, prefix: number, taken: readonly Range[]): Range | null {
  const p = parseCidr(pool);
  const step = 2 ** (32 - prefix);
  for (let base = p.base; base + step <= p.base + rangeSize(p); base += step) {
    const candidate = { base, prefix };
    if (!taken.some((t) => overlaps(t, candidate))) return candidate;
  }
  return null;
}

/** Ranges the data plane may send traffic to: loopback and the private ranges of this host's networks. */
const LOCAL_RANGES = ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'].map(parseCidr);

export function isLocalAddress(ip: string): boolean {
  return LOCAL_RANGES.some((r) => contains(r, ip));
}
