/**
 * Every environment variable the CCM reads, in one place, so no module reads process.env on its own. Descriptions live in the
 * settings registry (`settings.ts`), which also says which config field each variable fills.
 */
export const ENV = {
  /** API token for simcloud (secret). */
  token: 'SIMCLOUD_TOKEN',
  /** Base URL of the simcloud API, e.g. `http://127.0.0.1:8080`. */
  endpoint: 'SIMCLOUD_ENDPOINT',
  /** Network (id or name) that holds the pod routes. */
  network: 'SIMCLOUD_NETWORK',
  /** `true`/`false`: serve type=LoadBalancer Services. */
  loadBalancersEnabled: 'SIMCLOUD_LOAD_BALANCERS_ENABLED',
  /** `lb` or `ip-block`. */
  loadBalancerStrategy: 'SIMCLOUD_LOAD_BALANCER_STRATEGY',
  /** `true`/`false`: program pod routes into the network. */
  routesEnabled: 'SIMCLOUD_ROUTES_ENABLED',
  /** Timeout of one simcloud API request. */
  requestTimeout: 'SIMCLOUD_REQUEST_TIMEOUT',
  /** Cluster name (same as `--cluster-name`). */
  clusterName: 'CCM_CLUSTER_NAME',
  /** Path of the cloud-config file (same as `--cloud-config`). */
  cloudConfig: 'CCM_CLOUD_CONFIG',
  /** Log format: `json` (default) or `pretty`. */
  logFormat: 'CCM_LOG_FORMAT',
  /** Extra Host names the /healthz and /metrics server accepts (same as `--allowed-host`). */
  allowedHosts: 'CCM_ALLOWED_HOSTS',
  /** The HTTP client under both API clients: `http1`, `undici` or `http2`. */
  httpTransport: 'CCM_HTTP_TRANSPORT',
} as const;
export type EnvName = (typeof ENV)[keyof typeof ENV];
