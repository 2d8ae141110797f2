// What changed, and why, on each side: simcloud resource changes and target health (from the
// `/_sim/events` stream, a change diffed against the last version of its record) and Kubernetes
// Node/Service changes (diffed between two polls). Each change becomes one or more timeline steps with
// the controller and upstream method that caused it. Pure: the caller keeps the previous versions.
import type { V1Service } from '@kubernetes/client-node';
import type {
  ActionRecord,
  LoadBalancerRecord,
  NetworkRecord,
  ResourceChangeEvent,
  ServerRecord,
  TargetHealthEvent,
} from '../../simulator/api/schema/events.ts';
import { LoadBalancerCleanupFinalizer } from '../../src/controllers/service/needs-update.ts';
import { TaintKey } from '../../src/kube/taints.ts';
import { Controller, CloudMethod } from './explain.ts';

export interface ChangeStep {
  readonly group: string;
  readonly title: string;
  readonly sentence: string;
  readonly controller: string | null;
  readonly method: CloudMethod | null;
}

export const SHUTDOWN_TAINT = TaintKey.Shutdown;
export const UNINITIALIZED_TAINT = TaintKey.Uninitialized;
export const LB_FINALIZER = LoadBalancerCleanupFinalizer;

/** A resource that may carry owner labels (most resources) or tags (IP blocks). */
export interface Labelled {
  readonly id: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly tags?: Readonly<Record<string, string>>;
}

/** `Service/<ns>/<name>` from the owner label/tag (`<ns>.<name>`; namespaces have no dots). */
export function serviceGroupOf(d: Labelled | null | undefined): string | undefined {
  const v = d?.labels?.['simcloud.dev/service'] ?? d?.tags?.service;
  if (!v) return undefined;
  const dot = v.indexOf('.');
  return dot < 0 ? undefined : `Service/${v.slice(0, dot)}/${v.slice(dot + 1)}`;
}

/** The group of a resource the explainer does not hold itself: a Node by a gateway IP, a Service by owner. */
export type GroupOf = (type: string, id: string) => string;

// ---- simcloud resource changes ---------------------------------------------------------------------

/** A change of one resource type, with the last version seen of the same record (if any). */
type ChangeOf<T extends ResourceChangeEvent['resource_type']> = Extract<ResourceChangeEvent, { resource_type: T }>;
type RecordOf<T extends ResourceChangeEvent['resource_type']> = NonNullable<ChangeOf<T>['resource']>;

const SERVER_STATUS: Record<ServerRecord['status'], string> = {
  initializing: 'is being created',
  starting: 'is starting: its kubelet will post Ready again, and the lifecycle controller will lift the shutdown taint if the Node has it',
  running: 'is running: its kubelet posts status, so the Node is (or soon becomes) Ready',
  stopping: 'is powering off',
  off: "is off: its kubelet goes silent, so kube-controller-manager soon marks the Node NotReady, and then the CCM's lifecycle controller asks the cloud InstanceExists and InstanceShutdown",
  deleting: 'is being deleted',
};

const FIRST_BOOT = 'is booting for the first time: its kubelet will register a Node with the uninitialized taint, which the CCM then initialises';

/** A server booting for the first time has no Node yet, let alone a shutdown taint: only one that was off comes back. */
function statusSentence(status: ServerRecord['status'], was: ServerRecord['status'] | undefined): string {
  return status === 'starting' && (was === undefined || was === 'initializing') ? FIRST_BOOT : SERVER_STATUS[status];
}

function serverStep(c: ChangeOf<'server'>, before: ServerRecord | undefined): ChangeStep {
  const name = c.resource?.name ?? before?.name ?? c.resource_id;
  const group = `Node/${name}`;
  const base = { group, controller: null, method: null };
  if (c.resource === null) {
    return {
      ...base,
      title: `server ${name} deleted`,
      sentence: `Server ${name} no longer exists in the cloud: once its Node is NotReady, InstanceExists answers not found and cloud-node-lifecycle-controller deletes the Node.`,
    };
  }
  const { status } = c.resource;
  if (c.change === 'created') {
    return {
      ...base,
      title: `server ${name} created`,
      sentence: `Server ${name} was created in the cloud (${status}); with the cluster's label it boots a kubelet that registers a Node, which the CCM then initialises.`,
    };
  }
  const was = before?.status;
  const title = was !== undefined && was !== status ? `server ${name}: ${was} → ${status}` : `server ${name} updated (${status})`;
  return { ...base, title, sentence: `Server ${name} ${statusSentence(status, was)}.` };
}

