/** IPv4 arithmetic for IP blocks and source ranges (pure). */

export function ipToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`not an IPv4 address: ${ip}`);
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

export function intToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** The network address and prefix length of `a.b.c.d/n`. */
export function parseCidr(cidr: string): { network: number; prefix: number } {
  const [ip = '', prefixText = ''] = cidr.split('/');
  const prefix = Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) throw new Error(`not an IPv4 CIDR: ${cidr}`);
  const size = 2 ** (32 - prefix);
  return { network: Math.floor(ipToInt(ip) / size) * size, prefix };
}

export function cidrContains(cidr: string, ip: string): boolean {
  const { network, prefix } = parseCidr(cidr);
  const n = ipToInt(ip);
  return n >= network && n < network + 2 ** (32 - prefix);
}

/** The `index`-th address of the block, 0 = the network address (phoenixNAP's VIP is index 2, the third). */
export function nthAddress(cidr: string, index: number): string {
  return intToIp(parseCidr(cidr).network + index);
}
