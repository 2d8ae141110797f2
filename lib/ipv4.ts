/**
 * IPv4 arithmetic, the one module for it: addresses as unsigned 32-bit integers, CIDR ranges, containment,
 * overlap and the n-th address of a block. Every parser validates the same way and throws on a malformed
 * address or prefix (inputs from the outside are checked by their schemas first; a throw here is a bug).
 */

/** A CIDR range: its network address as an unsigned 32-bit integer and its prefix length. */
export interface Range {
  readonly base: number;
  readonly prefix: number;
}

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIPv4(ip: string): boolean {
  const parts = ip.split('.');
  return parts.length === 4 && parts.every((p) => OCTET.test(p));
}

export function ipToInt(ip: string): number {
  if (!isIPv4(ip)) throw new Error(`not an IPv4 address: ${ip}`);
  return ip.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
}

export function intToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

export const rangeSize = (r: Range): number => 2 ** (32 - r.prefix);

/** `a.b.c.d/n` as a range (host bits cleared). */
export function parseCidr(cidr: string): Range {
  const [ip = '', prefixText = '', extra] = cidr.split('/');
  const prefix = Number(prefixText);
  if (extra !== undefined || !/^\d{1,2}$/.test(prefixText) || prefix > 32) throw new Error(`not an IPv4 CIDR: ${cidr}`);
  const size = 2 ** (32 - prefix);
  return { base: Math.floor(ipToInt(ip) / size) * size, prefix };
}

export const formatCidr = (r: Range): string => `${intToIp(r.base)}/${r.prefix}`;

export function contains(r: Range, ip: string): boolean {
  const n = ipToInt(ip);
  return n >= r.base && n < r.base + rangeSize(r);
}

export function cidrContains(cidr: string, ip: string): boolean {
  return contains(parseCidr(cidr), ip);
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

/** The `index`-th address of the block, 0 = the network address (phoenixNAP's VIP is index 2, the third). */
export function nthAddress(cidr: string, index: number): string {
  return intToIp(parseCidr(cidr).base + index);
}

/**
 * The address at the same offset in `to` as `ip` has in `from`: a bijection between two blocks of one size
 * (how a persona presents a loopback address as its cloud's private one, and takes it back). Undefined when
 * `ip` is outside `from` or its offset lies past the end of `to`.
 */
export function translateAddress(ip: string, from: Range, to: Range): string | undefined {
  if (!contains(from, ip)) return undefined;
  const offset = ipToInt(ip) - from.base;
  return offset < rangeSize(to) ? intToIp(to.base + offset) : undefined;
}

/** A CIDR inside `from` as the CIDR of the same prefix in `to`; undefined when it does not fit in either. */
export function translateCidr(cidr: string, from: Range, to: Range): string | undefined {
  const r = parseCidr(cidr);
  if (!rangeContains(from, r)) return undefined;
  const base = r.base - from.base + to.base;
  return rangeContains(to, { base, prefix: r.prefix }) ? formatCidr({ base, prefix: r.prefix }) : undefined;
}

/** The block of `prefix` bits that holds `ip`. */
export function blockOf(ip: string, prefix: number): Range {
  const size = 2 ** (32 - prefix);
  return { base: Math.floor(ipToInt(ip) / size) * size, prefix };
}

/** Inclusive address intervals [first, last], sorted and merged: what set arithmetic on CIDR lists works on. */
type Interval = readonly [number, number];

function intervalsOf(cidrs: readonly string[]): Interval[] {
  const sorted = cidrs.map(parseCidr).map((r): Interval => [r.base, r.base + rangeSize(r) - 1]).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last !== undefined && s <= last[1] + 1) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** The fewest CIDRs covering exactly an interval: the largest aligned block at each step. */
function cidrsOfInterval([first, last]: Interval): string[] {
  const out: string[] = [];
  for (let at = first; at <= last;) {
    let prefix = 32;
    while (prefix > 0 && at % 2 ** (33 - prefix) === 0 && at + 2 ** (33 - prefix) - 1 <= last) prefix--;
    out.push(formatCidr({ base: at, prefix }));
    at += 2 ** (32 - prefix);
  }
  return out;
}

/** The addresses of `from` that are in none of `minus`, as the fewest CIDRs (a deny list inside an allow-all, say). */
export function subtractCidrs(from: readonly string[], minus: readonly string[]): string[] {
  const cut = intervalsOf(minus);
  const out: string[] = [];
  for (const [s, e] of intervalsOf(from)) {
    let at = s;
    for (const [cs, ce] of cut) {
      if (ce < at || cs > e) continue;
      if (cs > at) out.push(...cidrsOfInterval([at, cs - 1]));
      at = ce + 1;
    }
    if (at <= e) out.push(...cidrsOfInterval([at, e]));
  }
  return out;
}
