/**
 * Named seed scenarios. Each returns a fresh document that keeps the current projects and tokens
 * and puts settled resources (servers already running) into the target project:
 *   empty                     nothing
 *   demo                      1 network (127.10.0.0/24) and 3 running servers on it (node-1..3)
 *   ip-pool-nearly-exhausted  an IP-block pool of four /29s with three allocated: one allocation left
 */
import type { SeedName } from '../../api/schema/internal.ts';
import { intToIp, parseCidr } from '../../../lib/ip.ts';
import { nthV6 } from '../ipam.ts';
import { IPV6_RANGES, SERVER_IPV6_PREFIX, emptyState, type IpBlockRec, type NetworkRec, type ServerRec, type StateDoc } from '../store/state.ts';

export interface SeedContext {
  current: StateDoc;
  projectId: string;
  now: string;
}

function base(ctx: SeedContext): StateDoc {
  const doc = emptyState(ctx.current.pools);
  doc.projects = ctx.current.projects;
  doc.tokens = ctx.current.tokens;
  doc.next_id = ctx.current.next_id;
  doc.signing_key = ctx.current.signing_key;
  return doc;
}

const nextId = (doc: StateDoc, prefix: string): string => `${prefix}-${String(doc.next_id++).padStart(8, '0')}`;

function demo(ctx: SeedContext): StateDoc {
  const doc = base(ctx);
  const net: NetworkRec = {
    id: nextId(doc, 'net'),
    project_id: ctx.projectId,
    name: 'demo-net',
    ip_range: '127.10.0.0/24',
    subnets: [{ zone: 'sim-1a', ip_range: '127.10.0.0/24', gateway: '127.10.0.1' }],
    routes: [],
    labels: { seed: 'demo' },
    created: ctx.now,
  };
  doc.networks[net.id] = net;
  const publicBase = parseCidr(doc.pools.server_public).base;
  for (let i = 1; i <= 3; i++) {
    const ip = `127.10.0.${i + 1}`;
    const s: ServerRec = {
      id: nextId(doc, 'srv'),
      project_id: ctx.projectId,
      name: `node-${i}`,
      status: 'running',
      server_type: 'sc-small',
      image: 'ubuntu-24.04',
      zone: 'sim-1a',
      region: 'sim-1',
      labels: { seed: 'demo', role: 'node' },
      public_ipv4: intToIp(publicBase + i),
      public_ipv6: nthV6(IPV6_RANGES.server, SERVER_IPV6_PREFIX, i - 1),
      private_ipv4: ip,
      private_networks: [{ network_id: net.id, ip }],
      locked: false,
      created: ctx.now,
    };
    doc.servers[s.id] = s;
  }
  return doc;
}

function nearlyExhausted(ctx: SeedContext): StateDoc {
  const doc = base(ctx);
  doc.pools = { ...doc.pools, ip_block: '127.2.0.0/27', ip_block_size: 29 };
  for (let i = 0; i < 3; i++) {
    const b = parseCidr('127.2.0.0/27').base + i * 8;
    const block: IpBlockRec = {
      id: nextId(doc, 'ipb'),
      project_id: ctx.projectId,
      cidr: `${intToIp(b)}/29`,
      size: 29,
      location: 'sim-1',
      description: `seeded block ${i + 1}`,
      tags: { seed: 'ip-pool-nearly-exhausted' },
      status: 'unassigned',
      gateway: intToIp(b + 1),
      usable_addresses: [2, 3, 4, 5, 6].map((o) => intToIp(b + o)),
      assigned_to: null,
      created: ctx.now,
    };
    doc.ip_blocks[block.id] = block;
  }
  return doc;
}

export const SEEDS: Record<SeedName, (ctx: SeedContext) => StateDoc> = {
  empty: base,
  demo,
  'ip-pool-nearly-exhausted': nearlyExhausted,
};
