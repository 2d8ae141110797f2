// Routes (one per podCIDR via the node's InternalIP, NetworkUnavailable=False, none left for deleted
// nodes) and the final leak check (nothing left in the cloud that no Service or Node explains). Both read
// the store through /v1: whatever API a CCM used, a resource has one truth.
import type { V1Node } from '@kubernetes/client-node';
import { presentedPrivateIp } from '../../cloud/descriptor.ts';
import { clusterServers, listNodes, NotOffered, until, type ConformanceContext } from '../context.ts';
import { WEB } from './load-balancers.ts';

/** After nodes are initialised, how long a CCM may take to show a route controller at all. */
const OFFER_WINDOW_MS = 20_000;

const networkCondition = (n: V1Node): { status?: string; reason?: string } | undefined => n.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');

async function network(ctx: ConformanceContext): Promise<{ id: string }> {
  const name = ctx.sandbox.options.name;
  const found = (await ctx.sandbox.client.networks.listAll({ name })).find((n) => n.name === name);
  if (!found) throw new Error(`no network ${name}`);
  return found;
}

/** Whether the CCM runs a route controller: it writes NetworkUnavailable, or routes exist. */
async function routesOffered(ctx: ConformanceContext): Promise<boolean> {
  const net = await network(ctx);
  const sign = async (): Promise<boolean> =>
    (await listNodes(ctx)).some((n) => networkCondition(n) !== undefined) || (await ctx.sandbox.client.networks.listRoutes(net.id)).length > 0;
  const waited = Date.now() - (ctx.memory.initialisedAt ?? Date.now());
  return until(ctx, 'a sign of a route controller', async () => (await sign()) || undefined, Math.max(1000, OFFER_WINDOW_MS - waited)).catch(() => false);
}

export async function routes(ctx: ConformanceContext): Promise<string> {
  if (!(await routesOffered(ctx)) && !ctx.required) {
    throw new NotOffered(
      `no NetworkUnavailable condition on any node and no route in network ${ctx.sandbox.options.name} within ${OFFER_WINDOW_MS / 1000} s of node initialisation`,
    );
  }
  const net = await network(ctx);
  // A route's gateway is the store's loopback address; the Node's InternalIP is the cloud's presented one.
  const servers = await clusterServers(ctx);
  const gatewayAsPresented = (ip: string): string => {
    const server = servers.find((s) => s.private_ipv4 === ip);
    return (server && presentedPrivateIp(ctx.cloud, server)) ?? ip;
  };
  // Via the server's private address as the cloud presents it when the Node lists it (a Node may have
  // several InternalIPs, e.g. a Linode VPC address before the private IPv4), else its first InternalIP.
  const via = (n: V1Node): string | undefined => {
    const internal = (n.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
    const server = servers.find((s) => s.name === n.metadata?.name);
    const presented = server && presentedPrivateIp(ctx.cloud, server);
    return presented && internal.includes(presented) ? presented : internal[0];
  };
  const nodes = await until(
    ctx,
    'one route per node podCIDR via its InternalIP, no stale route, NetworkUnavailable=False (RouteCreated) on every node',
    async () => {
      const all = await listNodes(ctx);
      const want = all
        .filter((n) => n.spec?.podCIDR)
        .map((n) => `${n.spec?.podCIDR}->${via(n)}`)
        .sort();
      const have = (await ctx.sandbox.client.networks.listRoutes(net.id)).map((r) => `${r.destination}->${gatewayAsPresented(r.gateway)}`).sort();
      const notCreated = all.filter((n) => networkCondition(n)?.status !== 'False').map((n) => n.metadata?.name);
      if (JSON.stringify(want) !== JSON.stringify(have) || notCreated.length) {
        for (const n of all) ctx.involve({ kind: 'Node', name: n.metadata?.name ?? '' });
        throw new Error(`routes ${have.join(', ') || 'none'}, want ${want.join(', ')}; NetworkUnavailable not False on ${notCreated.join(', ') || '-'}`);
      }
      return all;
    },
  );
  return `${nodes.length} routes`;
}

export async function leak(ctx: ConformanceContext): Promise<string> {
  await ctx.apps.deleteNamespacedDeployment({ name: WEB, namespace: ctx.namespace }).catch(() => undefined);
  const services = (await ctx.core.listNamespacedService({ namespace: ctx.namespace })).items.filter((s) => s.spec?.type === 'LoadBalancer');
  for (const s of services) await ctx.core.deleteNamespacedService({ name: s.metadata?.name ?? '', namespace: ctx.namespace }).catch(() => undefined);
  const client = ctx.sandbox.client;
  await until(ctx, 'every load balancer, server group, firewall policy and IP block to be removed', async () => {
    const [lbs, groups, policies, blocks] = await Promise.all([
      client.loadBalancers.listAll(),
      client.serverGroups.listAll(),
      client.firewallPolicies.listAll(),
      client.ipBlocks.listAll(),
    ]);
    const left = [
      ...lbs.map((x) => `load balancer ${x.name}`),
      ...groups.map((x) => `server group ${x.name}`),
      ...policies.map((x) => `firewall policy ${x.name}`),
      ...blocks.map((x) => `IP block ${x.id}`),
    ];
    if (left.length) throw new Error(`left: ${left.join(', ')}`);
    return true;
  });
  const net = await network(ctx);
  const cidrs = new Set((await listNodes(ctx)).map((n) => n.spec?.podCIDR));
  const stale = await until(ctx, 'no route for a podCIDR no node has', async () => {
    const left = (await client.networks.listRoutes(net.id)).filter((r) => !cidrs.has(r.destination));
    if (left.length) throw new Error(`stale: ${left.map((r) => `${r.destination}->${r.gateway}`).join(', ')}`);
    return [];
  });
  return `nothing left (${stale.length} stale routes)`;
}
