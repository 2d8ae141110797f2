/** Prometheus metrics (`simcloud_*`), one registry per app so several servers can run in one process. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  requestDuration: Histogram<'method' | 'route'>;
  inFlight: Gauge;
  actions: Counter<'command' | 'status'>;
  actionDuration: Histogram<'command'>;
  faults: Counter<'kind'>;
  idempotentReplays: Counter;
  storeWrites: Gauge;
  storeFileWrites: Gauge;
  resources: Gauge<'type'>;
}

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults === true) collectDefaultMetrics({ register: registry, prefix: 'simcloud_process_' });
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: 'simcloud_http_requests_total',
      help: 'API requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    requestDuration: new Histogram({
      name: 'simcloud_http_request_duration_seconds',
      help: 'API request latency',
      labelNames: ['method', 'route'],
      registers,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    }),
    inFlight: new Gauge({ name: 'simcloud_http_requests_in_flight', help: 'API requests being served (event streams not counted)', registers }),
    actions: new Counter({ name: 'simcloud_actions_total', help: 'Finished actions by command and status', labelNames: ['command', 'status'], registers }),
    actionDuration: new Histogram({
      name: 'simcloud_action_duration_seconds',
      help: 'Simulated action duration',
      labelNames: ['command'],
      registers,
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60],
    }),
    faults: new Counter({ name: 'simcloud_faults_injected_total', help: 'Injected faults by kind', labelNames: ['kind'], registers }),
    idempotentReplays: new Counter({
      name: 'simcloud_idempotent_replays_total',
      help: 'Requests answered from an earlier request with the same Idempotency-Key',
      registers,
    }),
    storeWrites: new Gauge({ name: 'simcloud_store_commits_total', help: 'Store commits acknowledged', registers }),
    storeFileWrites: new Gauge({ name: 'simcloud_store_file_writes_total', help: 'Journal flushes and snapshot writes', registers }),
    resources: new Gauge({ name: 'simcloud_resources', help: 'Resources in the store by type', labelNames: ['type'], registers }),
  };
}
