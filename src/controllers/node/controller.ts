/**
 * cloud-node-controller (upstream `cloud-provider/controllers/node`): initialises Nodes registered with
 * the `node.cloudprovider.kubernetes.io/uninitialized` taint from the cloud's InstanceMetadata, and
 * refreshes their addresses every `--node-status-update-frequency` (5 min).
 *
 * ```ts
 * const c = new CloudNodeController({ nodes, kube, instances, recorder, logger });
 * await c.run(signal); // until signal aborts
 * ```
 * Wiring: Node add → enqueue name; Node update → enqueue the new name; no delete handler. Queue `Nodes`
 * with client-go's default controller limiter (max of 5 ms→1000 s per item and 10 qps / 100 burst).
 */
import type { V1Node } from '@kubernetes/client-node';
import type { InstancesV2 } from '../../cloud/instances.ts';
import { realClock, type Clock } from '../../kube/clock.ts';
import type { EventRecorder } from '../../kube/events.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import { noopControllerMetrics, type ControllerMetrics, type WorkQueueMetricsProvider } from '../../kube/metrics.ts';
import { runPeriodically, runWorkers } from '../../kube/run.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { WorkQueue } from '../../kube/workqueue/queue.ts';
import { defaultControllerRateLimiter } from '../../kube/workqueue/rate-limiter.ts';
import { ControllerName } from '../names.ts';
import { mapWithConcurrency } from '../../../lib/concurrency.ts';
import { syncNode, updateNodeStatusFor, type NodeSyncDeps } from './sync.ts';

export const CloudNodeControllerName = ControllerName.CloudNode;

export interface CloudNodeControllerConfig {
  /** Node informer (cache + handlers). */
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  /** The cloud's InstancesV2 capability (the controller is not built without it). */
  readonly instances: InstancesV2;
  /** Recorder with source component `cloud-node-controller`. */
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly metrics?: ControllerMetrics;
  readonly queueMetrics?: WorkQueueMetricsProvider;
  /** `--concurrent-node-syncs` (default 1): workers and periodic-sync parallelism. */
  readonly workers?: number;
  /** `--node-status-update-frequency` in ms (default 5 min). */
  readonly nodeStatusUpdateFrequencyMs?: number;
}

export class CloudNodeController {
  readonly name = CloudNodeControllerName;
  readonly queue: WorkQueue;
  private readonly deps: NodeSyncDeps;
  private readonly workers: number;
  private readonly periodMs: number;

  constructor(config: CloudNodeControllerConfig) {
    const clock = config.clock ?? realClock;
    this.deps = {
      nodes: config.nodes,
      kube: config.kube,
      instances: config.instances,
      recorder: config.recorder,
      clock,
      logger: config.logger,
      metrics: config.metrics ?? noopControllerMetrics,
    };
    this.workers = config.workers ?? 1;
    this.periodMs = config.nodeStatusUpdateFrequencyMs ?? 5 * 60_000;
    this.queue = new WorkQueue({ name: 'Nodes', rateLimiter: defaultControllerRateLimiter(clock), clock, metrics: config.queueMetrics?.forQueue('Nodes') });
    config.nodes.addEventHandler({
      onAdd: (node) => this.enqueue(node),
      onUpdate: (_old, node) => this.enqueue(node),
    });
  }

  private enqueue(node: V1Node): void {
    const name = node.metadata?.name;
    if (name) this.queue.add(name);
  }

  /** Syncs one node (exposed for tests and the worker). */
  sync(name: string): Promise<void> {
    return syncNode(this.deps, name);
  }

  /** Upstream `UpdateNodeStatus`: refresh addresses of every initialised node in the cache. */
  async updateNodeStatus(): Promise<void> {
    const nodes = this.deps.nodes.list();
    await mapWithConcurrency(nodes, this.workers, (node) => updateNodeStatusFor(this.deps, node));
  }

  /** Waits for the node cache, then runs the workers and the periodic address sync until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { logger, clock } = this.deps;
    logger.info(`Starting ${this.name}`);
    if (!(await this.deps.nodes.waitForSync(signal))) {
      this.queue.shutDown();
      return;
    }
    const periodic = runPeriodically(() => this.updateNodeStatus(), { periodMs: this.periodMs, sliding: true, clock, logger }, signal);
    const workerOptions = { controller: this.name, queue: this.queue, sync: (k: string) => this.sync(k), clock, logger, metrics: this.deps.metrics };
    await Promise.all([periodic, runWorkers(this.workers, workerOptions, signal)]);
    logger.info(`Shutting down ${this.name}`);
  }
}
