/**
 * The service-lb-controller's node sync (upstream `syncNodes`, `updateLoadBalancerHosts`,
 * `nodeSyncService`, `lockedUpdateLoadBalancerHosts`). A node change calls UpdateLoadBalancer (never
 * Ensure) for every cached LB Service whose stable node set changed; `lastSyncedNodes` is stored
 * before the cloud call; Services whose update failed are handed back for a full sync.
 */
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { errorMessage, isImplementedElsewhere } from '../../cloud/errors.ts';
import type { Clock } from '../../kube/clock.ts';
import { EventType, objectReference, Reason } from '../../kube/events.ts';
import { objectKey } from '../../kube/keys.ts';
import { mapWithConcurrency } from '../../../lib/concurrency.ts';
import { wantsLoadBalancer } from './needs-update.ts';
import { loggableNodeNames, nodeSetChanges, nodesSufficientlyEqual, respectsStablePredicates, stableLoadBalancerNodeSet } from './node-set.ts';
import { callerFor, rememberNodeSet, type ServiceSyncDeps } from './sync.ts';

/** Runs the node sync over every cached Service; returns the keys to re-add to the service queue. */
export async function syncNodes(deps: ServiceSyncDeps, workers: number, clock: Clock): Promise<string[]> {
  const started = clock.now();
  // One node set per pass (upstream lists and filters the nodes again for every Service).
  const nodes = stableLoadBalancerNodeSet(deps.nodes.list());
  logPassChanges(deps, nodes);
  const services = [...deps.state.cache.values()];
  const retry = await mapWithConcurrency(services, workers, (svc) => nodeSyncService(deps, svc, clock, nodes));
  deps.metrics.observeNodeSyncLatency?.((clock.now() - started) / 1000);
  return services.filter((_, i) => retry[i]).map((svc) => objectKey(svc));
}

/** Logs (debug, once per pass) which node changes since the previous pass this pass reacts to. */
function logPassChanges(deps: ServiceSyncDeps, now: V1Node[]): void {
  const before = deps.state.lastPassNodes;
  deps.state.lastPassNodes = now;
  if (!before || !deps.logger.isLevelEnabled('debug')) return;
  const { added, removed, providerIdChanged } = nodeSetChanges(before, now);
  const names = (list: string[]): string => loggableNodeNames(list.map((name) => ({ metadata: { name } })));
  deps.logger.debug(
    { nodes: now.length, added: added.length, removed: removed.length, providerIdChanged: providerIdChanged.length },
    `Syncing load balancer hosts: added ${names(added)}, removed ${names(removed)}, providerID changed ${names(providerIdChanged)}`,
  );
}

/** Upstream `nodeSyncService`: true when the Service must be retried through the service queue. */
export async function nodeSyncService(deps: ServiceSyncDeps, service: V1Service, clock: Clock, nodes?: V1Node[]): Promise<boolean> {
  if (!wantsLoadBalancer(service, deps.loadBalancerClass)) return false;
  const key = objectKey(service);
  const newNodes = nodes ?? stableLoadBalancerNodeSet(deps.nodes.list());
  const oldNodes = (deps.state.lastSyncedNodes.get(key) ?? []).filter(respectsStablePredicates);
  rememberNodeSet(deps.state, key, newNodes);
  if (nodesSufficientlyEqual(oldNodes, newNodes)) return false;
  deps.logger.debug({ service: key }, 'Updating load balancer hosts for service');
  try {
    await lockedUpdateLoadBalancerHosts(deps, service, newNodes, clock);
    return false;
  } catch (err) {
    deps.logger.error({ service: key, err }, `failed to update load balancer hosts for service ${key}: ${errorMessage(err)}`);
    deps.metrics.incNodeSyncError?.();
    return true;
  }
}

async function lockedUpdateLoadBalancerHosts(deps: ServiceSyncDeps, service: V1Service, hosts: V1Node[], clock: Clock): Promise<void> {
  const key = objectKey(service);
  const ctx = { caller: callerFor(key) };
  const started = clock.now();
  try {
    await deps.balancer.updateLoadBalancer(deps.clusterName, service, hosts, ctx);
    recordHostsUpdated(deps, service, hosts);
  } catch (err) {
    if (isImplementedElsewhere(err)) return;
    if (!(await loadBalancerStillExists(deps, service, ctx))) return;
    const message = `Error updating load balancer with new hosts ${loggableNodeNames(hosts)} [node names limited, total number of nodes: ${hosts.length}], error: ${errorMessage(err)}`;
    deps.recorder.event(objectReference('Service', service), EventType.Warning, Reason.UpdateLoadBalancerFailed, message);
    throw err;
  } finally {
    deps.metrics.observeUpdateLoadBalancerHostLatency?.((clock.now() - started) / 1000);
  }
}

function recordHostsUpdated(deps: ServiceSyncDeps, service: V1Service, hosts: V1Node[]): void {
  const reference = objectReference('Service', service);
  if (hosts.length === 0) {
    deps.recorder.event(reference, EventType.Warning, Reason.UnAvailableLoadBalancer, 'There are no available nodes for LoadBalancer');
  } else {
    deps.recorder.event(reference, EventType.Normal, Reason.UpdatedLoadBalancer, 'Updated load balancer with new hosts');
  }
}

/** An update failure is only an error while the LB still exists (a lookup error counts as existing). */
async function loadBalancerStillExists(deps: ServiceSyncDeps, service: V1Service, ctx: { caller: string }): Promise<boolean> {
  try {
    return (await deps.balancer.getLoadBalancer(deps.clusterName, service, ctx)).exists;
  } catch (err) {
    deps.logger.error({ err }, `failed to check if load balancer exists for service: ${errorMessage(err)}`);
    return true;
  }
}
