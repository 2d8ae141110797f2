/**
 * DigitalOcean persona: the addresses it presents (ADR 0013). A droplet's private address is its VPC
 * address, RFC 1918 on DigitalOcean (each region's default VPC is a 10.x range), and DigitalOcean's CCM
 * writes it as the Node's InternalIP. The persona shows the private-network pool's /16 as 10.110.0.0/16,
 * 127.X.a.b ↔ 10.110.a.b (droplets' private networks.v4), and takes addresses it is sent in that block
 * (firewall and load balancer firewall sources) back to loopback; anything else as it is.
 */
import type { Sim } from '../../server/context.ts';
import { presentedBlock, presentedBlockOf, type PresentedBlock } from '../presented.ts';

/** The block the pool's networks are shown in. */
export const DIGITALOCEAN_VPC_BLOCK = '10.110.0.0/16';

export const digitaloceanAddresses = (sim: Sim): PresentedBlock => presentedBlockOf(sim, DIGITALOCEAN_VPC_BLOCK);

/** A droplet's private address as DigitalOcean shows it, for the pool holding it. */
export const presentDigitalOceanPrivateIp = (ip: string): string => presentedBlock(ip, DIGITALOCEAN_VPC_BLOCK).show.ip(ip);
