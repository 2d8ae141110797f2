// Node capabilities: initialisation (providerID, labels, addresses, the uninitialized taint removed) and
// lifecycle (the shutdown taint while a server is off, a vanished server's Node deleted).
import type { V1Node } from '@kubernetes/client-node';
import type { Server } from '../../../simulator/api/schema/servers.ts';
import { presentedPrivateIp } from '../../cloud/descriptor.ts';
import {
  check, clusterServers, hasTaint, lbNodes, listNodes, readyOf, SHUTDOWN_TAINT, UNINITIALIZED_TAINT, until, type ConformanceContext,
} from '../context.ts';

/** The labels the cloud's CCM should have set on the Node of `server`, and the zone label it must not set. */
function labelProblems(ctx: ConformanceContext, server: Server, node: V1Node): string[] {
  const profile = ctx.cloud.conformance;
  const want: Record<string, string> = {
    ...profile.nodeLabels,
    'node.kubernetes.io/instance-type': server.server_type,
    'topology.kubernetes.io/region': server.region,
    ...(profile.zones ? { 'topology.kubernetes.io/zone': profile.zoneLabel?.(server) ?? server.zone } : {}),
  };
  const have = node.metadata?.labels ?? {};
  const problems = Object.entries(want).filter(([k, v]) => have[k] !== v).map(([k, v]) => `${server.name}: label ${k} is ${JSON.stringify(have[k] ?? null)}, want ${v}`);
  if (!profile.zones && have['topology.kubernetes.io/zone'] !== undefined) problems.push(`${server.name}: a zone label on a cloud with regions only`);
  return problems;
}

/** The server's private and public addresses as the Node's InternalIP and ExternalIP. */
function addressProblems(ctx: ConformanceContext, server: Server, node: V1Node): string[] {
  const addresses = node.status?.addresses ?? [];
  const listed = addresses.map((a) => `${a.type}=${a.address}`).join(', ') || 'none';
  // The private address as the cloud presents it: what its CCM reads (Linode's is RFC 1918, ADR 0013).
  const wanted: Array<[string, string | null]> = [['InternalIP', presentedPrivateIp(ctx.cloud, server)], ['ExternalIP', server.public_ipv4]];
  return wanted
    .filter(([type, address]) => address !== null && !addresses.some((a) => a.type === type && a.address === address))
    .map(([type, address]) => `${server.name}: no ${type} ${address} (addresses: ${listed})`);
}

/** Every mismatch between a Node and what the cloud's CCM should have written for its server. */
function nodeProblems(ctx: ConformanceContext, server: Server, node: V1Node): string[] {
  const want = ctx.cloud.providerId(server.id);
  const providerId = node.spec?.providerID === want ? [] : [`${server.name}: providerID is ${JSON.stringify(node.spec?.providerID ?? null)}, want ${want}`];
  return [...providerId, ...labelProblems(ctx, server, node), ...addressProblems(ctx, server, node)];
}

export async function nodeInit(ctx: ConformanceContext): Promise<string> {
  const servers = await clusterServers(ctx);
  for (const s of servers) ctx.involve({ kind: 'Node', name: s.name });
  // The taint can go a moment before the addresses arrive (upstream writes them in a second update):
  // the check waits for the whole picture, and on timeout names what is still missing.
  const nodes = await until(ctx, `${servers.length} initialised Nodes with the cloud's providerID, labels and addresses`, async () => {
    const all = await listNodes(ctx);
    const tainted = all.filter((n) => hasTaint(n, UNINITIALIZED_TAINT)).map((n) => n.metadata?.name);
    if (tainted.length > 0) throw new Error(`still tainted ${UNINITIALIZED_TAINT}: ${tainted.join(', ')}`);
    const problems = servers.flatMap((s) => {
      const node = all.find((n) => n.metadata?.name === s.name);
      return node ? nodeProblems(ctx, s, node) : [`server ${s.name} has no Node`];
    });
    if (problems.length > 0) throw new Error(problems.join('; '));
    return all;
  });
  ctx.memory.initialisedAt = Date.now();
  return `${nodes.length} nodes: ${ctx.cloud.providerId(servers[0]?.id ?? 'srv-0').replace(/\d+$/, '…')}`;
}

/**
 * Deletes a server as the cloud's user deletes it (through the persona where that does more, e.g. Linode's
 * drops the instance's VPC ip_ranges), else through /v1.
 */
export async function deleteAsUser(ctx: ConformanceContext, serverId: string): Promise<void> {
  const sim = ctx.sandbox.state.simcloud;
  const machines = sim && ctx.cloud.machines?.({ endpoint: sim.url, token: sim.token });
  if (machines?.deleteMachine) await machines.deleteMachine(serverId);
  else await ctx.sandbox.client.servers.delete(serverId);
}

export async function lifecycle(ctx: ConformanceContext): Promise<string> {
  const nodes = lbNodes(await listNodes(ctx)).map((n) => n.metadata?.name ?? '');
  const servers = await clusterServers(ctx);
  // Not the node the update check joined: the routes check still expects it.
  const victim = servers.find((s) => nodes.includes(s.name) && s.name !== ctx.memory.joined);
  check(victim !== undefined, 'no worker node to power off');
  ctx.involve({ kind: 'Node', name: victim.name });
  const client = ctx.sandbox.client;
  const node = (): Promise<V1Node> => ctx.core.readNode({ name: victim.name });
  await client.waitForAction((await client.servers.poweroff(victim.id)).id);
  await until(ctx, `${victim.name} NotReady with the ${SHUTDOWN_TAINT} taint after its server powered off`, async () => {
    const n = await node();
    return readyOf(n) !== 'True' && hasTaint(n, SHUTDOWN_TAINT);
  });
  await client.waitForAction((await client.servers.poweron(victim.id)).id);
  await until(ctx, `${victim.name} Ready without the shutdown taint after its server powered on`, async () => {
    const n = await node();
    return readyOf(n) === 'True' && !hasTaint(n, SHUTDOWN_TAINT);
  });
  await deleteAsUser(ctx, victim.id);
  await until(ctx, `Node ${victim.name} deleted after its server was deleted`, async () => !(await listNodes(ctx)).some((n) => n.metadata?.name === victim.name), Math.max(ctx.timeoutMs, 90_000));
  return `${victim.name}: tainted while off, cleared when on, deleted with its server`;
}
