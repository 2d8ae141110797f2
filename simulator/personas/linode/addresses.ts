/**
 * Linode persona: the addresses it presents (ADR 0013). The store keeps the loopback truth: a server's
 * private address is 127.X.a.b, where the data plane and the node stand-ins answer. Linode's CCM tells
 * private from public by the RFC 1918 ranges, and Linode shows one instance two ways, so the persona shows
 * the store's one private address as both:
 * - its private IPv4 (the instance's `ipv4`, its `/ips`), in Linode's 192.168.128.0/17: 127.X.a.b with
 *   a < 128 (the first /17 of the private-network pool's /16) is 192.168.(128+a).b;
 * - its VPC address (VPC subnets, VPC addresses, vpc interfaces), in 10.0.0.0/16: 127.X.a.b is 10.0.a.b.
 * Two addresses as on Linode (a VPC address is never the private IPv4), so a Node lists each once.
 * Every address the persona is sent in either block is taken back to its loopback one; nothing past the
 * persona sees a presented address. The block arithmetic is ../presented.ts's.
 */
import { presentedBlock, privatePoolOf, splitHostPort, type PresentedBlock } from '../presented.ts';
import type { Sim } from '../../server/context.ts';

/** Linode's private IPv4 block. */
export const LINODE_PRIVATE_BLOCK = '192.168.128.0/17';
/** The block VPC addresses of the pool's networks are shown in. */
export const LINODE_VPC_BLOCK = '10.0.0.0/16';

/** How an address is shown: as the private IPv4 or as the VPC address. */
export type Presentation = 'private' | 'vpc';
const SHOWN: Record<Presentation, string> = { private: LINODE_PRIVATE_BLOCK, vpc: LINODE_VPC_BLOCK };
const KINDS = Object.keys(SHOWN) as Presentation[];

/** Both blocks for the pool holding `inPool`. */
const blocksOf = (inPool: string): Record<Presentation, PresentedBlock> => ({
  private: presentedBlock(inPool, SHOWN.private),
  vpc: presentedBlock(inPool, SHOWN.vpc),
});

/**
 * A private (network) address as Linode shows it (`kind`, the private IPv4 by default); one past the
 * presented block stays as it is. With `inPool` (an address of the private-network pool), an address
 * outside that pool's /16 stays as it is too.
 */
export function presentPrivateIp(ip: string, inPool = ip, kind: Presentation = 'private'): string {
  return blocksOf(inPool)[kind].show.ip(ip);
}

/** What the persona accepts, back as the store's loopback values. */
export interface Loopback {
  /** A presented address (either block) as its loopback one; any other as sent. */
  ip(ip: string): string;
  /** A CIDR inside a presented block as its loopback CIDR; any other as sent. */
  cidr(cidr: string): string;
  /** `ip:port` with the ip taken back. */
  hostPort(address: string): string;
  /** Which presentation an address was sent in, if any. */
  kindOf(ip: string): Presentation | undefined;
}

export function loopbackOf(sim: Sim): Loopback {
  const blocks = blocksOf(privatePoolOf(sim));
  const kindOf = (a: string): Presentation | undefined => KINDS.find((k) => blocks[k].back.holds(a));
  const ip = (a: string): string => {
    const kind = kindOf(a);
    return kind === undefined ? a : blocks[kind].back.ip(a);
  };
  return {
    ip,
    kindOf,
    cidr: (c) => KINDS.map((k) => blocks[k].back.cidr(c)).find((x) => x !== c) ?? c,
    hostPort: (a) => {
      const [host, port] = splitHostPort(a);
      return `${ip(host)}${port}`;
    },
  };
}

/** A node body (`address` is `ip:port`) with its address taken back to loopback and how it was presented. */
export function loopbackNode<T extends { address?: string | undefined }>(sim: Sim, n: T): T & { presented?: Presentation } {
  if (n.address === undefined) return n;
  const back = loopbackOf(sim);
  const kind = back.kindOf(splitHostPort(n.address)[0]);
  return { ...n, address: back.hostPort(n.address), ...(kind === undefined ? {} : { presented: kind }) };
}

/** What the persona shows: private addresses and ranges of this simcloud's pool as Linode's. */
export interface Presented {
  ip(ip: string, kind?: Presentation): string;
  /** A range inside the presented loopback block translated; any other as it is. */
  cidr(cidr: string, kind?: Presentation): string;
  hostPort(address: string, kind?: Presentation): string;
}

export function presentedOf(sim: Sim): Presented {
  const blocks = blocksOf(privatePoolOf(sim));
  return {
    ip: (a, kind = 'private') => blocks[kind].show.ip(a),
    cidr: (c, kind = 'private') => blocks[kind].show.cidr(c),
    hostPort: (a, kind = 'private') => blocks[kind].show.hostPort(a),
  };
}
