// The end state of a differential run, as `path -> text` leaves with roles applied (roles.ts): the Node
// objects (providerID, labels, addresses, taints, conditions), each Service's load-balancer status and
// finalizers, the Events of every object (reason and message, per reporting component), and the cloud
// resources the cluster owns (by kind and name), so two runs compare leaf by leaf.
import type { CoordinationV1Api, CoreV1Api, CoreV1Event, V1Node, V1Service } from '@kubernetes/client-node';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import { controllerOf, operationOf, type CallRecord } from '../../scripts/bench/calls.ts';
import { flatten, type Roles } from './roles.ts';

export type Snapshot = Map<string, string>;

export interface SnapshotSources {
  readonly core: CoreV1Api;
  readonly cloud: SimcloudClient;
  /** For the CCM's leader Lease: its holder identity (`<host>_<uuid>`) differs per process. */
  readonly leases: CoordinationV1Api;
  /** Services of the scenario (namespace/name), so a deleted one is reported as gone. */
  readonly services: readonly string[];
}

export interface CloudState {
  readonly servers: Awaited<ReturnType<SimcloudClient['servers']['listAll']>>;
  readonly loadBalancers: Awaited<ReturnType<SimcloudClient['loadBalancers']['listAll']>>;
  readonly serverGroups: Awaited<ReturnType<SimcloudClient['serverGroups']['listAll']>>;
  readonly firewallPolicies: Awaited<ReturnType<SimcloudClient['firewallPolicies']['listAll']>>;
  readonly ipBlocks: Awaited<ReturnType<SimcloudClient['ipBlocks']['listAll']>>;
  readonly networks: Awaited<ReturnType<SimcloudClient['networks']['listAll']>>;
}

export async function readCloud(cloud: SimcloudClient): Promise<CloudState> {
  const [servers, loadBalancers, serverGroups, firewallPolicies, ipBlocks, networks] = await Promise.all([
    cloud.servers.listAll(),
    cloud.loadBalancers.listAll(),
    cloud.serverGroups.listAll(),
    cloud.firewallPolicies.listAll(),
    cloud.ipBlocks.listAll(),
    cloud.networks.listAll(),
  ]);
  return { servers, loadBalancers, serverGroups, firewallPolicies, ipBlocks, networks };
}

/** Learns the roles of everything that exists now (call it before resources are deleted, too). */
export async function learnRoles(roles: Roles, s: SnapshotSources): Promise<void> {
  const [nodes, services, cloud] = await Promise.all([s.core.listNode(), s.core.listServiceForAllNamespaces(), readCloud(s.cloud)]);
  roles.nodes(nodes.items);
  roles.services(services.items);
  roles.servers(cloud.servers);
  roles.cloud(cloud);
  const lease = await s.leases.readNamespacedLease({ name: 'cloud-controller-manager', namespace: 'kube-system' }).catch(() => undefined);
  roles.add(lease?.spec?.holderIdentity, 'lease(kube-system/cloud-controller-manager).holderIdentity');
}

export async function takeSnapshot(roles: Roles, s: SnapshotSources): Promise<Snapshot> {
  await learnRoles(roles, s);
  const [nodes, services, events, cloud] = await Promise.all([
    s.core.listNode(),
    s.core.listServiceForAllNamespaces(),
    s.core.listEventForAllNamespaces(),
    readCloud(s.cloud),
  ]);
  const out: Snapshot = new Map();
  for (const n of nodes.items) nodeLeaves(roles, n, out);
  const byName = new Map(services.items.map((svc) => [`${svc.metadata?.namespace}/${svc.metadata?.name}`, svc]));
  for (const name of s.services) serviceLeaves(roles, name, byName.get(name), out);
  for (const [key, messages] of eventGroups(roles, events.items)) out.set(key, [...messages].sort().join(' | '));
  cloudLeaves(roles, cloud, out);
  return out;
}

/**
 * Taints the kubelet and the kube-controller-manager's node lifecycle own (not-ready, unreachable, with
 * NoSchedule and NoExecute on their own timing); the CCM's are node.cloudprovider.kubernetes.io/*.
 */
const KUBE_TAINT = /^node\.kubernetes\.io\//;

