/**
 * `syncService(key)` of the service-lb-controller (upstream `controllers/service/controller.go`
 * `syncService`, `processServiceCreateOrUpdate`, `syncLoadBalancerIfNeeded`,
 * `processLoadBalancerDelete`).
 *
 * Delete path: GetLoadBalancer → EnsureLoadBalancerDeleted (only if it exists) → remove finalizer →
 * DeletedLoadBalancer event → clear status (NotFound ignored). Ensure path: EnsuringLoadBalancer event
 * → add finalizer → node set → lastSyncedNodes → EnsureLoadBalancer → EnsuredLoadBalancer event →
 * status patch if changed. All Service writes go to the `/status` subresource.
 */
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import { errorMessage, isImplementedElsewhere, wrapError } from '../../cloud/errors.ts';
import type { LoadBalancer } from '../../cloud/load-balancer.ts';
import { isNotFound } from '../../kube/errors.ts';
import { EventType, objectReference, Reason, type EventRecorder } from '../../kube/events.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import type { ControllerMetrics } from '../../kube/metrics.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { callerOf, ControllerName } from '../names.ts';
import {
  hasLoadBalancerFinalizer,
  isServedClass,
  LoadBalancerCleanupFinalizer,
  loadBalancerStatusEqual,
  needsCleanup,
  wantsLoadBalancer,
} from './needs-update.ts';
import { nodesSufficientlyEqual, stableLoadBalancerNodeSet } from './node-set.ts';

/** Controller memory shared by the service and node workers. */
export interface ServiceState {
  /** Upstream `serviceCache`: the last Service each key was synced with. */
  readonly cache: Map<string, V1Service>;
  /**
   * Upstream `lastSyncedNodes`: the node set last sent to the cloud per Service key (never pruned). Entries
   * for the same set share one array (`rememberNodeSet`).
   */
  readonly lastSyncedNodes: Map<string, V1Node[]>;
  /** The array the latest entries share. */
  sharedNodeSet?: V1Node[];
  /** The stable node set of the last node-sync pass (only to log what each pass reacts to). */
  lastPassNodes?: V1Node[];
}

/**
 * Stores `nodes` as the Service's `lastSyncedNodes`. Upstream keeps one copy per Service (1 000 Services x
 * 1 000 nodes = 8 MB of arrays, 40 MB at 5 000 nodes, benchmark S12); here every Service synced against a
 * sufficiently equal set points at the same array. The comparison only ever reads names, providerIDs and
 * the stable predicates, which every node of a stored set passed, so sharing changes no decision.
 */
export function rememberNodeSet(state: ServiceState, key: string, nodes: V1Node[]): void {
  if (!state.sharedNodeSet || !nodesSufficientlyEqual(state.sharedNodeSet, nodes)) state.sharedNodeSet = nodes;
  state.lastSyncedNodes.set(key, state.sharedNodeSet);
}

export function newServiceState(): ServiceState {
  return { cache: new Map(), lastSyncedNodes: new Map() };
}

export interface ServiceSyncDeps {
  readonly services: SharedInformer<V1Service>;
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  readonly balancer: LoadBalancer;
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly metrics: ControllerMetrics;
  readonly clusterName: string;
  readonly loadBalancerClass?: string;
  readonly state: ServiceState;
}

const Op = { Ensure: 'ensure', Delete: 'delete' } as const;
type Op = (typeof Op)[keyof typeof Op];

export const callerFor = (key: string): string => callerOf(ControllerName.Service, key);
const ref = (service: V1Service): ReturnType<typeof objectReference> => objectReference('Service', service);

/** Syncs one Service key. Throws to requeue (a RetryError inside `cause` asks for a fixed delay). */
export async function syncService(deps: ServiceSyncDeps, key: string): Promise<void> {
  const service = deps.services.get(key);
  if (!service) {
    await processServiceDeletion(deps, key);
    return;
  }
  if (!isServedClass(service, deps.loadBalancerClass) && !hasLoadBalancerFinalizer(service)) return;
  const cached = deps.state.cache.get(key);
  if (cached && cached.metadata?.uid !== service.metadata?.uid) await processLoadBalancerDelete(deps, cached, key);
  deps.state.cache.set(key, structuredClone(service));
  let op: Op;
  try {
    op = await syncLoadBalancerIfNeeded(deps, structuredClone(service), key);
  } catch (err) {
    deps.recorder.event(ref(service), EventType.Warning, Reason.SyncLoadBalancerFailed, `Error syncing load balancer: ${errorMessage(err)}`);
    throw err;
  }
  if (op === Op.Delete) deps.state.cache.delete(key);
}

/** Legacy path: the Service is gone from the lister but still cached (no finalizer was in place). */
async function processServiceDeletion(deps: ServiceSyncDeps, key: string): Promise<void> {
  const cached = deps.state.cache.get(key);
  if (!cached) return;
  await processLoadBalancerDelete(deps, cached, key);
  deps.state.cache.delete(key);
}

