/**
 * service-lb-controller (upstream `cloud-provider/controllers/service`): keeps a cloud load balancer
 * per `type: LoadBalancer` Service, guarded by the finalizer `service.kubernetes.io/load-balancer-cleanup`.
 *
 * ```ts
 * const c = new ServiceController({ services, nodes, kube, balancer, recorder, logger, clusterName });
 * await c.run(signal);
 * ```
 * Wiring (upstream): Service add → enqueue if it wants an LB or needs cleanup; update → enqueue if
 * `needsUpdate(old, new)` or it needs cleanup; no delete handler; handler resync 30 s. Node add/delete →
 * node queue; node update → only on exclude-label flip or providerID change; handler resync 100 s.
 * Queues `service` and `node`, each 5 s → 300 s per item; `workers` service workers, one node worker.
 * A `RetryError` from Ensure requeues after exactly its delay.
 */
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { findRetryError } from '../../cloud/errors.ts';
import type { LoadBalancer } from '../../cloud/load-balancer.ts';
import { realClock, sleepUnlessAborted, type Clock } from '../../kube/clock.ts';
import type { EventRecorder } from '../../kube/events.ts';
import { objectKey } from '../../kube/keys.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import { noopControllerMetrics, type ControllerMetrics, type WorkQueueMetricsProvider } from '../../kube/metrics.ts';
import { runWorkers } from '../../kube/run.ts';
import { hasTaintKey, TaintKey } from '../../kube/taints.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { WorkQueue } from '../../kube/workqueue/queue.ts';
import { serviceRateLimiter } from '../../kube/workqueue/rate-limiter.ts';
import { ControllerName } from '../names.ts';
import { needsCleanup, needsUpdate, wantsLoadBalancer } from './needs-update.ts';
import { respectsStablePredicates, shouldSyncUpdatedNode } from './node-set.ts';
import { syncNodes } from './node-sync.ts';
import { newServiceState, syncService, type ServiceSyncDeps } from './sync.ts';

export const ServiceControllerName = ControllerName.Service;
export const ServiceResyncPeriodMs = 30_000;
export const NodeResyncPeriodMs = 100_000;

export interface ServiceControllerConfig {
  readonly services: SharedInformer<V1Service>;
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  /** The cloud's LoadBalancer capability (the controller is not built without it). */
  readonly balancer: LoadBalancer;
  /** Recorder with source component `service-controller`. */
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  /** `--cluster-name` (default `kubernetes`). */
  readonly clusterName: string;
  /** `--load-balancer-class`: unset = upstream (ignore every Service with a class); set = serve exactly that class. */
  readonly loadBalancerClass?: string;
  /** `--concurrent-service-syncs` (default 1). */
  readonly workers?: number;
  readonly clock?: Clock;
  readonly metrics?: ControllerMetrics;
  readonly queueMetrics?: WorkQueueMetricsProvider;
  /** Quiet period a node-triggered pass waits for, to batch node changes (default 1 s, at most 5; 0 = upstream). */
  readonly nodeSyncBatchMs?: number;
}

export class ServiceController {
  readonly name = ServiceControllerName;
  readonly serviceQueue: WorkQueue;
  readonly nodeQueue: WorkQueue;
  readonly deps: ServiceSyncDeps;
  private readonly clock: Clock;
  private readonly workers: number;
  private readonly nodeSyncBatchMs: number;

  constructor(config: ServiceControllerConfig) {
    this.clock = config.clock ?? realClock;
    this.workers = config.workers ?? 1;
    this.nodeSyncBatchMs = config.nodeSyncBatchMs ?? 1000;
    const { services, nodes, kube, balancer, recorder, logger, clusterName, loadBalancerClass } = config;
    const metrics = config.metrics ?? noopControllerMetrics;
    this.deps = { services, nodes, kube, balancer, recorder, logger, metrics, clusterName, loadBalancerClass, state: newServiceState() };
    const clock = this.clock;
    this.serviceQueue = new WorkQueue({ name: 'service', rateLimiter: serviceRateLimiter(), clock, metrics: config.queueMetrics?.forQueue('service') });
    this.nodeQueue = new WorkQueue({ name: 'node', rateLimiter: serviceRateLimiter(), clock, metrics: config.queueMetrics?.forQueue('node') });
    services.addEventHandler(
      {
        onAdd: (svc) => this.onServiceAdd(svc),
        onUpdate: (oldSvc, newSvc) => this.onServiceUpdate(oldSvc, newSvc),
      },
      ServiceResyncPeriodMs,
    );
    nodes.addEventHandler(
      {
        onAdd: (node) => this.nodeQueue.add(objectKey(node)),
        onUpdate: (oldNode, newNode) => {
          if (shouldSyncUpdatedNode(oldNode, newNode)) this.nodeQueue.add(objectKey(newNode));
        },
        onDelete: (node) => this.nodeQueue.add(objectKey(node)),
      },
      NodeResyncPeriodMs,
    );
  }

