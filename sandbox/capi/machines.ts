// The pure half of the sandbox's Cluster API controller: the MachineDeployment and Machine objects as read
// from the API (zod), what a deployment's machines need done (create, delete, finalise), which machines a
// scale-down removes, and the statuses Cluster API would report, from the machines, their servers and
// their Nodes. No I/O here; sandbox/capi/controller.ts acts on it.
import { z } from 'zod';
import type { V1Node } from '@kubernetes/client-node';
import { CAPI_API_VERSION } from './crds.ts';

export const CAPI_LABELS = {
  clusterName: 'cluster.x-k8s.io/cluster-name',
  deploymentName: 'cluster.x-k8s.io/deployment-name',
} as const;

/** Holds a Machine until its server is deleted and its Node removed (Cluster API's finalizer name). */
export const MACHINE_FINALIZER = 'machine.cluster.x-k8s.io';
/** The simcloud server a Machine stands for, kept once known (a server can be renamed through a cloud API). */
export const SERVER_ID_ANNOTATION = 'ccm-sandbox.dev/server-id';

export const DELETE_POLICIES = ['Newest', 'Oldest'] as const;
export type DeletePolicy = (typeof DELETE_POLICIES)[number];
/** Cluster API's default is Random; the sandbox removes the newest workers first, the ones a scale-up added. */
export const DEFAULT_DELETE_POLICY: DeletePolicy = 'Newest';

export const MachinePhase = {
  Provisioning: 'Provisioning',
  Provisioned: 'Provisioned',
  Running: 'Running',
  Deleting: 'Deleting',
  Failed: 'Failed',
} as const;
export type MachinePhase = (typeof MachinePhase)[keyof typeof MachinePhase];

export const DeploymentPhase = { ScalingUp: 'ScalingUp', ScalingDown: 'ScalingDown', Running: 'Running' } as const;
export type DeploymentPhase = (typeof DeploymentPhase)[keyof typeof DeploymentPhase];

const Metadata = z.object({
  name: z.string(),
  namespace: z.string().default('default'),
  uid: z.string().default(''),
  generation: z.number().int().default(0),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).default({}),
  annotations: z.record(z.string(), z.string()).default({}),
  finalizers: z.array(z.string()).default([]),
});

export const MachineDeployment = z.object({
  metadata: Metadata,
  spec: z.object({
    clusterName: z.string(),
    replicas: z.number().int().min(0).default(1),
    selector: z.object({ matchLabels: z.record(z.string(), z.string()).default({}) }),
    template: z.object({ metadata: z.object({ labels: z.record(z.string(), z.string()).default({}) }).default({ labels: {} }) }),
    strategy: z.object({ rollingUpdate: z.object({ deletePolicy: z.enum(DELETE_POLICIES).optional() }).optional() }).optional(),
  }),
  status: z.record(z.string(), z.unknown()).optional(),
});
export type MachineDeployment = z.infer<typeof MachineDeployment>;

export const Machine = z.object({
  metadata: Metadata,
  spec: z.object({ clusterName: z.string(), providerID: z.string().optional() }),
  status: z.record(z.string(), z.unknown()).optional(),
});
export type Machine = z.infer<typeof Machine>;

/** A server of the cluster as the controller needs it (a subset of simcloud's Server). */
export interface MachineServer {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly public_ipv4: string | null;
  readonly private_ipv4: string | null;
}

/** One Machine with what it stands for: its server (undefined: none yet or gone) and its Node. */
export interface MachineView {
  readonly machine: Machine;
  readonly server: MachineServer | undefined;
  readonly node: V1Node | undefined;
}

/** The server a Machine stands for: by the id it recorded, else (not yet recorded) by its name. */
export function serverOf(machine: Machine, servers: readonly MachineServer[]): MachineServer | undefined {
  const id = machine.metadata.annotations[SERVER_ID_ANNOTATION];
  if (id !== undefined) return servers.find((s) => s.id === id);
  return servers.find((s) => s.name === machine.metadata.name);
}

/** The Machine's Node: the one with its providerID, else the one named as its server was at creation. */
export function nodeOf(machine: Machine, nodes: readonly V1Node[]): V1Node | undefined {
  const providerID = machine.spec.providerID;
  return (providerID ? nodes.find((n) => n.spec?.providerID === providerID) : undefined) ?? nodes.find((n) => n.metadata?.name === machine.metadata.name);
}