function lbUpdateStep(name: string, lb: LoadBalancerRecord, before: LoadBalancerRecord | undefined): Omit<ChangeStep, 'group' | 'method'> {
  const was = before?.status ?? lb.status;
  if (was !== lb.status) {
    const active = lb.status === 'active' ? `: its VIP ${lb.public_ipv4} accepts traffic and forwards it to the node ports` : '';
    return { controller: Controller.service, title: `${name}: ${was} → ${lb.status}`, sentence: `${name} is ${lb.status}${active}.` };
  }
  return {
    controller: Controller.service,
    title: `${name} updated`,
    sentence: `${name} changed: listeners, targets or source ranges now match what the CCM asked for.`,
  };
}

function lbStep(c: ChangeOf<'load_balancer'>, before: LoadBalancerRecord | undefined): ChangeStep {
  const lb = c.resource ?? before;
  const group = serviceGroupOf(lb) ?? `LoadBalancer/${c.resource_id}`;
  const base = { group, controller: Controller.service, method: null };
  const name = `load balancer ${c.resource_id}`;
  if (c.resource === null) return { ...base, title: `${name} deleted`, sentence: `The cloud deleted ${name}: its VIP no longer answers.` };
  const vip = c.resource.public_ipv4;
  if (c.change === 'created')
    return {
      ...base,
      title: `${name} created (VIP ${vip})`,
      sentence: `The cloud created ${name} with VIP ${vip}; it is ${c.resource.status} until its action finishes.`,
    };
  return { ...base, ...lbUpdateStep(name, c.resource, before) };
}

const HEALTH_WHY: Record<TargetHealthEvent['status'], string> = {
  healthy: 'its health check passes, so the load balancer sends it traffic again',
  unhealthy: 'its health check fails (nothing answers on the node port), so the load balancer sends it no traffic',
  unknown: 'it is no longer checked (it left the targets or the listener changed)',
};

/** A target's health on one listener changed: the data plane's doing, not the CCM's. */
export function explainTargetHealth(e: TargetHealthEvent, lb: LoadBalancerRecord | undefined): ChangeStep {
  const name = `load balancer ${e.load_balancer_id}`;
  return {
    group: serviceGroupOf(lb) ?? `LoadBalancer/${e.load_balancer_id}`,
    controller: null,
    method: null,
    title: `${name}: target ${e.target_id} port ${e.listen_port} ${e.status}`,
    sentence: `The health checks of ${name} find target ${e.target_id} ${e.status} on listener ${e.listen_port}: ${HEALTH_WHY[e.status]}.`,
  };
}

const routesOf = (n: NetworkRecord | undefined): Set<string> => new Set((n?.routes ?? []).map((r) => `${r.destination} → ${r.gateway}`));

function networkSteps(c: ChangeOf<'network'>, before: NetworkRecord | undefined, groupOf: GroupOf): ChangeStep[] {
  const now = routesOf(c.resource ?? undefined);
  const was = routesOf(before);
  // A route's group is its Node's, found by the gateway (the Node's internal IP).
  const base = (r: string): { group: string; controller: Controller } => ({ group: groupOf('gateway', r.split(' → ')[1] ?? ''), controller: Controller.route });
  const added = [...now]
    .filter((r) => !was.has(r))
    .map((r) => ({
      ...base(r),
      method: CloudMethod.createRoute,
      title: `route ${r} added`,
      sentence: `The network now routes ${r}: pod traffic for that Node's podCIDR goes to the Node (CreateRoute).`,
    }));
  const removed = [...was]
    .filter((r) => !now.has(r))
    .map((r) => ({
      ...base(r),
      method: CloudMethod.deleteRoute,
      title: `route ${r} removed`,
      sentence: `The route ${r} is gone: its Node or podCIDR no longer exists (DeleteRoute).`,
    }));
  return [...added, ...removed];
}

type Owned = ChangeOf<'server_group'> | ChangeOf<'firewall_policy'> | ChangeOf<'ip_block'> | ChangeOf<'certificate'>;

const KIND_TEXT: Record<Owned['resource_type'], string> = {
  server_group: "server group (the load balancer's target: the Service's nodes)",
  firewall_policy: 'firewall policy (opens the node ports to the allowed sources)',
  ip_block: 'IP block (gives the VIP)',
  certificate: 'certificate (TLS on the VIP)',
};

function ownedStep(c: Owned, before: RecordOf<Owned['resource_type']> | undefined): ChangeStep {
  const doc = c.resource ?? before;
  const members = c.resource_type === 'server_group' && c.resource ? ` Members: ${c.resource.servers.join(', ') || 'none'}.` : '';
  return {
    group: serviceGroupOf(doc) ?? `Cloud/${c.resource_id}`,
    controller: Controller.service,
    method: c.change === 'deleted' ? CloudMethod.ensureLoadBalancerDeleted : null,
    title: `${c.resource_type.replace(/_/g, ' ')} ${c.resource_id} ${c.change}`,
    sentence: `The ${KIND_TEXT[c.resource_type]} ${c.resource_id} was ${c.change}.${members}`,
  };
}

