/**
 * Linode persona: the addresses it presents (ADR 0013). The store keeps the loopback truth: a server's
 * private address is 127.X.a.b, where the data plane and the node stand-ins answer. Linode gives private
 * IPv4s in 192.168.128.0/17, and Linode's CCM tells private from public by the RFC 1918 ranges, so the
 * persona shows 127.X.a.b (a < 128, the first /17 of the private-network pool's /16) as 192.168.(128+a).b
 * and takes every address it is sent in that block back to the loopback one. Nothing past the persona
 * sees a 192.168 address; the arithmetic is lib/ipv4.ts's.
 */
import { blockOf, parseCidr, rangeContains, translateAddress, translateCidr, type Range } from '../../../lib/ipv4.ts';
import type { Sim } from '../../server/context.ts';

/** Linode's private IPv4 block. */
export const LINODE_PRIVATE_BLOCK = '192.168.128.0/17';
const PRIVATE = parseCidr(LINODE_PRIVATE_BLOCK);

/** The loopback block presented as Linode's private block: the first /17 of the /16 holding `inPool`. */
const loopbackBlock = (inPool: string): Range => ({ base: blockOf(inPool, 16).base, prefix: 17 });

/**
 * A private (network) address as Linode shows it; an address past the presented block stays as it is. With
 * `inPool` (an address of the private-network pool), an address outside that pool's /16 stays as it is too.
 */
export function presentPrivateIp(ip: string, inPool = ip): string {
  return translateAddress(ip, loopbackBlock(inPool), PRIVATE) ?? ip;
}

/** What the persona accepts, back as the store's loopback values. */
export interface Loopback {
  /** A 192.168.128.0/17 address as its loopback one; any other as sent. */
  ip(ip: string): string;
  /** A CIDR inside 192.168.128.0/17 as its loopback CIDR; any other as sent. */
  cidr(cidr: string): string;
  /** `ip:port` with the ip taken back. */
  hostPort(address: string): string;
}

/** The address of the simcloud's private-network pool (its /16 is the one presented). */
const poolOf = (sim: Sim): string => sim.store.state.pools.private_networks.split('/')[0]!;

export function loopbackOf(sim: Sim): Loopback {
  const block = loopbackBlock(poolOf(sim));
  const ip = (a: string): string => translateAddress(a, PRIVATE, block) ?? a;
  return {
    ip,
    cidr: (c) => translateCidr(c, PRIVATE, block) ?? c,
    hostPort: (a) => {
      const colon = a.lastIndexOf(':');
      return `${ip(a.slice(0, colon))}${a.slice(colon)}`;
    },
  };
}

/** What the persona shows: private addresses and ranges of this simcloud's pool as Linode's. */
export interface Presented {
  ip(ip: string): string;
  /** A range inside the presented loopback block translated; any other as it is. */
  cidr(cidr: string): string;
  /** A VPC subnet's range: as `cidr`, but one holding the whole presented block (the cluster network's /16) is 192.168.128.0/17. */
  subnet(cidr: string): string;
  hostPort(address: string): string;
}

/** A node body (`address` is `ip:port`) with its address taken back to loopback. */
export function loopbackNode<T extends { address?: string | undefined }>(sim: Sim, n: T): T {
  return n.address === undefined ? n : { ...n, address: loopbackOf(sim).hostPort(n.address) };
}

export function presentedOf(sim: Sim): Presented {
  const pool = poolOf(sim);
  const block = loopbackBlock(pool);
  const ip = (a: string): string => presentPrivateIp(a, pool);
  return {
    ip,
    cidr: (c) => translateCidr(c, block, PRIVATE) ?? c,
    subnet: (c) => (rangeContains(parseCidr(c), block) && rangeContains(blockOf(pool, 16), parseCidr(c)) ? LINODE_PRIVATE_BLOCK : translateCidr(c, block, PRIVATE) ?? c),
    hostPort: (a) => {
      const colon = a.lastIndexOf(':');
      return `${ip(a.slice(0, colon))}${a.slice(colon)}`;
    },
  };
}
