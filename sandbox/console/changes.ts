// What changed, and why, on each side: simcloud resource changes (from the `/_sim/events` stream, diffed
// against the last version seen) and Kubernetes Node/Service changes (diffed between two polls). Each
// change becomes one or more timeline steps with the controller and upstream method that caused it.
// Pure: the caller keeps the previous versions.
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { LoadBalancerCleanupFinalizer } from '../../src/controllers/service/needs-update.ts';
import { TaintKey } from '../../src/kube/taints.ts';
import { Controller, UpstreamMethod } from './explain.ts';

export interface ChangeStep {
  readonly group: string;
  readonly title: string;
  readonly sentence: string;
  readonly controller: string | null;
  readonly method: UpstreamMethod | null;
}

export const SHUTDOWN_TAINT = TaintKey.Shutdown;
export const UNINITIALIZED_TAINT = TaintKey.Uninitialized;
export const LB_FINALIZER = LoadBalancerCleanupFinalizer;

type Doc = Readonly<Record<string, unknown>>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const labelsOf = (d: Doc | null | undefined): Record<string, string> => (d?.labels ?? d?.tags ?? {}) as Record<string, string>;

/** `Service/<ns>/<name>` from the owner label/tag (`<ns>.<name>`; namespaces have no dots). */
export function serviceGroupOf(d: Doc | null | undefined): string | undefined {
  const v = labelsOf(d)['simcloud.dev/service'] ?? labelsOf(d).service;
  if (!v) return undefined;
  const dot = v.indexOf('.');
  return dot < 0 ? undefined : `Service/${v.slice(0, dot)}/${v.slice(dot + 1)}`;
}

// ---- simcloud resource changes ---------------------------------------------------------------------

export interface ResourceChange {
  readonly change: 'created' | 'updated' | 'deleted';
  readonly resource_type: string;
  readonly resource_id: string;
  readonly resource: Doc | null;
}

const SERVER_STATUS: Record<string, string> = {
  initializing: 'is being created',
  starting: 'is starting: its kubelet will post Ready again, and the lifecycle controller will lift the shutdown taint',
  running: 'is running: its kubelet posts status, so the Node is (or soon becomes) Ready',
  stopping: 'is powering off',
  off: 'is off: its kubelet goes silent, so kube-controller-manager soon marks the Node NotReady, and then the CCM\'s lifecycle controller asks the cloud InstanceExists and InstanceShutdown',
  deleting: 'is being deleted',
};

function serverStep(c: ResourceChange, before: Doc | undefined): ChangeStep {
  const doc = c.resource ?? before ?? {};
  const name = str(doc.name) || c.resource_id;
  const group = `Node/${name}`;
  if (c.change === 'deleted') {
    return { group, title: `server ${name} deleted`, sentence: `Server ${name} no longer exists in the cloud: once its Node is NotReady, InstanceExists answers not found and cloud-node-lifecycle-controller deletes the Node.`, controller: null, method: null };
  }
  const status = str(doc.status);
  const was = before ? str(before.status) : '';
  if (c.change === 'created') {
    return { group, title: `server ${name} created`, sentence: `Server ${name} was created in the cloud (${status}); with the cluster's label it boots a kubelet that registers a Node, which the CCM then initialises.`, controller: null, method: null };
  }
  const title = was && was !== status ? `server ${name}: ${was} → ${status}` : `server ${name} updated (${status})`;
  return { group, title, sentence: `Server ${name} ${SERVER_STATUS[status] ?? `is ${status}`}.`, controller: null, method: null };
}

function healthOf(d: Doc | undefined): string {
  const targets = (d?.resolved_targets ?? []) as { id: string; health: { listen_port: number; status: string }[] }[];
  return targets.map((t) => `${t.id}:${t.health.map((h) => `${h.listen_port}=${h.status}`).join(',')}`).sort().join(' ');
}

function lbUpdateStep(name: string, doc: Doc, before: Doc | undefined): Omit<ChangeStep, 'group' | 'method'> {
  const status = str(doc.status);
  const was = before ? str(before.status) : status;
  if (was !== status) {
    const active = status === 'active' ? `: its VIP ${str(doc.public_ipv4)} accepts traffic and forwards it to the node ports` : '';
    return { controller: Controller.service, title: `${name}: ${was} → ${status}`, sentence: `${name} is ${status}${active}.` };
  }
  if (before && healthOf(before) !== healthOf(doc)) {
    return { controller: null, title: `${name}: target health ${healthOf(doc) || 'none'}`, sentence: 'The load balancer\'s health checks changed a target\'s state: traffic goes only to healthy targets.' };
  }
  return { controller: Controller.service, title: `${name} updated`, sentence: `${name} changed: listeners, targets or source ranges now match what the CCM asked for.` };
}