function actionStep(a: ActionRecord, groupOf: GroupOf): ChangeStep {
  const ref = a.resources[0];
  return {
    group: ref ? groupOf(ref.type, ref.id) : 'Cloud',
    controller: null,
    method: null,
    title: `action ${a.command} ${a.status}`,
    sentence: `The cloud's asynchronous action ${a.command} (${a.id}) is ${a.status}${a.status === 'running' ? '; clients poll GET /v1/actions/{id} until it finishes' : ''}.`,
  };
}

/** The record of `before` when it is of `c`'s type (always, for one id: ids are per resource type). */
function priorOf<E extends ResourceChangeEvent>(c: E, before: ResourceChangeEvent | undefined): NonNullable<E['resource']> | undefined {
  if (before?.resource_type !== c.resource_type || before.resource === null) return undefined;
  return before.resource;
}

/** Steps for one simcloud resource change; `before` is the last change seen of the same record (if any). */
export function explainResourceChange(c: ResourceChangeEvent, before: ResourceChangeEvent | undefined, groupOf: GroupOf): ChangeStep[] {
  switch (c.resource_type) {
    case 'server':
      return [serverStep(c, priorOf(c, before))];
    case 'load_balancer':
      return [lbStep(c, priorOf(c, before))];
    case 'network':
      return networkSteps(c, priorOf(c, before), groupOf);
    case 'action':
      return c.resource ? [actionStep(c.resource, groupOf)] : [];
    case 'server_group':
    case 'firewall_policy':
    case 'ip_block':
    case 'certificate':
      return [ownedStep(c, priorOf(c, before))];
    default: // a project
      return [];
  }
}

// ---- Kubernetes Service changes (Node changes: node-changes.ts) -------------------------------------

export const nameOf = (a: { metadata?: { name?: string } } | undefined, b: { metadata?: { name?: string } } | undefined): string =>
  a?.metadata?.name ?? b?.metadata?.name ?? '';

const ingressOf = (s: V1Service | undefined): string => (s?.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? '').join(', ');
const hasFinalizer = (s: V1Service | undefined): boolean => s?.metadata?.finalizers?.includes(LB_FINALIZER) ?? false;

function finalizerSteps(group: string, before: V1Service, after: V1Service): ChangeStep[] {
  const svc = { group, controller: Controller.service };
  if (!hasFinalizer(before) && hasFinalizer(after))
    return [
      {
        ...svc,
        method: CloudMethod.ensureLoadBalancer,
        title: `finalizer ${LB_FINALIZER} added`,
        sentence:
          'service-lb-controller added the cleanup finalizer before touching the cloud, so the Service cannot disappear before its cloud resources are deleted.',
      },
    ];
  if (hasFinalizer(before) && !hasFinalizer(after))
    return [
      {
        ...svc,
        method: CloudMethod.ensureLoadBalancerDeleted,
        title: `finalizer ${LB_FINALIZER} removed`,
        sentence: 'service-lb-controller removed the cleanup finalizer: EnsureLoadBalancerDeleted finished.',
      },
    ];
  return [];
}

function deletingSteps(group: string, before: V1Service, after: V1Service): ChangeStep[] {
  if (before.metadata?.deletionTimestamp || !after.metadata?.deletionTimestamp) return [];
  return [
    {
      group,
      controller: null,
      method: null,
      title: `${group} deleting`,
      sentence: 'The Service was deleted; the finalizer holds it until service-lb-controller has removed its cloud resources.',
    },
  ];
}

function ingressSteps(group: string, before: V1Service, after: V1Service): ChangeStep[] {
  if (ingressOf(before) === ingressOf(after)) return [];
  const ip = ingressOf(after);
  const sentence = ip
    ? `EnsureLoadBalancer returned the VIP ${ip}; service-lb-controller wrote it into status.loadBalancer.ingress.`
    : "The Service's status.loadBalancer.ingress was cleared.";
  return [{ group, controller: Controller.service, method: CloudMethod.ensureLoadBalancer, title: ip ? `ingress ${ip}` : 'ingress cleared', sentence }];
}

/** Steps for a LoadBalancer Service that appeared, changed or disappeared between two polls. */
export function diffService(before: V1Service | undefined, after: V1Service | undefined): ChangeStep[] {
  const meta = (after ?? before)?.metadata;
  const key = `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
  const group = `Service/${key}`;
  if (!before)
    return after
      ? [
          {
            group,
            controller: null,
            method: null,
            title: `Service ${key} created`,
            sentence: `A LoadBalancer Service ${key} was created: service-lb-controller will add its finalizer and call EnsureLoadBalancer.`,
          },
        ]
      : [];
  if (!after)
    return [
      {
        group,
        controller: Controller.service,
        method: null,
        title: `Service ${key} deleted`,
        sentence: `Service ${key} is gone: its finalizer was removed after EnsureLoadBalancerDeleted.`,
      },
    ];
  return [...finalizerSteps(group, before, after), ...deletingSteps(group, before, after), ...ingressSteps(group, before, after)];
}
