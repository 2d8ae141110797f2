/** IPv4 arithmetic for the address pools: integers, CIDR ranges, containment and overlap. */
export interface Range {
  /** Network address as an unsigned 32-bit integer. */
  base: number;
  prefix: number;
}

export function ipToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  return ((p[0]! << 24) >>> 0) + (p[1]! << 16) + (p[2]! << 8) + p[3]!;
}

export function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export const rangeSize = (r: Range): number => 2 ** (32 - r.prefix);

export function parseCidr(cidr: string): Range {
  const [ip, len] = cidr.split('/');
  const prefix = Number(len);
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return { base: (ipToInt(ip!) & mask) >>> 0, prefix };
}

export const formatCidr = (r: Range): string => `${intToIp(r.base)}/${r.prefix}`;

export function contains(r: Range, ip: string): boolean {
  const n = ipToInt(ip);
  return n >= r.base && n < r.base + rangeSize(r);
}

export function rangeContains(outer: Range, inner: Range): boolean {
  return inner.base >= outer.base && inner.base + rangeSize(inner) <= outer.base + rangeSize(outer);
}

export function overlaps(a: Range, b: Range): boolean {
  return a.base < b.base + rangeSize(b) && b.base < a.base + rangeSize(a);
}

/** The CIDR as written has host bits set (e.g. 10.0.0.1/24). */
export function hasHostBits(cidr: string): boolean {
  return formatCidr(parseCidr(cidr)) !== cidr;
}

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