function lbStep(c: ResourceChange, before: Doc | undefined): ChangeStep {
  const doc = c.resource ?? before ?? {};
  const group = serviceGroupOf(doc) ?? `LoadBalancer/${c.resource_id}`;
  const base = { group, controller: Controller.service, method: null };
  const name = `load balancer ${c.resource_id}`;
  if (c.change === 'created') return { ...base, title: `${name} created (VIP ${str(doc.public_ipv4)})`, sentence: `The cloud created ${name} with VIP ${str(doc.public_ipv4)}; it is ${str(doc.status)} until its action finishes.` };
  if (c.change === 'deleted') return { ...base, title: `${name} deleted`, sentence: `The cloud deleted ${name}: its VIP no longer answers.` };
  return { ...base, ...lbUpdateStep(name, doc, before) };
}

function routesOf(d: Doc | undefined): Set<string> {
  return new Set(((d?.routes ?? []) as { destination: string; gateway: string }[]).map((r) => `${r.destination} → ${r.gateway}`));
}

function networkSteps(c: ResourceChange, before: Doc | undefined, groupOf: (type: string, id: string) => string): ChangeStep[] {
  const now = routesOf(c.resource ?? undefined);
  const was = routesOf(before);
  // A route's group is its Node's, found by the gateway (the Node's internal IP).
  const base = (r: string): { group: string; controller: Controller } => ({ group: groupOf('gateway', r.split(' → ')[1] ?? ''), controller: Controller.route });
  const added = [...now].filter((r) => !was.has(r)).map((r) => ({
    ...base(r), method: UpstreamMethod.CreateRoute, title: `route ${r} added`, sentence: `The network now routes ${r}: pod traffic for that Node's podCIDR goes to the Node (CreateRoute).`,
  }));
  const removed = [...was].filter((r) => !now.has(r)).map((r) => ({
    ...base(r), method: UpstreamMethod.DeleteRoute, title: `route ${r} removed`, sentence: `The route ${r} is gone: its Node or podCIDR no longer exists (DeleteRoute).`,
  }));
  return [...added, ...removed];
}

const KIND_TEXT: Record<string, string> = {
  server_group: 'server group (the load balancer\'s target: the Service\'s nodes)',
  firewall_policy: 'firewall policy (opens the node ports to the allowed sources)',
  ip_block: 'IP block (gives the VIP)',
};

function ownedStep(c: ResourceChange, before: Doc | undefined): ChangeStep {
  const doc = c.resource ?? before ?? {};
  const group = serviceGroupOf(doc) ?? `Cloud/${c.resource_id}`;
  const what = KIND_TEXT[c.resource_type] ?? c.resource_type.replace(/_/g, ' ');
  const members = c.resource_type === 'server_group' ? ` Members: ${((doc.servers ?? []) as string[]).join(', ') || 'none'}.` : '';
  return {
    group, controller: Controller.service, method: c.change === 'deleted' ? UpstreamMethod.EnsureLoadBalancerDeleted : null,
    title: `${c.resource_type.replace(/_/g, ' ')} ${c.resource_id} ${c.change}`,
    sentence: `The ${what} ${c.resource_id} was ${c.change}.${members}`,
  };
}

function actionStep(c: ResourceChange, groupOfResource: (type: string, id: string) => string): ChangeStep | undefined {
  const doc = c.resource ?? {};
  const refs = (doc.resources ?? []) as { type: string; id: string }[];
  const ref = refs[0];
  const group = ref ? groupOfResource(ref.type, ref.id) : 'Cloud';
  const status = str(doc.status);
  if (c.change === 'deleted') return undefined;
  return {
    group, controller: null, method: null,
    title: `action ${str(doc.command)} ${status}`,
    sentence: `The cloud's asynchronous action ${str(doc.command)} (${c.resource_id}) is ${status}${status === 'running' ? '; clients poll GET /v1/actions/{id} until it finishes' : ''}.`,
  };
}

/** Steps for one simcloud resource change; `before` is the last version seen (if any). */
export function explainResourceChange(c: ResourceChange, before: Doc | undefined, groupOfResource: (type: string, id: string) => string): ChangeStep[] {
  switch (c.resource_type) {
    case 'server':
      return [serverStep(c, before)];
    case 'load_balancer':
      return [lbStep(c, before)];
    case 'network':
      return networkSteps(c, before, groupOfResource);
    case 'action': {
      const step = actionStep(c, groupOfResource);
      return step ? [step] : [];
    }
    case 'server_group':
    case 'firewall_policy':
    case 'ip_block':
      return [ownedStep(c, before)];
    default:
      return [];
  }
}

