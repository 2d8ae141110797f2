/**
 * Prometheus metrics (prom-client) named like upstream:
 * - `workqueue_*` with label `name` (client-go's workqueue metrics provider);
 * - `ccm_controller_syncs_total{controller,result}` and `ccm_controller_sync_duration_seconds{controller}`;
 * - `node_controller_cloud_provider_taint_removal_delay_seconds`,
 *   `node_controller_initial_node_sync_delay_seconds`;
 * - `service_controller_loadbalancer_sync_total`, `_nodesync_error_total`, `_nodesync_latency_seconds`,
 *   `_update_loadbalancer_host_latency_seconds`;
 * - `cloudprovider_simcloud_api_request_duration_seconds{request}` and
 *   `cloudprovider_simcloud_api_request_errors{request}` (upstream's per-provider pattern) plus
 *   `ccm_cloud_api_calls_total{operation,code}` for the provider to observe each cloud call.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ControllerMetrics, SyncResult, WorkQueueMetrics, WorkQueueMetricsProvider } from '../kube/metrics.ts';

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const queueBuckets = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10];
const delayBuckets = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 3600];

/** Per-call hook a cloud provider uses to report its API calls. */
export interface CloudApiMetrics {
  observeCloudCall(operation: string, code: string | number, seconds: number): void;
}

export class CcmMetrics implements ControllerMetrics, WorkQueueMetricsProvider, CloudApiMetrics {
  readonly registry: Registry;
  private readonly m;

  constructor(options: { registry?: Registry; defaultMetrics?: boolean; provider?: string } = {}) {
    this.registry = options.registry ?? new Registry();
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    const provider = options.provider ?? 'simcloud';
    this.m = {
      depth: new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers }),
      adds: new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers }),
      latency: new Histogram({
        name: 'workqueue_queue_duration_seconds',
        help: 'How long in seconds an item stays in workqueue before being requested.',
        labelNames: ['name'],
        buckets: queueBuckets,
        registers,
      }),
      work: new Histogram({
        name: 'workqueue_work_duration_seconds',
        help: 'How long in seconds processing an item from workqueue takes.',
        labelNames: ['name'],
        buckets: queueBuckets,
        registers,
      }),
      retries: new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers }),
      syncs: new Counter({ name: 'ccm_controller_syncs_total', help: 'Controller syncs by result', labelNames: ['controller', 'result'], registers }),
      syncDuration: new Histogram({
        name: 'ccm_controller_sync_duration_seconds',
        help: 'Controller sync duration',
        labelNames: ['controller'],
        buckets: latencyBuckets,
        registers,
      }),
      taintRemoval: new Histogram({
        name: 'node_controller_cloud_provider_taint_removal_delay_seconds',
        help: 'Number of seconds after node creation when NodeController removed the cloud-provider taint of a single node.',
        buckets: delayBuckets,
        registers,
      }),
      initialSync: new Histogram({
        name: 'node_controller_initial_node_sync_delay_seconds',
        help: 'Number of seconds after node creation when NodeController finished the initial synchronization of a single node.',
        buckets: delayBuckets,
        registers,
      }),
      lbSync: new Counter({
        name: 'service_controller_loadbalancer_sync_total',
        help: 'A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster',
        registers,
      }),
      nodeSyncErrors: new Counter({
        name: 'service_controller_nodesync_error_total',
        help: 'A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster',
        registers,
      }),
      nodeSyncLatency: new Histogram({
        name: 'service_controller_nodesync_latency_seconds',
        help: 'A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.',
        buckets: latencyBuckets,
        registers,
      }),
      hostLatency: new Histogram({
        name: 'service_controller_update_loadbalancer_host_latency_seconds',
        help: 'A metric measuring the latency for updating each load balancer hosts.',
        buckets: latencyBuckets,
        registers,
      }),
      cloudDuration: new Histogram({
        name: `cloudprovider_${provider}_api_request_duration_seconds`,
        help: 'Latency of a cloud API call',
        labelNames: ['request'],
        buckets: latencyBuckets,
        registers,
      }),
      cloudErrors: new Counter({ name: `cloudprovider_${provider}_api_request_errors`, help: 'Cloud API errors', labelNames: ['request'], registers }),
      cloudCalls: new Counter({
        name: 'ccm_cloud_api_calls_total',
        help: 'Cloud API calls by operation and status code',
        labelNames: ['operation', 'code'],
        registers,
      }),
    };
  }

  forQueue(name: string): WorkQueueMetrics {
    const m = this.m;
    return {
      add: () => m.adds.inc({ name }),
      depth: (n) => m.depth.set({ name }, n),
      latency: (s) => m.latency.observe({ name }, s),
      workDuration: (s) => m.work.observe({ name }, s),
      retry: () => m.retries.inc({ name }),
    };
  }

  observeSync(controller: string, result: SyncResult, seconds: number): void {
    this.m.syncs.inc({ controller, result });
    this.m.syncDuration.observe({ controller }, seconds);
  }
  observeTaintRemovalDelay(seconds: number): void {
    this.m.taintRemoval.observe(seconds);
  }
  observeInitialNodeSyncDelay(seconds: number): void {
    this.m.initialSync.observe(seconds);
  }
  observeNodeSyncLatency(seconds: number): void {
    this.m.nodeSyncLatency.observe(seconds);
  }
  observeUpdateLoadBalancerHostLatency(seconds: number): void {
    this.m.hostLatency.observe(seconds);
  }
  incNodeSyncError(): void {
    this.m.nodeSyncErrors.inc();
  }
  incLoadBalancerSync(): void {
    this.m.lbSync.inc();
  }

  observeCloudCall(operation: string, code: string | number, seconds: number): void {
    this.m.cloudCalls.inc({ operation, code: String(code) });
    this.m.cloudDuration.observe({ request: operation }, seconds);
    const ok = typeof code === 'number' ? code < 400 : code === 'ok';
    if (!ok) this.m.cloudErrors.inc({ request: operation });
  }

  /** Prometheus text exposition for `/metrics`. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
