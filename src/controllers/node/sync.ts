/**
 * `syncNode(name)` of the cloud-node-controller (upstream `node_controller.go` `syncNode`,
 * `initializeNode`, `getInstanceMetadata`, `updateNodeAddress`, `reconcileNodeLabels`).
 *
 * Order that matters, as upstream's cloud-node controller does it: providerID, labels and the removal of the uninitialized
 * taint go in ONE full PUT of the Node; `status.addresses` is written afterwards in a separate status
 * patch, once the taint is already gone.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { InstanceMetadata, InstancesV2 } from '../../cloud/instances.ts';
import { errorMessage, wrapError } from '../../cloud/errors.ts';
import type { Clock } from '../../kube/clock.ts';
import { EventType, objectReference, Reason, type EventRecorder } from '../../kube/events.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import type { ControllerMetrics } from '../../kube/metrics.ts';
import { NodeWriteBackoff, retryOnConflict, UpdateNodeSpecBackoff } from '../../kube/retry.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { hasTaintKey, TaintKey } from '../../kube/taints.ts';
import { callerOf, ControllerName } from '../names.ts';
import { AddressSkip, desiredNodeAddresses, filterNodeAddressesByNodeIP, ProvidedNodeIPAnnotation } from './address.ts';
import { initialLabels, nodeLabels, reconcileBetaToGALabels } from './labels.ts';

export interface NodeSyncDeps {
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  readonly instances: InstancesV2;
  readonly recorder: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: ControllerMetrics;
  /** Jitter source for conflict retries (tests pass a constant). */
  readonly random?: () => number;
}

const caller = (name: string): string => callerOf(ControllerName.CloudNode, name);

/** Syncs one node: initialise it if it carries the uninitialized taint, else reconcile labels. */
export async function syncNode(deps: NodeSyncDeps, name: string): Promise<void> {
  const node = deps.nodes.get(name);
  if (!node) return;
  if (!hasTaintKey(node, TaintKey.Uninitialized)) {
    await reconcileNodeLabels(deps, node);
    return;
  }
  let metadata: InstanceMetadata | undefined;
  try {
    metadata = await getInstanceMetadata(deps, node);
  } catch (err) {
    throw wrapError(`failed to get instance metadata for node ${name}`, err);
  }
  if (!metadata) {
    deps.logger.info({ node: name }, `Skip sync node ${name} because cloud provided nil metadata`);
    return;
  }
  await initializeNode(deps, node, metadata);
}

/**
 * Upstream `getInstanceMetadata` (InstancesV2 path): errors pass through; an empty metadata providerID
 * is filled from the node, or is an error when the node has none either.
 */
export async function getInstanceMetadata(deps: NodeSyncDeps, node: V1Node): Promise<InstanceMetadata | undefined> {
  const name = node.metadata?.name ?? '';
  const metadata = await deps.instances.instanceMetadata(node, { caller: caller(name) });
  if (!metadata || metadata.providerID !== '') return metadata;
  const own = node.spec?.providerID ?? '';
  if (own === '') throw new Error(`cloud provider does not set node provider ID for node ${name}`);
  return { ...metadata, providerID: own };
}

/** Applies providerID, labels and taint removal to a copy of `node` (the PUT body). */
export function applyInitialization(node: V1Node, metadata: InstanceMetadata, logger: Logger): V1Node {
  const copy = structuredClone(node);
  copy.spec ??= {};
  copy.metadata ??= {};
  if (!copy.spec.providerID && metadata.providerID) copy.spec.providerID = metadata.providerID;
  const { labels, warnings } = initialLabels(nodeLabels(copy), metadata);
  for (const w of warnings) logger.warn({ node: copy.metadata.name, label: w.key }, w.message);
  copy.metadata.labels = { ...nodeLabels(copy), ...labels };
  copy.spec.taints = (copy.spec.taints ?? []).filter((t) => t.key !== TaintKey.Uninitialized);
  return copy;
}

/**
 * Upstream validates the provided node IP against the cloud's addresses before building the PUT, so an
 * unmatched IP keeps the node tainted. Deviation: upstream only returns the error (logged, requeued);
 * this CCM also records a Warning event on the Node so the reason is visible with `kubectl describe`.
 */
function checkProvidedNodeIP(deps: NodeSyncDeps, node: V1Node, metadata: InstanceMetadata): void {
  const annotation = node.metadata?.annotations?.[ProvidedNodeIPAnnotation];
  if (annotation === undefined) return;
  try {
    filterNodeAddressesByNodeIP(annotation, metadata.nodeAddresses);
  } catch (err) {
    const message = `provided node ip for node "${node.metadata?.name ?? ''}" is not valid: ${errorMessage(err)}`;
    deps.recorder.event(objectReference('Node', node), EventType.Warning, Reason.InvalidProvidedNodeIP, message);
    throw new Error(`failed to get node modifiers from cloud provider: ${message}`, { cause: err });
  }
}