// ---- Kubernetes Node and Service changes ------------------------------------------------------------

export function readyOf(node: V1Node | undefined): string {
  return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

const taintsOf = (node: V1Node | undefined): Set<string> => new Set((node?.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`));

const TAINT_ADDED: Record<string, { sentence: string; controller: string | null; method: UpstreamMethod | null }> = {
  [SHUTDOWN_TAINT]: { sentence: 'cloud-node-lifecycle-controller added the shutdown taint: the Node is NotReady and InstanceShutdown said its server is off, so its pods are not considered lost yet.', controller: Controller.lifecycle, method: UpstreamMethod.InstanceShutdown },
  [UNINITIALIZED_TAINT]: { sentence: 'The kubelet (with --cloud-provider=external) registered the Node with the uninitialized taint: no pod lands on it until the CCM initialises it.', controller: null, method: null },
  'node.kubernetes.io/unreachable': { sentence: 'kube-controller-manager tainted the Node unreachable: its kubelet stopped posting status.', controller: 'kube-controller-manager', method: null },
  'node.kubernetes.io/not-ready': { sentence: 'kube-controller-manager tainted the Node not-ready.', controller: 'kube-controller-manager', method: null },
};

const TAINT_REMOVED: Record<string, { sentence: string; controller: string | null; method: UpstreamMethod | null }> = {
  [SHUTDOWN_TAINT]: { sentence: 'The Node is Ready again, so cloud-node-lifecycle-controller removed the shutdown taint.', controller: Controller.lifecycle, method: null },
  [UNINITIALIZED_TAINT]: { sentence: 'cloud-node-controller initialised the Node from its server (InstanceMetadata) and removed the uninitialized taint: pods can be scheduled.', controller: Controller.node, method: UpstreamMethod.InstanceMetadata },
};

function taintSteps(name: string, before: V1Node, after: V1Node): ChangeStep[] {
  const was = taintsOf(before);
  const now = taintsOf(after);
  const step = (t: string, added: boolean): ChangeStep => {
    const key = t.split(':')[0]!;
    const known = (added ? TAINT_ADDED : TAINT_REMOVED)[key];
    return {
      group: `Node/${name}`, title: `taint ${t} ${added ? 'added' : 'removed'}`,
      sentence: known?.sentence ?? `The taint ${t} was ${added ? 'added' : 'removed'}.`, controller: known?.controller ?? null, method: known?.method ?? null,
    };
  };
  return [...[...now].filter((t) => !was.has(t)).map((t) => step(t, true)), ...[...was].filter((t) => !now.has(t)).map((t) => step(t, false))];
}

function readySteps(name: string, before: V1Node, after: V1Node): ChangeStep[] {
  const was = readyOf(before);
  const now = readyOf(after);
  if (was === now) return [];
  const sentence = now === 'True'
    ? `Node ${name} is Ready: its kubelet posts status again.`
    : `Node ${name} is NotReady (Ready=${now}): its kubelet stopped posting status (server off, rebooting or gone); cloud-node-lifecycle-controller now checks the cloud (InstanceExists, InstanceShutdown) every node-monitor period.`;
  return [{ group: `Node/${name}`, title: `Node ${name} ${now === 'True' ? 'Ready' : 'NotReady'} (Ready ${was} → ${now})`, sentence, controller: now === 'True' ? 'kubelet' : 'kube-controller-manager', method: null }];
}

const netOf = (n: V1Node): string => n.status?.conditions?.find((c) => c.type === 'NetworkUnavailable')?.status ?? '';

function fieldSteps(name: string, before: V1Node, after: V1Node): ChangeStep[] {
  const steps: ChangeStep[] = [];
  const group = `Node/${name}`;
  const was = { providerID: before.spec?.providerID, podCIDR: before.spec?.podCIDR };
  const { providerID, podCIDR } = after.spec ?? {};
  if (!was.providerID && providerID) {
    steps.push({ group, title: `providerID ${providerID}`, sentence: `cloud-node-controller set providerID ${providerID}, the link from Node ${name} to its server, with instance-type, zone and region labels (InstanceMetadata).`, controller: Controller.node, method: UpstreamMethod.InstanceMetadata });
  }
  if (!was.podCIDR && podCIDR) {
    steps.push({ group, title: `podCIDR ${podCIDR}`, sentence: `kube-controller-manager's node-ipam gave Node ${name} the podCIDR ${podCIDR}; node-route-controller will create a cloud route for it (CreateRoute).`, controller: 'kube-controller-manager', method: null });
  }
  if (netOf(before) !== 'False' && netOf(after) === 'False') {
    steps.push({ group, title: 'NetworkUnavailable=False (RouteCreated)', sentence: `node-route-controller created the route for Node ${name}'s podCIDR and set NetworkUnavailable=False.`, controller: Controller.route, method: UpstreamMethod.CreateRoute });
  }
  return steps;
}

const nameOf = (a: { metadata?: { name?: string } } | undefined, b: { metadata?: { name?: string } } | undefined): string => a?.metadata?.name ?? b?.metadata?.name ?? '';

/** Steps for a Node that appeared, changed or disappeared between two polls. */
export function diffNode(before: V1Node | undefined, after: V1Node | undefined): ChangeStep[] {
  const name = nameOf(after, before);
  const group = `Node/${name}`;
  if (!before) return after ? [{ group, title: `Node ${name} registered`, sentence: `The kubelet of ${name} registered its Node (with the uninitialized taint, as kubelets with --cloud-provider=external do).`, controller: 'kubelet', method: null }] : [];
  if (!after) return [{ group, title: `Node ${name} deleted`, sentence: `Node ${name} is gone: cloud-node-lifecycle-controller deleted it because InstanceExists said its server no longer exists.`, controller: Controller.lifecycle, method: UpstreamMethod.InstanceExists }];
  return [...readySteps(name, before, after), ...taintSteps(name, before, after), ...fieldSteps(name, before, after)];
}

const ingressOf = (s: V1Service | undefined): string => (s?.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? '').join(', ');
const hasFinalizer = (s: V1Service | undefined): boolean => s?.metadata?.finalizers?.includes(LB_FINALIZER) ?? false;

function finalizerSteps(group: string, before: V1Service, after: V1Service): ChangeStep[] {
  const svc = { group, controller: Controller.service };
  if (!hasFinalizer(before) && hasFinalizer(after)) return [{ ...svc, method: UpstreamMethod.EnsureLoadBalancer, title: `finalizer ${LB_FINALIZER} added`, sentence: 'service-lb-controller added the cleanup finalizer before touching the cloud, so the Service cannot disappear before its cloud resources are deleted.' }];
  if (hasFinalizer(before) && !hasFinalizer(after)) return [{ ...svc, method: UpstreamMethod.EnsureLoadBalancerDeleted, title: `finalizer ${LB_FINALIZER} removed`, sentence: 'service-lb-controller removed the cleanup finalizer: EnsureLoadBalancerDeleted finished.' }];
  return [];
}

function deletingSteps(group: string, before: V1Service, after: V1Service): ChangeStep[] {
  if (before.metadata?.deletionTimestamp || !after.metadata?.deletionTimestamp) return [];
  return [{ group, controller: null, method: null, title: `${group} deleting`, sentence: 'The Service was deleted; the finalizer holds it until service-lb-controller has removed its cloud resources.' }];
}

function ingressSteps(group: string, before: V1Service, after: V1Service): ChangeStep[] {
  if (ingressOf(before) === ingressOf(after)) return [];
  const ip = ingressOf(after);
  const sentence = ip ? `EnsureLoadBalancer returned the VIP ${ip}; service-lb-controller wrote it into status.loadBalancer.ingress.` : 'The Service\'s status.loadBalancer.ingress was cleared.';
  return [{ group, controller: Controller.service, method: UpstreamMethod.EnsureLoadBalancer, title: ip ? `ingress ${ip}` : 'ingress cleared', sentence }];
}

/** Steps for a LoadBalancer Service that appeared, changed or disappeared between two polls. */
export function diffService(before: V1Service | undefined, after: V1Service | undefined): ChangeStep[] {
  const meta = (after ?? before)?.metadata;
  const key = `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
  const group = `Service/${key}`;
  if (!before) return after ? [{ group, controller: null, method: null, title: `Service ${key} created`, sentence: `A LoadBalancer Service ${key} was created: service-lb-controller will add its finalizer and call EnsureLoadBalancer.` }] : [];
  if (!after) return [{ group, controller: Controller.service, method: null, title: `Service ${key} deleted`, sentence: `Service ${key} is gone: its finalizer was removed after EnsureLoadBalancerDeleted.` }];
  return [...finalizerSteps(group, before, after), ...deletingSteps(group, before, after), ...ingressSteps(group, before, after)];
}
