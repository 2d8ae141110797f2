/**
 * The one IP module. Parsing, validation and the text forms come from ipaddr.js; what it lacks is here:
 * addresses as unsigned integers (32-bit numbers for IPv4, 128-bit bigints for IPv6), CIDR ranges with their
 * containment and overlap, the n-th address of a block, and the translation between two blocks of one size
 * that personas use to present loopback addresses as their clouds' private ones. Parsers throw on malformed
 * input: what comes from outside is checked by its schema first (`isIPv4`, `isIPv4Cidr`), so a throw here is
 * a bug. Only dotted-decimal IPv4 is taken, never ipaddr.js's hex, octal or short forms.
 */
import ipaddr from 'ipaddr.js';

/** An IPv4 CIDR range: its network address as an unsigned 32-bit integer and its prefix length. */
export interface Range {
  readonly base: number;
  readonly prefix: number;
}

/** An IPv6 CIDR range: its network address and its prefix length. */
export interface Range6 {
  readonly base: bigint;
  readonly prefix: number;
}

const V4_CIDR = /^([^/]+)\/(\d{1,2})$/;
const V6_CIDR = /^([^/]+)\/(\d{1,3})$/;

/** A dotted-decimal IPv4 address: four decimal octets, no leading zeros. */
export const isIPv4 = (ip: string): boolean => ipaddr.IPv4.isValidFourPartDecimal(ip);

/** An IPv6 address (an embedded IPv4 tail allowed; no zone id). */
export const isIPv6 = (ip: string): boolean => !ip.includes('%') && ipaddr.IPv6.isValid(ip);

/** One text per address: an IPv4-mapped IPv6 address as its IPv4, IPv6 in its short form. Throws on a malformed one. */
export const canonicalIp = (ip: string): string => ipaddr.process(ip).toString();

/** Whether an address is loopback (127.0.0.0/8, ::1, or IPv4-mapped 127/8); false for anything that is no address. */
export function isLoopback(ip: string): boolean {
  try {
    return ipaddr.process(ip).range() === 'loopback';
  } catch {
    return false;
  }
}

/** `a.b.c.d/n` with n from 0 to 32. */
export function isIPv4Cidr(cidr: string): boolean {
  const m = V4_CIDR.exec(cidr);
  return m !== null && isIPv4(m[1] ?? '') && Number(m[2]) <= 32;
}

export function ipToInt(ip: string): number {
  if (!isIPv4(ip)) throw new Error(`not an IPv4 address: ${ip}`);
  return ipaddr.IPv4.parse(ip)
    .toByteArray()
    .reduce((acc, b) => acc * 256 + b, 0);
}

export function intToIp(n: number): string {
  return ipaddr.fromByteArray([24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256)).toString();
}

export const rangeSize = (r: Range): number => 2 ** (32 - r.prefix);

/** `a.b.c.d/n` as a range (host bits cleared). */
export function parseCidr(cidr: string): Range {
  if (!isIPv4Cidr(cidr)) throw new Error(`not an IPv4 CIDR: ${cidr}`);
  const [ip, prefix] = ipaddr.IPv4.parseCIDR(cidr);
  return blockOf(ip.toString(), prefix);
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
  const sorted = cidrs
    .map(parseCidr)
    .map((r): Interval => [r.base, r.base + rangeSize(r) - 1])
    .sort((a, b) => a[0] - b[0]);
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

const BITS = 128n;

export function ipv6ToBigInt(ip: string): bigint {
  if (!isIPv6(ip)) throw new Error(`not an IPv6 address: ${ip}`);
  return ipaddr.IPv6.parse(ip)
    .toByteArray()
    .reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
}

/** The canonical text of the address `n` (RFC 5952: lowercase, the longest run of zero groups compressed). */
export function bigIntToIpv6(n: bigint): string {
  const bytes = Array.from({ length: 16 }, (_, i) => Number((n >> BigInt((15 - i) * 8)) & 0xffn));
  return (ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String();
}

/** The canonical text of any IPv6 address (so two spellings of one address compare equal). */
export const canonicalIpv6 = (ip: string): string => bigIntToIpv6(ipv6ToBigInt(ip));

/** `addr/n` as a range (host bits cleared). */
export function parseCidr6(cidr: string): Range6 {
  const m = V6_CIDR.exec(cidr);
  const prefix = Number(m?.[2]);
  if (m === null || prefix > 128 || !isIPv6(m[1] ?? '')) throw new Error(`not an IPv6 CIDR: ${cidr}`);
  const hostBits = BITS - BigInt(prefix);
  return { base: (ipv6ToBigInt(m[1] ?? '') >> hostBits) << hostBits, prefix };
}

export const formatCidr6 = (r: Range6): string => `${bigIntToIpv6(r.base)}/${r.prefix}`;

export const rangeSize6 = (r: Range6): bigint => 1n << (BITS - BigInt(r.prefix));

export function contains6(r: Range6, ip: string): boolean {
  const n = ipv6ToBigInt(ip);
  return n >= r.base && n < r.base + rangeSize6(r);
}

/** The range of `prefix` bits that holds `ip`, e.g. the /64 of a server's address. */
export const enclosingRange6 = (ip: string, prefix: number): Range6 => parseCidr6(`${ip}/${prefix}`);