async function processLoadBalancerDelete(deps: ServiceSyncDeps, service: V1Service, key: string): Promise<void> {
  if (!wantsLoadBalancer(service, deps.loadBalancerClass)) return;
  deps.recorder.event(ref(service), EventType.Normal, Reason.DeletingLoadBalancer, 'Deleting load balancer');
  try {
    await deps.balancer.ensureLoadBalancerDeleted(deps.clusterName, service, { caller: callerFor(key) });
  } catch (err) {
    deps.recorder.event(ref(service), EventType.Warning, Reason.DeleteLoadBalancerFailed, `Error deleting load balancer: ${errorMessage(err)}`);
    throw err;
  }
  deps.recorder.event(ref(service), EventType.Normal, Reason.DeletedLoadBalancer, 'Deleted load balancer');
}

/** Upstream `syncLoadBalancerIfNeeded`. */
export async function syncLoadBalancerIfNeeded(deps: ServiceSyncDeps, service: V1Service, key: string): Promise<Op> {
  const previous = service.status?.loadBalancer;
  if (!wantsLoadBalancer(service, deps.loadBalancerClass) || needsCleanup(service)) {
    await deleteLoadBalancer(deps, service, key);
    await patchStatus(deps, service, { previous, next: {} });
    return Op.Delete;
  }
  const status = await ensureLoadBalancer(deps, service, key);
  if (status) await patchStatus(deps, service, { previous, next: status });
  return Op.Ensure;
}

async function deleteLoadBalancer(deps: ServiceSyncDeps, service: V1Service, key: string): Promise<void> {
  const ctx = { caller: callerFor(key) };
  let exists: boolean;
  try {
    exists = (await deps.balancer.getLoadBalancer(deps.clusterName, service, ctx)).exists;
  } catch (err) {
    throw wrapError('failed to check if load balancer exists before cleanup', err);
  }
  if (exists) {
    deps.logger.info({ service: key }, 'Deleting existing load balancer for service');
    deps.recorder.event(ref(service), EventType.Normal, Reason.DeletingLoadBalancer, 'Deleting load balancer');
    await ensureDeleted(deps, service, ctx);
  }
  if (hasLoadBalancerFinalizer(service)) {
    try {
      await deps.kube.removeServiceFinalizer(service, LoadBalancerCleanupFinalizer);
    } catch (err) {
      throw wrapError('failed to remove load balancer cleanup finalizer', err);
    }
  }
  deps.recorder.event(ref(service), EventType.Normal, Reason.DeletedLoadBalancer, 'Deleted load balancer');
}

async function ensureDeleted(deps: ServiceSyncDeps, service: V1Service, ctx: { caller: string }): Promise<void> {
  try {
    await deps.balancer.ensureLoadBalancerDeleted(deps.clusterName, service, ctx);
  } catch (err) {
    if (isImplementedElsewhere(err)) {
      deps.logger.info({ service: ctx.caller }, 'LoadBalancer for service implemented by a different controller, ignoring');
      return;
    }
    throw wrapError('failed to delete load balancer', err);
  }
}

/** Returns the new status, or `undefined` when the LB is implemented elsewhere (no status write). */
async function ensureLoadBalancer(deps: ServiceSyncDeps, service: V1Service, key: string): Promise<V1LoadBalancerStatus | undefined> {
  deps.recorder.event(ref(service), EventType.Normal, Reason.EnsuringLoadBalancer, 'Ensuring load balancer');
  if (!hasLoadBalancerFinalizer(service)) {
    deps.logger.debug({ service: key }, 'Adding finalizer to service');
    try {
      await deps.kube.addServiceFinalizer(service, LoadBalancerCleanupFinalizer);
    } catch (err) {
      throw wrapError('failed to add load balancer cleanup finalizer', err);
    }
  }
  const nodes = stableLoadBalancerNodeSet(deps.nodes.list());
  if (nodes.length === 0) {
    deps.recorder.event(ref(service), EventType.Warning, Reason.UnAvailableLoadBalancer, 'There are no available nodes for LoadBalancer');
  }
  rememberNodeSet(deps.state, key, nodes);
  deps.metrics.incLoadBalancerSync?.();
  let status: V1LoadBalancerStatus | undefined;
  try {
    status = await deps.balancer.ensureLoadBalancer(deps.clusterName, service, nodes, { caller: callerFor(key) });
  } catch (err) {
    if (isImplementedElsewhere(err)) return undefined;
    throw wrapError('failed to ensure load balancer', err);
  }
  if (!status) throw new Error('service status returned by EnsureLoadBalancer is nil');
  deps.recorder.event(ref(service), EventType.Normal, Reason.EnsuredLoadBalancer, 'Ensured load balancer');
  return status;
}

async function patchStatus(
  deps: ServiceSyncDeps,
  service: V1Service,
  { previous, next }: { previous: V1LoadBalancerStatus | undefined; next: V1LoadBalancerStatus },
): Promise<void> {
  if (loadBalancerStatusEqual(previous, next)) return;
  try {
    await deps.kube.patchServiceLoadBalancerStatus(service, next);
  } catch (err) {
    // NotFound mostly means the Service vanished right after the finalizer was removed.
    if (isNotFound(err)) {
      deps.logger.debug({ service: objectReference('Service', service).name }, 'service not found while updating load balancer status');
      return;
    }
    throw wrapError('failed to update load balancer status', err);
  }
}
