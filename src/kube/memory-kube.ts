/**
 * MemoryKube: an in-memory `KubePort` for controller unit tests. It holds Nodes, Services and Events
 * with resourceVersions, answers like the apiserver (409 on a stale resourceVersion, 404 on a missing
 * object, finalizer removal completes a pending deletion), and mirrors every write into its
 * `MemoryInformer`s the way a watch would, so handlers fire and caches follow.
 *
 * `failures` injects errors: `kube.failures.set('updateNode', apiError(409, 'conflict'))` makes the
 * next call of that method throw (one-shot).
 */
import type { CoreV1Event, V1LoadBalancerStatus, V1Node, V1NodeAddress, V1NodeCondition, V1Service, V1Taint } from '@kubernetes/client-node';
import { apiError } from './errors.ts';
import { objectKey } from './keys.ts';
import type { KubePort } from './kube-port.ts';
import { MemoryInformer } from './shared-informer.ts';

export class MemoryKube implements KubePort {
  readonly nodes = new MemoryInformer<V1Node>();
  readonly services = new MemoryInformer<V1Service>();
  readonly events: CoreV1Event[] = [];
  readonly failures = new Map<keyof KubePort, Error>();
  /** Every write, as `<method> <key>`. */
  readonly writes: string[] = [];
  private rv = 1;

  /** Seeds an object into store and cache (fires add). */
  addNode(node: V1Node): V1Node {
    const stored = this.stamp(structuredClone(node));
    this.nodes.upsert(stored);
    return stored;
  }
  addService(service: V1Service): V1Service {
    const stored = this.stamp(structuredClone(service));
    this.services.upsert(stored);
    return stored;
  }
  node(name: string): V1Node | undefined {
    return this.nodes.get(name);
  }
  service(key: string): V1Service | undefined {
    return this.services.get(key);
  }

  private stamp<T extends { metadata?: { resourceVersion?: string } }>(obj: T): T {
    obj.metadata = { ...obj.metadata, resourceVersion: String(this.rv++) };
    return obj;
  }

  private check(method: keyof KubePort, key: string): void {
    this.writes.push(`${method} ${key}`);
    const failure = this.failures.get(method);
    if (failure) {
      this.failures.delete(method);
      throw failure;
    }
  }

  private mustNode(name: string): V1Node {
    const node = this.nodes.get(name);
    if (!node) throw apiError(404, `nodes "${name}" not found`);
    return structuredClone(node);
  }

  private mustService(service: V1Service): V1Service {
    const key = objectKey(service);
    const current = this.services.get(key);
    if (!current) throw apiError(404, `services "${key}" not found`);
    return structuredClone(current);
  }

  private saveNode(node: V1Node): V1Node {
    const stored = this.stamp(node);
    this.nodes.upsert(stored);
    return structuredClone(stored);
  }

  private saveService(service: V1Service): V1Service {
    const finalizers = service.metadata?.finalizers ?? [];
    if (service.metadata?.deletionTimestamp && finalizers.length === 0) {
      this.services.remove(objectKey(service));
      return structuredClone(service);
    }
    const stored = this.stamp(service);
    this.services.upsert(stored);
    return structuredClone(stored);
  }

  getNode(name: string): Promise<V1Node> {
    this.check('getNode', name);
    return Promise.resolve(this.mustNode(name));
  }

  updateNode(node: V1Node): Promise<V1Node> {
    const name = node.metadata?.name ?? '';
    this.check('updateNode', name);
    const current = this.mustNode(name);
    if (node.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
      throw apiError(409, `Operation cannot be fulfilled on nodes "${name}": the object has been modified`);
    }
    const next = structuredClone(node);
    next.status = current.status;
    return Promise.resolve(this.saveNode(next));
  }

  patchNodeLabels(name: string, labels: Readonly<Record<string, string>>): Promise<V1Node> {
    this.check('patchNodeLabels', name);
    const node = this.mustNode(name);
    node.metadata = { ...node.metadata, labels: { ...node.metadata?.labels, ...labels } };
    return Promise.resolve(this.saveNode(node));
  }

  patchNodeTaints(name: string, taints: readonly V1Taint[], resourceVersion: string): Promise<V1Node> {
    this.check('patchNodeTaints', name);
    const node = this.mustNode(name);
    if (resourceVersion !== node.metadata?.resourceVersion) throw apiError(409, `nodes "${name}": the object has been modified`);
    node.spec = { ...node.spec, taints: [...taints] };
    return Promise.resolve(this.saveNode(node));
  }

  replaceNodeAddresses(name: string, addresses: readonly V1NodeAddress[]): Promise<V1Node> {
    this.check('replaceNodeAddresses', name);
    const node = this.mustNode(name);
    node.status = { ...node.status, addresses: [...addresses] };
    return Promise.resolve(this.saveNode(node));
  }

  patchNodeCondition(name: string, condition: V1NodeCondition): Promise<V1Node> {
    this.check('patchNodeCondition', name);
    const node = this.mustNode(name);
    const others = (node.status?.conditions ?? []).filter((c) => c.type !== condition.type);
    node.status = { ...node.status, conditions: [...others, condition] };
    return Promise.resolve(this.saveNode(node));
  }

  deleteNode(name: string): Promise<void> {
    this.check('deleteNode', name);
    this.mustNode(name);
    this.nodes.remove(name);
    return Promise.resolve();
  }

  addServiceFinalizer(service: V1Service, finalizer: string): Promise<V1Service> {
    this.check('addServiceFinalizer', objectKey(service));
    const current = this.mustService(service);
    const finalizers = current.metadata?.finalizers ?? [];
    if (!finalizers.includes(finalizer)) current.metadata = { ...current.metadata, finalizers: [...finalizers, finalizer] };
    return Promise.resolve(this.saveService(current));
  }

  removeServiceFinalizer(service: V1Service, finalizer: string): Promise<V1Service> {
    this.check('removeServiceFinalizer', objectKey(service));
    const current = this.mustService(service);
    current.metadata = { ...current.metadata, finalizers: (current.metadata?.finalizers ?? []).filter((f) => f !== finalizer) };
    return Promise.resolve(this.saveService(current));
  }

  patchServiceLoadBalancerStatus(service: V1Service, status: V1LoadBalancerStatus): Promise<V1Service> {
    this.check('patchServiceLoadBalancerStatus', objectKey(service));
    const current = this.mustService(service);
    current.status = { ...current.status, loadBalancer: structuredClone(status) };
    return Promise.resolve(this.saveService(current));
  }

  createEvent(event: CoreV1Event): Promise<void> {
    this.check('createEvent', event.metadata?.name ?? '');
    this.events.push(structuredClone(event));
    return Promise.resolve();
  }

  patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: Date; message: string }): Promise<void> {
    this.check('patchEvent', `${namespace}/${name}`);
    const event = this.events.find((e) => e.metadata?.name === name && e.metadata.namespace === namespace);
    if (!event) throw apiError(404, `events "${name}" not found`);
    Object.assign(event, patch);
    return Promise.resolve();
  }
}
