/**
 * ClientKube: the `KubePort` over a `KubeClient` (one per controller, rate-limited). Patch bodies and their
 * content types come from patch.ts. Service finalizer and status writes go to `services/status` (the
 * bootstrap RBAC grants only that subresource).
 */
import type { CoreV1Event, V1LoadBalancerStatus, V1Node, V1NodeAddress, V1NodeCondition, V1Service, V1Taint } from '@kubernetes/client-node';
import { PatchTypes, seg, type KubeClient } from './api-client.ts';
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

const nodePath = (name: string): string => `/api/v1/nodes/${seg(name)}`;

export class ClientKube implements KubePort {
  private readonly client: KubeClient;

  constructor(client: KubeClient) {
    this.client = client;
  }

  getNode(name: string, opts?: { fromCache?: boolean }): Promise<V1Node> {
    return this.client.object<V1Node>('GET', nodePath(name), opts?.fromCache ? { query: { resourceVersion: '0' } } : {});
  }

  updateNode(node: V1Node): Promise<V1Node> {
    return this.client.object<V1Node>('PUT', nodePath(node.metadata?.name ?? ''), { body: node });
  }

  patchNodeLabels(name: string, labels: Readonly<Record<string, string>>): Promise<V1Node> {
    return this.send<V1Node>(nodePath(name), nodeLabelsPatch(labels));
  }

  patchNodeTaints(name: string, taints: readonly V1Taint[], resourceVersion: string): Promise<V1Node> {
    return this.send<V1Node>(nodePath(name), nodeTaintsPatch(taints, resourceVersion));
  }

  replaceNodeAddresses(name: string, addresses: readonly V1NodeAddress[]): Promise<V1Node> {
    return this.send<V1Node>(`${nodePath(name)}/status`, nodeAddressesPatch(addresses));
  }

  patchNodeCondition(name: string, condition: V1NodeCondition): Promise<V1Node> {
    return this.send<V1Node>(`${nodePath(name)}/status`, nodeConditionPatch(condition));
  }

  async deleteNode(name: string): Promise<void> {
    await this.client.call('DELETE', nodePath(name));
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
    return this.send<V1Service>(`/api/v1/namespaces/${seg(namespace)}/services/${seg(name)}/status`, patch);
  }

  private send<T extends V1Node | V1Service>(path: string, patch: PatchRequest): Promise<T> {
    return this.client.patch<T>(path, patch.contentType, patch.body);
  }

  async createEvent(event: CoreV1Event): Promise<void> {
    await this.client.call('POST', `/api/v1/namespaces/${seg(event.metadata.namespace ?? 'default')}/events`, { body: event });
  }

  async patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: Date; message: string }): Promise<void> {
    const body = { count: patch.count, lastTimestamp: patch.lastTimestamp.toISOString(), message: patch.message };
    await this.client.call('PATCH', `/api/v1/namespaces/${seg(namespace)}/events/${seg(name)}`, { body, contentType: PatchTypes.strategicMerge });
  }
}