async function initializeNode(deps: NodeSyncDeps, node: V1Node, metadata: InstanceMetadata): Promise<void> {
  const { kube, clock, logger } = deps;
  const name = node.metadata?.name ?? '';
  checkProvidedNodeIP(deps, node, metadata);
  let updated: V1Node | undefined;
  await retryOnConflict(
    UpdateNodeSpecBackoff,
    async () => {
      const current = deps.nodes.get(name);
      if (!current) throw new Error(`node ${name} disappeared from the cache`);
      updated = applyInitialization(current, metadata, logger);
      updated = await kube.updateNode(updated);
    },
    { clock, random: deps.random },
  );
  if (!updated) return;
  const taintRemovedAfter = secondsSinceCreation(updated, clock);
  if (taintRemovedAfter !== undefined) deps.metrics.observeTaintRemovalDelay?.(taintRemovedAfter);
  await updateNodeAddress(deps, updated, metadata);
  logger.info({ node: name }, `Successfully initialized node ${name} with cloud provider`);
  deps.recorder.event(objectReference('Node', updated), EventType.Normal, Reason.Synced, 'Node synced successfully');
  const syncedAfter = secondsSinceCreation(updated, clock);
  if (syncedAfter !== undefined) deps.metrics.observeInitialNodeSyncDelay?.(syncedAfter);
}

function secondsSinceCreation(node: V1Node, clock: Clock): number | undefined {
  const created = node.metadata?.creationTimestamp;
  return created ? (clock.now() - new Date(created).getTime()) / 1000 : undefined;
}

/**
 * Upstream `updateNodeAddress`: writes the cloud's addresses to `status.addresses` of an initialised
 * node when they changed. Errors are logged, not returned (as upstream).
 */
export async function updateNodeAddress(deps: NodeSyncDeps, node: V1Node, metadata: InstanceMetadata): Promise<void> {
  const name = node.metadata?.name ?? '';
  if (hasTaintKey(node, TaintKey.Uninitialized)) {
    deps.logger.trace({ node: name }, `This node ${name} is still tainted. Will not process.`);
    return;
  }
  const decision = desiredNodeAddresses(node, metadata.nodeAddresses);
  if (decision.action === 'skip') {
    // Upstream's levels: V(5) without cloud addresses, an error for an unsatisfiable node IP, and nothing
    // for an unchanged list, which is every initialised node on every status pass.
    if (decision.skip === AddressSkip.NoCloudAddresses)
      deps.logger.trace({ node: name }, `Skipping node address update for node "${name}" since cloud provider did not return any`);
    else if (decision.skip === AddressSkip.NodeIP) deps.logger.error({ node: name }, `Failed to update node addresses for node "${name}": ${decision.reason}`);
    return;
  }
  try {
    await deps.kube.replaceNodeAddresses(name, decision.addresses);
  } catch (err) {
    deps.logger.error({ node: name, err }, `Error patching node with cloud ip addresses = [${errorMessage(err)}]`);
  }
}

/** Upstream `reconcileNodeLabels`: copy beta labels onto their GA keys (beta wins). */
export async function reconcileNodeLabels(deps: NodeSyncDeps, node: V1Node): Promise<void> {
  const name = node.metadata?.name ?? '';
  const update = reconcileBetaToGALabels(nodeLabels(node));
  if (Object.keys(update).length === 0) return;
  try {
    await retryOnConflict(NodeWriteBackoff, () => deps.kube.patchNodeLabels(name, update), { clock: deps.clock, random: deps.random });
  } catch (err) {
    throw wrapError(`unable to update labels ${JSON.stringify(update)} for Node ${name}`, err);
  }
}

/** One node of the periodic `UpdateNodeStatus`: refresh addresses of an initialised node. */
export async function updateNodeStatusFor(deps: NodeSyncDeps, node: V1Node): Promise<void> {
  const name = node.metadata?.name ?? '';
  if (hasTaintKey(node, TaintKey.Uninitialized)) return;
  let metadata: InstanceMetadata | undefined;
  try {
    // Upstream `getInstanceNodeAddresses`: the plain InstanceMetadata call, no providerID checks.
    metadata = await deps.instances.instanceMetadata(node, { caller: caller(name) });
  } catch (err) {
    deps.logger.error({ node: name, err }, `Error getting instance metadata for node addresses: ${errorMessage(err)}`);
    return;
  }
  if (metadata) await updateNodeAddress(deps, node, metadata);
}
