/**
 * Hetzner persona: the addresses it presents (ADR 0013). Hetzner networks are RFC 1918 (10.0.0.0/16 in its
 * docs) and its CCM sends a node's address in the network back as a route's gateway, so the persona shows
 * the private-network pool's /16 as 10.0.0.0/16, 127.X.a.b ↔ 10.0.a.b: networks' and subnets' ranges,
 * routes, servers' and load balancers' private_net, IP targets. Everything it is sent in that block is taken
 * back to loopback before the store sees it; anything else (pod CIDRs, public addresses) as it is.
 */
import type { Sim } from '../../server/context.ts';
import { presentedBlock, presentedBlockOf, type PresentedBlock } from '../presented.ts';

/** The block the pool's networks are shown in. */
export const HCLOUD_NETWORK_BLOCK = '10.0.0.0/16';

export const hcloudAddresses = (sim: Sim): PresentedBlock => presentedBlockOf(sim, HCLOUD_NETWORK_BLOCK);

/** A server's private (network) address as Hetzner shows it, for the pool holding it. */
/** An address sent (attach_to_network's `ip`) as its loopback one. */
export const loopbackIp = (sim: Sim, ip: string | undefined): string | undefined => (ip === undefined ? undefined : hcloudAddresses(sim).back.ip(ip));

/** A target body with an IP target's address taken back (its use_private_ip is kept under the loopback key). */
export function loopbackTarget<T extends { ip?: { ip: string } | undefined }>(sim: Sim, t: T): T {
  return t.ip === undefined ? t : { ...t, ip: { ...t.ip, ip: hcloudAddresses(sim).back.ip(t.ip.ip) } };
}

export const presentHcloudPrivateIp = (ip: string): string => presentedBlock(ip, HCLOUD_NETWORK_BLOCK).show.ip(ip);
