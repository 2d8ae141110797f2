/**
 * One presented private block (ADR 0013): the store's loopback addresses at the start of the /16 holding
 * simcloud's private-network pool (every loopback plan's pool is a /16, handed out from its start), shown at
 * the same offset in a cloud's RFC 1918 block, and taken back. Each persona's addresses module names its
 * blocks; the arithmetic is lib/ip.ts's. Anything outside a block (public addresses, IPv6, pod CIDRs) is
 * shown and taken as it is.
 */
import { blockOf, contains, isIPv4, parseCidr, translateAddress, translateCidr, type Range } from '../../lib/ip.ts';
import type { Sim } from '../server/context.ts';

/** One direction of a block: addresses, CIDRs and `ip:port` inside `from` moved to `to`, anything else as it is. */
export interface AddressMap {
  readonly ip: (ip: string) => string;
  readonly cidr: (cidr: string) => string;
  readonly hostPort: (address: string) => string;
  /** Whether `ip` lies in the block this direction moves from. */
  readonly holds: (ip: string) => boolean;
}

export interface PresentedBlock {
  /** Loopback to the cloud's block. */
  readonly show: AddressMap;
  /** The cloud's block to loopback. */
  readonly back: AddressMap;
}

/** An address of simcloud's private-network pool. */
export const privatePoolOf = (sim: Sim): string => sim.store.state.pools.private_networks.split('/')[0]!;

const isCidr4 = (c: string): boolean => /^[\d.]+\/\d{1,2}$/.test(c) && isIPv4(c.split('/')[0]!) && Number(c.split('/')[1]) <= 32;

export const splitHostPort = (a: string): [string, string] => {
  const colon = a.lastIndexOf(':');
  return colon < 0 ? [a, ''] : [a.slice(0, colon), a.slice(colon)];
};

function addressMap(from: Range, to: Range): AddressMap {
  const holds = (a: string): boolean => isIPv4(a) && contains(from, a);
  const ip = (a: string): string => (holds(a) ? (translateAddress(a, from, to) ?? a) : a);
  return {
    ip,
    holds,
    cidr: (c) => (isCidr4(c) ? (translateCidr(c, from, to) ?? c) : c),
    hostPort: (a) => {
      const [host, port] = splitHostPort(a);
      return `${ip(host)}${port}`;
    },
  };
}

/** The block `shownCidr` presents, for the pool holding `inPool` (a descriptor passes the server's own address). */
export function presentedBlock(inPool: string, shownCidr: string): PresentedBlock {
  const shown = parseCidr(shownCidr);
  const loopback: Range = { base: blockOf(inPool, 16).base, prefix: shown.prefix };
  return { show: addressMap(loopback, shown), back: addressMap(shown, loopback) };
}

/** The block `shownCidr` presents for this simcloud's private-network pool. */
export const presentedBlockOf = (sim: Sim, shownCidr: string): PresentedBlock => presentedBlock(privatePoolOf(sim), shownCidr);
