// Node capabilities: initialisation (providerID, labels, addresses, the uninitialized taint removed; a
// failure says whether Kubernetes or only the cloud's own CCM asks for what is missing) and lifecycle (the shutdown taint while a server is off, a vanished server's Node deleted).
import type { V1Node } from '@kubernetes/client-node';
import type { Server } from '../../../simulator/api/schema/servers.ts';
import { presentedPrivateIp } from '../../cloud/descriptor.ts';
import {
  check,
  clusterServers,
  hasTaint,
  lbNodes,
  listNodes,
  readyOf,
  requiredBy,
  SHUTDOWN_TAINT,
  UNINITIALIZED_TAINT,
  until,
  type ConformanceContext,
  type Profile,
} from '../context.ts';

/** Something a Node lacks, and who asks for it (a failure says which). */
interface Problem {
  readonly text: string;
  readonly origin: Profile;
}

const kube = (text: string): Problem => ({ text, origin: 'kubernetes' });

/**
 * The well-known labels upstream's cloud-node controller writes from InstanceMetadata (instance type, region,
 * zone) and the zone label it must not set; with --profile cloud also the cloud CCM's own labels.
 */
function labelProblems(ctx: ConformanceContext, server: Server, node: V1Node): Problem[] {
  const profile = ctx.cloud.conformance;
  const wellKnown: Record<string, string> = {
    'node.kubernetes.io/instance-type': server.server_type,
    'topology.kubernetes.io/region': server.region,
    ...(profile.zones ? { 'topology.kubernetes.io/zone': profile.zoneLabel?.(server) ?? server.zone } : {}),
  };
  const wanted: Array<[string, string, Profile]> = [
    ...Object.entries(wellKnown).map(([k, v]): [string, string, Profile] => [k, v, 'kubernetes']),
    ...(ctx.profile === 'cloud' ? Object.entries(profile.nodeLabels).map(([k, v]): [string, string, Profile] => [k, v, 'cloud']) : []),
  ];
  const have = node.metadata?.labels ?? {};
  const problems = wanted
    .filter(([k, v]) => have[k] !== v)
    .map(([k, v, origin]) => ({ text: `${server.name}: label ${k} is ${JSON.stringify(have[k] ?? null)}, want ${v}`, origin }));
  if (!profile.zones && have['topology.kubernetes.io/zone'] !== undefined) problems.push(kube(`${server.name}: a zone label on a cloud with regions only`));
  return problems;
}

/** The server's private and public addresses as the Node's InternalIP and ExternalIP. */
function addressProblems(ctx: ConformanceContext, server: Server, node: V1Node): Problem[] {
  const addresses = node.status?.addresses ?? [];
  const listed = addresses.map((a) => `${a.type}=${a.address}`).join(', ') || 'none';
  // The private address as the cloud presents it: what its CCM reads (Linode's is RFC 1918, ADR 0013).
  const wanted: Array<[string, string | null]> = [
    ['InternalIP', presentedPrivateIp(ctx.cloud, server)],
    ['ExternalIP', server.public_ipv4],
  ];
  return wanted
    .filter(([type, address]) => address !== null && !addresses.some((a) => a.type === type && a.address === address))
    .map(([type, address]) => kube(`${server.name}: no ${type} ${address} (addresses: ${listed})`));
}

/** Every mismatch between a Node and what the cloud's CCM should have written for its server. */
function nodeProblems(ctx: ConformanceContext, server: Server, node: V1Node): Problem[] {
  const want = ctx.cloud.providerId(server.id);
  const providerId =
    node.spec?.providerID === want ? [] : [kube(`${server.name}: providerID is ${JSON.stringify(node.spec?.providerID ?? null)}, want ${want}`)];
  return [...providerId, ...labelProblems(ctx, server, node), ...addressProblems(ctx, server, node)];
}

