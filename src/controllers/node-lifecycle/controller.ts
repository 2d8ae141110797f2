/**
 * cloud-node-lifecycle-controller (upstream `cloud-provider/controllers/nodelifecycle`): a periodic
 * monitor (no queue, no handlers) that runs `monitorNodes` every `--node-monitor-period` (5 s,
 * sliding: the next run starts 5 s after the previous one ends).
 *
 * ```ts
 * const c = new CloudNodeLifecycleController({ nodes, kube, instances, recorder, logger });
 * await c.run(signal);
 * ```
 */
import type { V1Node } from '@kubernetes/client-node';
import type { InstancesV2 } from '../../cloud/instances.ts';
import { realClock, type Clock } from '../../kube/clock.ts';
import type { EventRecorder } from '../../kube/events.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import { noopControllerMetrics, type ControllerMetrics, observedPass } from '../../kube/metrics.ts';
import { runPeriodically } from '../../kube/run.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { ControllerName } from '../names.ts';
import { monitorNodes, type LifecycleDeps } from './sync.ts';

export const CloudNodeLifecycleControllerName = ControllerName.CloudNodeLifecycle;

export interface CloudNodeLifecycleControllerConfig {
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  readonly instances: InstancesV2;
  /** Recorder with source component `cloud-node-lifecycle-controller`. */
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly metrics?: ControllerMetrics;
  /** `--node-monitor-period` in ms (default 5 s). */
  readonly nodeMonitorPeriodMs?: number;
}

export class CloudNodeLifecycleController {
  readonly name = CloudNodeLifecycleControllerName;
  private readonly deps: LifecycleDeps;
  private readonly metrics: ControllerMetrics;
  private readonly periodMs: number;

  constructor(config: CloudNodeLifecycleControllerConfig) {
    this.deps = {
      nodes: config.nodes,
      kube: config.kube,
      instances: config.instances,
      recorder: config.recorder,
      clock: config.clock ?? realClock,
      logger: config.logger,
    };
    this.metrics = config.metrics ?? noopControllerMetrics;
    this.periodMs = config.nodeMonitorPeriodMs ?? 5_000;
  }

  /** One monitor pass (exposed for tests). */
  async monitorNodes(): Promise<void> {
    await observedPass(this.metrics, this.name, this.deps.clock, () => monitorNodes(this.deps));
  }

  async run(signal: AbortSignal): Promise<void> {
    const { logger, clock } = this.deps;
    logger.info(`Starting ${this.name}`);
    if (await this.deps.nodes.waitForSync(signal)) {
      await runPeriodically(() => this.monitorNodes(), { periodMs: this.periodMs, sliding: true, clock, logger }, signal);
    }
    logger.info(`Shutting down ${this.name}`);
  }
}
