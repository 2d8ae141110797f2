/** Allocation from the address pools: the first free host of a range, the first free sub-range, local addresses. */
import { bigIntToIpv6, contains, intToIp, overlaps, parseCidr, parseCidr6, rangeSize, rangeSize6, type Range } from '../../lib/ip.ts';

/**
 * First free host address of `cidr` (skipping the network address, the first host when
 * `reserveGateway`, and the broadcast address for ranges larger than /31), or null. With `from` (an offset
 * into the range), the search starts there and wraps around: next-fit, for pools that rotate.
 */
export function firstFree(cidr: string, isUsed: (ip: string) => boolean, reserveGateway = false, from = 0): string | null {
  const r = parseCidr(cidr);
  const size = rangeSize(r);
  const start = r.prefix >= 31 ? 0 : reserveGateway ? 2 : 1;
  const end = r.prefix >= 31 ? size : size - 1;
  const count = end - start;
  const first = Math.min(Math.max(from - start, 0), count);
  for (let k = 0; k < count; k++) {
    const ip = intToIp(r.base + start + ((first + k) % count));
    if (!isUsed(ip)) return ip;
  }
  return null;
}

/**
 * First sub-range of `size` prefix inside `pool` that overlaps none of `taken`, or null. With `from` (an
 * address of the pool), the search starts at the sub-range holding it and wraps around.
 */
export function firstFreeRange(pool: string, prefix: number, taken: readonly Range[], from?: number): Range | null {
  const p = parseCidr(pool);
  const step = 2 ** (32 - prefix);
  const count = Math.floor(rangeSize(p) / step);
  const first = from !== undefined && from >= p.base && from < p.base + count * step ? Math.floor((from - p.base) / step) : 0;
  for (let k = 0; k < count; k++) {
    const candidate = { base: p.base + ((first + k) % count) * step, prefix };
    if (!taken.some((t) => overlaps(t, candidate))) return candidate;
  }
  return null;
}

/** Ranges the data plane may send traffic to: loopback and the private ranges of this host's networks. */
const LOCAL_RANGES = ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'].map(parseCidr);

export function isLocalAddress(ip: string): boolean {
  return LOCAL_RANGES.some((r) => contains(r, ip));
}

/**
 * IPv6 allocations of `cidr` come in steps of `/stepPrefix`, each the first host (`::1`) of its step's range: a
 * step of /64 hands out one /64 per holder (its `::1`), a step of /128 consecutive addresses from `::1`.
 * `nthV6` is the `index`-th (from 0; null past the range's end), `firstFreeV6` the first one not used.
 */
export function nthV6(cidr: string, stepPrefix: number, index: number): string | null {
  const r = parseCidr6(cidr);
  const ip = r.base + BigInt(index) * (1n << BigInt(128 - stepPrefix)) + 1n;
  return ip < r.base + rangeSize6(r) ? bigIntToIpv6(ip) : null;
}

export function firstFreeV6(cidr: string, stepPrefix: number, isUsed: (ip: string) => boolean): string | null {
  for (let i = 0; ; i++) {
    const ip = nthV6(cidr, stepPrefix, i);
    if (ip === null || !isUsed(ip)) return ip;
  }
}
