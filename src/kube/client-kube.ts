/**
 * ClientKube: the `KubePort` over client-node's CoreV1Api (ideally one made by
 * `makeRateLimitedApiClient`). Patch bodies come from patch.ts; the content type is set per request
 * with `setHeaderOptions('Content-Type', PatchStrategy.X)`. Service finalizer and status writes go to
 * `services/status` (the bootstrap RBAC grants only that subresource).
 */
import {
  setHeaderOptions,
  type CoreV1Api,
  type CoreV1Event,
  type V1LoadBalancerStatus,
  type V1Node,
  type V1NodeAddress,
  type V1NodeCondition,
  type V1Service,
  type V1Taint,
} from '@kubernetes/client-node';
import { queryParamOptions } from './api-client.ts';
import type { KubePort } from './kube-port.ts';
import {
  addFinalizerPatch,
  loadBalancerStatusPatch,
  nodeAddressesPatch,
  nodeConditionPatch,
  nodeLabelsPatch,
  nodeTaintsPatch,
  removeFinalizerPatch,
  type PatchRequest,
} from './patch.ts';

const options = (patch: PatchRequest): ReturnType<typeof setHeaderOptions> => setHeaderOptions('Content-Type', patch.contentType);

export class ClientKube implements KubePort {
  private readonly core: CoreV1Api;

  constructor(core: CoreV1Api) {
    this.core = core;
  }

  getNode(name: string, opts?: { fromCache?: boolean }): Promise<V1Node> {
    return this.core.readNode({ name }, opts?.fromCache ? queryParamOptions('resourceVersion', '0') : undefined);
  }

  updateNode(node: V1Node): Promise<V1Node> {
    return this.core.replaceNode({ name: node.metadata?.name ?? '', body: node });
  }

  patchNodeLabels(name: string, labels: Readonly<Record<string, string>>): Promise<V1Node> {
    const patch = nodeLabelsPatch(labels);
    return this.core.patchNode({ name, body: patch.body }, options(patch));
  }

  patchNodeTaints(name: string, taints: readonly V1Taint[], resourceVersion: string): Promise<V1Node> {
    const patch = nodeTaintsPatch(taints, resourceVersion);
    return this.core.patchNode({ name, body: patch.body }, options(patch));
  }

  replaceNodeAddresses(name: string, addresses: readonly V1NodeAddress[]): Promise<V1Node> {
    const patch = nodeAddressesPatch(addresses);
    return this.core.patchNodeStatus({ name, body: patch.body }, options(patch));
  }

  patchNodeCondition(name: string, condition: V1NodeCondition): Promise<V1Node> {
    const patch = nodeConditionPatch(condition);
    return this.core.patchNodeStatus({ name, body: patch.body }, options(patch));
  }

  async deleteNode(name: string): Promise<void> {
    await this.core.deleteNode({ name });
  }

  addServiceFinalizer(service: V1Service, finalizer: string): Promise<V1Service> {
    return this.patchServiceStatus(service, addFinalizerPatch(service.metadata?.finalizers ?? [], finalizer));
  }

  removeServiceFinalizer(service: V1Service, finalizer: string): Promise<V1Service> {
    return this.patchServiceStatus(service, removeFinalizerPatch(finalizer));
  }

  patchServiceLoadBalancerStatus(service: V1Service, status: V1LoadBalancerStatus): Promise<V1Service> {
    return this.patchServiceStatus(service, loadBalancerStatusPatch(status));
  }

  private patchServiceStatus(service: V1Service, patch: PatchRequest): Promise<V1Service> {
    const name = service.metadata?.name ?? '';
    const namespace = service.metadata?.namespace ?? 'default';
    return this.core.patchNamespacedServiceStatus({ name, namespace, body: patch.body }, options(patch));
  }

  async createEvent(event: CoreV1Event): Promise<void> {
    await this.core.createNamespacedEvent({ namespace: event.metadata.namespace ?? 'default', body: event });
  }

  async patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: Date; message: string }): Promise<void> {
    const body = { count: patch.count, lastTimestamp: patch.lastTimestamp.toISOString(), message: patch.message };
    await this.core.patchNamespacedEvent({ namespace, name, body }, setHeaderOptions('Content-Type', 'application/strategic-merge-patch+json'));
  }
}
