/**
 * IPv6 arithmetic, the one module for it: addresses as unsigned 128-bit bigints, CIDR ranges, containment and
 * the canonical text form (RFC 5952: lowercase, the longest run of zero groups compressed). simcloud's IPv6
 * addresses are data only (no listener binds them), so this is all it needs. Parsers throw on malformed input.
 */
import { isIPv6 } from 'node:net';

/** A CIDR range: its network address and its prefix length. */
export interface Range6 {
  readonly base: bigint;
  readonly prefix: number;
}

const BITS = 128n;

/** The eight 16-bit groups of an address already checked by isIPv6 (an embedded IPv4 tail becomes two groups). */
function groupsOf(ip: string): number[] {
  let text = ip;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

export function ipv6ToBigInt(ip: string): bigint {
  if (!isIPv6(ip)) throw new Error(`not an IPv6 address: ${ip}`);
  return groupsOf(ip).reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** The canonical text of the address `n` (RFC 5952). */
export function bigIntToIpv6(n: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt((7 - i) * 16)) & 0xffffn));
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** The canonical text of any IPv6 address (so two spellings of one address compare equal). */
export const canonicalIpv6 = (ip: string): string => bigIntToIpv6(ipv6ToBigInt(ip));

/** `addr/n` as a range (host bits cleared). */
export function parseCidr6(cidr: string): Range6 {
  const [ip = '', prefixText = '', extra] = cidr.split('/');
  const prefix = Number(prefixText);
  if (extra !== undefined || !/^\d{1,3}$/.test(prefixText) || prefix > 128) throw new Error(`not an IPv6 CIDR: ${cidr}`);
  const hostBits = BITS - BigInt(prefix);
  return { base: (ipv6ToBigInt(ip) >> hostBits) << hostBits, prefix };
}

export const formatCidr6 = (r: Range6): string => `${bigIntToIpv6(r.base)}/${r.prefix}`;

export const rangeSize6 = (r: Range6): bigint => 1n << (BITS - BigInt(r.prefix));

export function contains6(r: Range6, ip: string): boolean {
  const n = ipv6ToBigInt(ip);
  return n >= r.base && n < r.base + rangeSize6(r);
}

/** The range of `prefix` bits that holds `ip`, e.g. the /64 of a server's address. */
export const enclosingRange6 = (ip: string, prefix: number): Range6 => parseCidr6(`${ip}/${prefix}`);
