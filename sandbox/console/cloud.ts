// The cloud side of the console: one snapshot of simcloud (servers, load balancers with their traffic
// counters, server groups, firewall policies, IP blocks, networks and routes, fault rules) read through the
// sandbox's typed clients with the caller `ccm-sandbox console`, plus the actions still running, which the
// hub tracks from the event stream. A failed read keeps the last snapshot and marks the cloud unreachable.
import type { SimcloudAdminClient, SimcloudClient } from '../../simulator/api/client/index.ts';
import type { Action } from '../../simulator/api/schema/actions.ts';
import type { FirewallPolicy } from '../../simulator/api/schema/firewall-policies.ts';
import type { FaultRule } from '../../simulator/api/schema/internal.ts';
import type { IpBlock } from '../../simulator/api/schema/ip-blocks.ts';
import type { LoadBalancer, TargetCounters } from '../../simulator/api/schema/load-balancers.ts';
import type { Network } from '../../simulator/api/schema/networks.ts';
import type { ServerGroup } from '../../simulator/api/schema/server-groups.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';

/** The caller header of the console's own calls; its reads are left out of the timeline. */
export const CONSOLE_CALLER = 'ccm-sandbox console';

export interface CloudSnapshot {
  readonly ok: boolean;
  readonly error: string | null;
  readonly servers: Server[];
  readonly loadBalancers: (LoadBalancer & { counters: TargetCounters[] })[];
  readonly serverGroups: ServerGroup[];
  readonly firewallPolicies: FirewallPolicy[];
  readonly ipBlocks: IpBlock[];
  readonly networks: Network[];
  readonly faults: FaultRule[];
  readonly actions: Action[];
  readonly updatedAt: string | null;
}

export const EMPTY_CLOUD: CloudSnapshot = {
  ok: false,
  error: 'not read yet',
  servers: [],
  loadBalancers: [],
  serverGroups: [],
  firewallPolicies: [],
  ipBlocks: [],
  networks: [],
  faults: [],
  actions: [],
  updatedAt: null,
};

const opts = { caller: CONSOLE_CALLER };

async function withCounters(client: SimcloudClient, lb: LoadBalancer): Promise<LoadBalancer & { counters: TargetCounters[] }> {
  const counters = await client.loadBalancers.metrics(lb.id, opts).catch(() => []);
  return { ...lb, counters };
}

/** Reads the whole cloud once. Throws when simcloud does not answer. */
export async function readCloud(client: SimcloudClient, admin: SimcloudAdminClient, actions: Action[]): Promise<CloudSnapshot> {
  const [servers, lbs, serverGroups, firewallPolicies, ipBlocks, networks, faults] = await Promise.all([
    client.servers.listAll({}, opts),
    client.loadBalancers.listAll({}, opts),
    client.serverGroups.listAll({}, opts),
    client.firewallPolicies.listAll({}, opts),
    client.ipBlocks.listAll({}, opts),
    client.networks.listAll({}, opts),
    admin.listFaults(opts),
  ]);
  const loadBalancers = await Promise.all(lbs.map((lb) => withCounters(client, lb)));
  const byName = <T extends { name: string }>(xs: T[]): T[] => xs.sort((a, b) => a.name.localeCompare(b.name));
  return {
    ok: true,
    error: null,
    servers: byName(servers),
    loadBalancers: byName(loadBalancers),
    serverGroups: byName(serverGroups),
    firewallPolicies: byName(firewallPolicies),
    ipBlocks,
    networks: byName(networks),
    faults,
    actions,
    updatedAt: new Date().toISOString(),
  };
}