/** One sentence per problem, each saying who asks for it. */
const describe = (ctx: ConformanceContext, problems: readonly Problem[]): string =>
  problems.map((p) => `${p.text} (${requiredBy(p.origin, ctx.cloud)})`).join('; ');

/**
 * Once every server's Node is initialised (untainted), what is still missing after this long is the outcome:
 * upstream writes providerID and labels with the taint's removal and the addresses in the update right after.
 */
export const SETTLE_MS = 5000;

export async function nodeInit(ctx: ConformanceContext): Promise<string> {
  const servers = await clusterServers(ctx);
  for (const s of servers) ctx.involve({ kind: 'Node', name: s.name });
  let allInitialisedAt: number | undefined;
  // The taint can go a moment before the addresses arrive (upstream writes them in a second update): the
  // check waits for the whole picture, and fails SETTLE_MS after every Node is initialised if a field is missing.
  const outcome = await until(ctx, `${servers.length} initialised Nodes with the cloud's providerID, labels and addresses`, async () => {
    const all = await listNodes(ctx);
    const tainted = all.filter((n) => hasTaint(n, UNINITIALIZED_TAINT)).map((n) => n.metadata?.name);
    const missing = servers.filter((s) => !all.some((n) => n.metadata?.name === s.name)).map((s) => s.name);
    if (tainted.length > 0 || missing.length > 0)
      throw new Error(
        [tainted.length ? `still tainted ${UNINITIALIZED_TAINT}: ${tainted.join(', ')}` : '', missing.length ? `no Node yet for ${missing.join(', ')}` : '']
          .filter(Boolean)
          .join('; '),
      );
    allInitialisedAt ??= Date.now();
    const problems = servers.flatMap((s) =>
      nodeProblems(
        ctx,
        s,
        all.find((n) => n.metadata?.name === s.name)!,
      ),
    );
    if (problems.length === 0) return { nodes: all, problems };
    if (Date.now() - allInitialisedAt >= SETTLE_MS) return { nodes: all, problems };
    throw new Error(describe(ctx, problems));
  });
  check(
    outcome.problems.length === 0,
    `all ${servers.length} Nodes initialised, and ${(SETTLE_MS / 1000).toFixed(0)} s later still: ${describe(ctx, outcome.problems)}`,
  );
  ctx.memory.initialisedAt = Date.now();
  const unchecked = ctx.profile === 'cloud' ? [] : Object.keys(ctx.cloud.conformance.nodeLabels);
  const note = unchecked.length ? `; not checked (${ctx.cloud.kind}'s own CCM adds them, --profile cloud checks them): ${unchecked.join(', ')}` : '';
  return `${outcome.nodes.length} nodes: ${ctx.cloud.providerId(servers[0]?.id ?? 'srv-0').replace(/\d+$/, '…')}${note}`;
}

/**
 * Deletes a server as the cloud's user deletes it (through the persona where that does more, e.g. Linode's
 * drops the instance's VPC ip_ranges), else through /v1.
 */
export async function deleteServer(ctx: Pick<ConformanceContext, 'sandbox' | 'cloud'>, serverId: string): Promise<void> {
  const sim = ctx.sandbox.state.simcloud;
  const machines = sim && ctx.cloud.machines?.({ endpoint: sim.url, token: sim.token });
  if (machines?.deleteMachine) await machines.deleteMachine(serverId);
  else await ctx.sandbox.client.servers.delete(serverId);
}

/** How long a vanished server's Node may take to go: the node lifecycle controller's period plus its retries. */
export const VANISHED_NODE_MS = 90_000;

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
  await deleteServer(ctx, victim.id);
  await until(
    ctx,
    `Node ${victim.name} deleted after its server was deleted`,
    async () => !(await listNodes(ctx)).some((n) => n.metadata?.name === victim.name),
    Math.max(ctx.timeoutMs, VANISHED_NODE_MS),
  );
  return `${victim.name}: tainted while off, cleared when on, deleted with its server`;
}
