/**
 * node-route-controller (upstream `cloud-provider/controllers/route`): every
 * `--route-reconciliation-period` (10 s, non-sliding) makes the cloud's routes match the nodes'
 * `spec.podCIDRs` inside `--cluster-cidr`, and keeps each node's NetworkUnavailable condition.
 *
 * ```ts
 * const c = new RouteController({ nodes, kube, routes, recorder, logger, clusterName, clusterCIDRs: '10.244.0.0/16' });
 * await c.run(signal);
 * ```
 * The constructor throws on an empty or invalid `clusterCIDRs`: upstream treats that as fatal for the
 * whole CCM when routes are enabled.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { Routes } from '../../cloud/routes.ts';
import { realClock, type Clock } from '../../kube/clock.ts';
import type { EventRecorder } from '../../kube/events.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import type { Logger } from '../../kube/logger.ts';
import { noopControllerMetrics, type ControllerMetrics, observedPass } from '../../kube/metrics.ts';
import { runPeriodically } from '../../kube/run.ts';
import type { SharedInformer } from '../../kube/shared-informer.ts';
import { ControllerName } from '../names.ts';
import { parseClusterCIDRs } from './cidr.ts';
import { reconcileNodeRoutes, type RouteSyncDeps } from './sync.ts';

export const RouteControllerName = ControllerName.Route;

export interface RouteControllerConfig {
  readonly nodes: SharedInformer<V1Node>;
  readonly kube: KubePort;
  /** The cloud's Routes capability (the controller is not built without it). */
  readonly routes: Routes;
  /** Recorder with source component `route_controller`. */
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  /** `--cluster-name` (default `kubernetes`). */
  readonly clusterName: string;
  /** `--cluster-cidr`: a comma-separated string or a list; 1 CIDR or a dual-stack pair. */
  readonly clusterCIDRs: string | readonly string[];
  /** `--route-reconciliation-period` in ms (default 10 s). */
  readonly reconciliationPeriodMs?: number;
  readonly clock?: Clock;
  readonly metrics?: ControllerMetrics;
}

export class RouteController {
  readonly name = RouteControllerName;
  private readonly deps: RouteSyncDeps;
  private readonly periodMs: number;
  private readonly metrics: ControllerMetrics;

  constructor(config: RouteControllerConfig) {
    const { nodes, kube, routes, recorder, logger, clusterName } = config;
    const clusterCIDRs = parseClusterCIDRs(config.clusterCIDRs);
    this.deps = { nodes, kube, routes, recorder, logger, clusterName, clusterCIDRs, clock: config.clock ?? realClock };
    this.periodMs = config.reconciliationPeriodMs ?? 10_000;
    this.metrics = config.metrics ?? noopControllerMetrics;
  }

  /** One reconciliation (exposed for tests). */
  async reconcile(): Promise<void> {
    await observedPass(this.metrics, this.name, this.deps.clock, () => reconcileNodeRoutes(this.deps));
  }

  async run(signal: AbortSignal): Promise<void> {
    const { logger, clock } = this.deps;
    logger.info(`Starting ${this.name}`);
    if (await this.deps.nodes.waitForSync(signal)) {
      await runPeriodically(() => this.reconcile(), { periodMs: this.periodMs, sliding: false, clock, logger }, signal);
    }
    logger.info(`Shutting down ${this.name}`);
  }
}