function nodeLeaves(roles: Roles, n: V1Node, out: Snapshot): void {
  const base = `node/${n.metadata?.name}`;
  const { metadata = {}, spec = {}, status = {} } = n;
  out.set(`${base}/providerID`, roles.apply(spec.providerID ?? '-'));
  const put = (kind: string, entries: Record<string, string> = {}): void => {
    for (const [k, v] of Object.entries(entries)) out.set(`${base}/${kind}/${k}`, roles.apply(v));
  };
  put('label', metadata.labels);
  put('annotation', metadata.annotations);
  put('taint', Object.fromEntries((spec.taints ?? []).filter((t) => !KUBE_TAINT.test(t.key)).map((t) => [`${t.key}:${t.effect}`, t.value ?? ''])));
  nodeStatusLeaves(roles, base, status, out);
}

function nodeStatusLeaves(roles: Roles, base: string, status: NonNullable<V1Node['status']>, out: Snapshot): void {
  const byType = new Map<string, string[]>();
  for (const a of status.addresses ?? []) byType.set(a.type, [...(byType.get(a.type) ?? []), roles.apply(a.address)]);
  for (const [type, list] of byType) out.set(`${base}/address/${type}`, list.join(', '));
  for (const c of status.conditions ?? []) out.set(`${base}/condition/${c.type}`, `${c.status} ${c.reason ?? ''}: ${roles.apply(c.message ?? '')}`);
}

function serviceLeaves(roles: Roles, name: string, svc: V1Service | undefined, out: Snapshot): void {
  const base = `service/${name}`;
  if (!svc) {
    out.set(`${base}/exists`, 'false');
    return;
  }
  out.set(`${base}/finalizers`, `[${[...(svc.metadata?.finalizers ?? [])].sort().join(', ')}]`);
  flatten(roles, svc.status ?? {}, `${base}/status`, out);
}

/**
 * The components a cloud-controller-manager records Events as (its controllers' and its leader
 * election's). Events of the kube-controller-manager and the apiserver say what they did, on their own
 * timing, not what the CCM did.
 */
export const CCM_EVENT_SOURCES: ReadonlySet<string> = new Set([
  'cloud-node-controller',
  'cloud-node-lifecycle-controller',
  'service-controller',
  'route_controller',
  'cloud-controller-manager',
]);

/** Event messages per object, reporting component, type and reason (counts and times vary run to run). */
function eventGroups(roles: Roles, events: readonly CoreV1Event[]): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  for (const e of events) {
    const source = e.source?.component ?? e.reportingComponent ?? '';
    if (!CCM_EVENT_SOURCES.has(source)) continue;
    const key = `event/${eventObject(roles, e)}/${source}/${e.type}/${e.reason}`;
    groups.set(key, (groups.get(key) ?? new Set<string>()).add(roles.apply(e.message ?? '')));
  }
  return groups;
}

function eventObject(roles: Roles, e: CoreV1Event): string {
  const o = e.involvedObject;
  return `${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${roles.apply(o.name ?? '')}`;
}

function cloudLeaves(roles: Roles, c: CloudState, out: Snapshot): void {
  const kinds: [string, readonly { name?: string | null; id: string }[]][] = [
    ['server', c.servers],
    ['load_balancer', c.loadBalancers.map((lb) => ({ ...lb, resolved_targets: lb.resolved_targets.map(({ health: _health, ...t }) => t) }))],
    ['server_group', c.serverGroups],
    ['firewall_policy', c.firewallPolicies],
    ['ip_block', c.ipBlocks.map((b) => ({ ...b, name: b.description }))],
    ['network', c.networks],
  ];
  for (const [kind, items] of kinds) {
    for (const item of items) {
      const { id: _id, ...rest } = item;
      flatten(roles, rest, `cloud/${kind}/${roles.apply(item.name ?? item.id)}`, out);
    }
  }
}

/**
 * Which cloud operations each controller used. How often varies with timing and is the benchmark's
 * business; so does which cloud-provider method a shared list is fetched for (a list cache refreshes
 * for whichever asks first), so the method is left out.
 */
export function callLeaves(calls: readonly CallRecord[], out: Snapshot): void {
  for (const c of calls) out.set(`calls/${controllerOf(c)}/${operationOf(c)}`, 'used');
}