  private onServiceAdd(svc: V1Service): void {
    if (wantsLoadBalancer(svc, this.deps.loadBalancerClass) || needsCleanup(svc)) this.serviceQueue.add(objectKey(svc));
  }

  private onServiceUpdate(oldSvc: V1Service, newSvc: V1Service): void {
    if (needsUpdate(oldSvc, newSvc, this.deps.loadBalancerClass) || needsCleanup(newSvc)) this.serviceQueue.add(objectKey(newSvc));
  }

  /** Syncs one Service key (exposed for tests and the worker). */
  syncService(key: string): Promise<void> {
    return syncService(this.deps, key);
  }

  /** One node-queue item: node sync over all cached Services; failures go back to the service queue. */
  async syncNodes(): Promise<void> {
    const retry = await syncNodes(this.deps, this.workers, this.clock);
    for (const key of retry) this.serviceQueue.add(key);
  }

  /**
   * Deviation from upstream (benchmark S6, listed in deploy/README.md): a node-triggered pass first waits until node changes have been
   * quiet for `nodeSyncBatchMs` and no node that changed meanwhile still carries the uninitialized taint
   * (at most 5 windows), covering every change queued meanwhile. A joining node changes the LB node set
   * twice, on registration and when the node controller sets its providerID (the name -> providerID map
   * of `nodesSufficientlyEqual`); waiting for both makes nodes joining together (a scale-up) cost one
   * UpdateLoadBalancer per LB instead of one or two per arrival batch. The node set passed to the cloud is
   * upstream's (uninitialized nodes included); only the start of the pass moves. Upstream starts at once.
   */
  private async batchedSyncNodes(first: string, signal: AbortSignal): Promise<void> {
    const changed = new Set([first]);
    let windows = 0;
    while (this.nodeSyncBatchMs > 0 && windows < 5) {
      windows++;
      if (!(await sleepUnlessAborted(this.clock, this.nodeSyncBatchMs, signal))) return;
      const drained = await this.drainNodeQueue();
      for (const key of drained) changed.add(key);
      if (drained.length === 0 && !this.awaitingInitialisation(changed)) break;
    }
    this.deps.logger.debug({ changedNodes: changed.size, waitedMs: windows * this.nodeSyncBatchMs }, 'Node changes batched for a load balancer hosts pass');
    await this.syncNodes();
  }

  /** Whether a changed node is still waiting for the node controller (its providerID will change the set again). */
  private awaitingInitialisation(keys: ReadonlySet<string>): boolean {
    for (const key of keys) {
      const node = this.deps.nodes.get(key);
      if (node && respectsStablePredicates(node) && hasTaintKey(node, TaintKey.Uninitialized)) return true;
    }
    return false;
  }

  /** Marks every queued node change as covered by the coming pass; returns their keys. */
  private async drainNodeQueue(): Promise<string[]> {
    const drained: string[] = [];
    while (this.nodeQueue.len() > 0) {
      const key = await this.nodeQueue.get();
      if (key === undefined) break;
      this.nodeQueue.done(key);
      drained.push(key);
    }
    return drained;
  }

  async run(signal: AbortSignal): Promise<void> {
    const { logger } = this.deps;
    logger.info(`Starting ${this.name}`);
    const synced = (await this.deps.services.waitForSync(signal)) && (await this.deps.nodes.waitForSync(signal));
    if (!synced) {
      this.serviceQueue.shutDown();
      this.nodeQueue.shutDown();
      return;
    }
    const common = { clock: this.clock, logger, metrics: this.deps.metrics };
    const retryAfterMs = (err: unknown): number | undefined => findRetryError(err)?.retryAfterMs;
    await Promise.all([
      runWorkers(this.workers, { ...common, controller: this.name, queue: this.serviceQueue, sync: (k) => this.syncService(k), retryAfterMs }, signal),
      runWorkers(1, { ...common, controller: `${this.name}-nodes`, queue: this.nodeQueue, sync: (key) => this.batchedSyncNodes(key, signal) }, signal),
    ]);
    logger.info(`Shutting down ${this.name}`);
  }
}
