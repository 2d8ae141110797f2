/**
 * One pass of the cloud-node-lifecycle-controller (upstream `MonitorNodes`): over every cached node,
 * Ready nodes lose the shutdown taint; not-Ready nodes are deleted when their instance is gone, or get
 * the shutdown taint (NoSchedule) when the instance is shut down. Ready nodes are never deleted.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { InstancesV2 } from '../../cloud/instances.ts';
import { errorMessage } from '../../cloud/errors.ts';
import type { Clock } from '../../kube/clock.ts';
import { EventType, objectReference, Reason, type EventRecorder } from '../../kube/events.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { callerOf, ControllerName } from '../names.ts';
import { addTaintToNode, removeTaintFromNode, ShutdownTaint } from '../../kube/taints.ts';

export interface LifecycleDeps {
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  readonly instances: InstancesV2;
  readonly recorder: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Status of the `Ready` condition; a missing condition counts as `Unknown`. */
export function readyStatus(node: V1Node): string {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

/** Upstream `MonitorNodes`: one pass over all cached nodes. */
export async function monitorNodes(deps: LifecycleDeps): Promise<void> {
  for (const node of deps.nodes.list()) {
    await monitorNode(deps, node);
  }
}

/** The lifecycle decision for one node. */
export async function monitorNode(deps: LifecycleDeps, node: V1Node): Promise<void> {
  const name = node.metadata?.name ?? '';
  if (readyStatus(node) === 'True') {
    await removeTaintFromNode(deps.kube, node, ShutdownTaint, deps.clock).catch((err: unknown) => {
      deps.logger.error({ node: name, err }, `error patching node taints: ${errorMessage(err)}`);
    });
    return;
  }
  const ctx = { caller: callerOf(ControllerName.CloudNodeLifecycle, name) };
  let exists: boolean;
  try {
    exists = await deps.instances.instanceExists(node, ctx);
  } catch (err) {
    deps.logger.error({ node: name, err }, `error checking if node ${name} exists: ${errorMessage(err)}`);
    return;
  }
  if (!exists) {
    await deleteNode(deps, node);
    return;
  }
  await taintIfShutdown(deps, node, ctx);
}

async function deleteNode(deps: LifecycleDeps, node: V1Node): Promise<void> {
  const name = node.metadata?.name ?? '';
  const ref = objectReference('Node', node);
  deps.logger.info({ node: name }, `deleting node since it is no longer present in cloud provider: ${name}`);
  deps.recorder.event(ref, EventType.Normal, Reason.DeletingNode, `Deleting node ${name} because it does not exist in the cloud provider`);
  try {
    await deps.kube.deleteNode(name);
  } catch (err) {
    deps.logger.error({ node: name, err }, `unable to delete node "${name}": ${errorMessage(err)}`);
    deps.recorder.event(ref, EventType.Warning, Reason.DeletingNodeFailed, `Failed deleting node ${name}: ${errorMessage(err)}`);
  }
}

async function taintIfShutdown(deps: LifecycleDeps, node: V1Node, ctx: { caller: string }): Promise<void> {
  const name = node.metadata?.name ?? '';
  let shutdown: boolean;
  try {
    shutdown = await deps.instances.instanceShutdown(node, ctx);
  } catch (err) {
    deps.logger.error({ node: name, err }, `error checking if node ${name} is shutdown: ${errorMessage(err)}`);
    return;
  }
  if (!shutdown) return;
  await addTaintToNode(deps.kube, name, ShutdownTaint, deps.clock).catch((err: unknown) => {
    deps.logger.error({ node: name, err }, `failed to apply shutdown taint to node ${name}, it may have been deleted.`);
  });
}