export function nodeReady(node: V1Node | undefined): boolean {
  return node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export const deleting = (m: Machine): boolean => m.metadata.deletionTimestamp !== undefined;

/** The Machine's server existed (its id is recorded) and is gone without the Machine being deleted. */
function lostServer(view: MachineView): boolean {
  return !deleting(view.machine) && view.server === undefined && view.machine.metadata.annotations[SERVER_ID_ANNOTATION] !== undefined;
}

export function machinePhase(view: MachineView): MachinePhase {
  if (deleting(view.machine)) return MachinePhase.Deleting;
  if (lostServer(view)) return MachinePhase.Failed;
  if (view.node !== undefined) return MachinePhase.Running;
  if (view.server?.status === 'running') return MachinePhase.Provisioned;
  return MachinePhase.Provisioning;
}

/** The Machine's status as Cluster API reports it (lastUpdated is left to the writer: it changes on every write). */
export function machineStatus(view: MachineView): Record<string, unknown> {
  const { server, node } = view;
  const phase = machinePhase(view);
  return {
    phase,
    bootstrapReady: server !== undefined || node !== undefined,
    infrastructureReady: server?.status === 'running' || node !== undefined,
    ...addressesOf(server),
    ...(node?.metadata?.name ? { nodeRef: { apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid ?? '' } } : {}),
    ...(phase === MachinePhase.Failed
      ? { failureReason: 'UpdateError', failureMessage: `server ${view.machine.metadata.annotations[SERVER_ID_ANNOTATION] ?? ''} is gone from the cloud` }
      : {}),
  };
}

function addressesOf(server: MachineServer | undefined): { addresses?: { type: string; address: string }[] } {
  const addresses = [
    ...(server?.private_ipv4 ? [{ type: 'InternalIP', address: server.private_ipv4 }] : []),
    ...(server?.public_ipv4 ? [{ type: 'ExternalIP', address: server.public_ipv4 }] : []),
  ];
  return addresses.length ? { addresses } : {};
}

export function selectorString(md: MachineDeployment): string {
  return Object.entries(md.spec.selector.matchLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The deployment's status as Cluster API computes it (its phase rules in the same order). */
export function deploymentStatus(md: MachineDeployment, views: readonly MachineView[]): Record<string, unknown> {
  const wanted = md.spec.replicas;
  const replicas = views.length;
  const ready = views.filter((v) => !deleting(v.machine) && nodeReady(v.node)).length;
  let phase: DeploymentPhase = DeploymentPhase.Running;
  if (wanted > ready) phase = DeploymentPhase.ScalingUp;
  if (replicas > wanted) phase = DeploymentPhase.ScalingDown;
  return {
    selector: selectorString(md),
    replicas,
    updatedReplicas: replicas,
    readyReplicas: ready,
    availableReplicas: ready,
    unavailableReplicas: Math.max(0, wanted - ready),
    observedGeneration: md.metadata.generation,
    phase,
  };
}

/** How many Machines to create (> 0) or which to delete, to bring the deployment to its replicas. */
export interface ScalePlan {
  readonly create: number;
  readonly remove: readonly Machine[];
}

export function planScale(md: MachineDeployment, views: readonly MachineView[]): ScalePlan {
  const active = views.filter((v) => !deleting(v.machine));
  const diff = md.spec.replicas - active.length;
  if (diff >= 0) return { create: diff, remove: [] };
  const policy = md.spec.strategy?.rollingUpdate?.deletePolicy ?? DEFAULT_DELETE_POLICY;
  return { create: 0, remove: deletionOrder(active, policy).slice(0, -diff) };
}

/**
 * Which machines go first, as Cluster API's priorities have it: a failed machine (its server gone), then one
 * without a Node yet, then by age per the policy (creation time, then the name, for machines made the same second).
 */
export function deletionOrder(views: readonly MachineView[], policy: DeletePolicy): Machine[] {
  const rank = (v: MachineView): number => (lostServer(v) ? 0 : v.node === undefined ? 1 : 2);
  const age = (a: Machine, b: Machine): number =>
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name, 'en', { numeric: true });
  return [...views].sort((a, b) => rank(a) - rank(b) || (policy === 'Newest' ? age(b.machine, a.machine) : age(a.machine, b.machine))).map((v) => v.machine);
}

/** The Machine a deployment makes for a worker named `name` (the server and the Node get that name too). */
export function newMachine(md: MachineDeployment, name: string, serverId?: string): Record<string, unknown> {
  return {
    apiVersion: CAPI_API_VERSION,
    kind: 'Machine',
    metadata: {
      name,
      namespace: md.metadata.namespace,
      labels: { ...md.spec.template.metadata.labels, [CAPI_LABELS.clusterName]: md.spec.clusterName, [CAPI_LABELS.deploymentName]: md.metadata.name },
      ...(serverId ? { annotations: { [SERVER_ID_ANNOTATION]: serverId } } : {}),
      finalizers: [MACHINE_FINALIZER],
      ownerReferences: [
        { apiVersion: CAPI_API_VERSION, kind: 'MachineDeployment', name: md.metadata.name, uid: md.metadata.uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: { clusterName: md.spec.clusterName },
  };
}

/** The deployment `sandbox:up` makes for the cluster's workers, named after the cluster. */
export function clusterDeployment(cluster: string, namespace: string, replicas: number): Record<string, unknown> {
  const labels = { [CAPI_LABELS.clusterName]: cluster, [CAPI_LABELS.deploymentName]: cluster };
  return {
    apiVersion: CAPI_API_VERSION,
    kind: 'MachineDeployment',
    metadata: { name: cluster, namespace, labels: { [CAPI_LABELS.clusterName]: cluster } },
    spec: {
      clusterName: cluster,
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { clusterName: cluster } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { deletePolicy: DEFAULT_DELETE_POLICY } },
    },
  };
}
