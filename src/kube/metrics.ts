/**
 * Metric hooks the kube machinery and the controllers call. They are interfaces so `src/kube` and
 * `src/controllers` stay free of prom-client; `src/telemetry/metrics.ts` implements them.
 */

/** One work queue's metrics, after client-go's `workqueue` metrics. */
export interface WorkQueueMetrics {
  /** An item became dirty (a deduplicated add is not counted, as client-go's `adds_total`). */
  add(): void;
  /** Current depth (items waiting, not processing). */
  depth(n: number): void;
  /** Seconds an item waited in the queue before `get` handed it out. */
  latency(seconds: number): void;
  /** Seconds between `get` and `done`. */
  workDuration(seconds: number): void;
  /** A rate-limited re-add (`retries_total`). */
  retry(): void;
}

export interface WorkQueueMetricsProvider {
  forQueue(name: string): WorkQueueMetrics;
}

/** The sync outcome labels. */
export const SyncResult = { Success: 'success', Error: 'error', Retry: 'retry' } as const;
export type SyncResult = (typeof SyncResult)[keyof typeof SyncResult];

/** Per-controller metrics. */
export interface ControllerMetrics {
  /** One sync (of a key, or one periodic pass) finished with `result` after `seconds`. */
  observeSync(controller: string, result: SyncResult, seconds: number): void;
  /** Upstream `node_controller_cloud_provider_taint_removal_delay_seconds`. */
  observeTaintRemovalDelay?(seconds: number): void;
  /** Upstream `node_controller_initial_node_sync_delay_seconds`. */
  observeInitialNodeSyncDelay?(seconds: number): void;
  /** Upstream service_controller `nodesync_latency_seconds` / `update_loadbalancer_host_latency_seconds`. */
  observeNodeSyncLatency?(seconds: number): void;
  observeUpdateLoadBalancerHostLatency?(seconds: number): void;
  /** Upstream service_controller `nodesync_error_total`. */
  incNodeSyncError?(): void;
  /** Upstream service_controller `loadbalancer_sync_total`. */
  incLoadBalancerSync?(): void;
}

export const noopWorkQueueMetrics: WorkQueueMetrics = {
  add: () => undefined,
  depth: () => undefined,
  latency: () => undefined,
  workDuration: () => undefined,
  retry: () => undefined,
};

export const noopControllerMetrics: ControllerMetrics = { observeSync: () => undefined };

/** Runs one periodic pass of `controller` and records its outcome and duration (errors propagate). */
export async function observedPass(metrics: ControllerMetrics, controller: string, clock: { now(): number }, pass: () => Promise<void>): Promise<void> {
  const started = clock.now();
  let result: SyncResult = SyncResult.Success;
  try {
    await pass();
  } catch (err) {
    result = SyncResult.Error;
    throw err;
  } finally {
    metrics.observeSync(controller, result, (clock.now() - started) / 1000);
  }
}
