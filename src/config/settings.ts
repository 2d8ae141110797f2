/**
 * The settings registry: every config field, where it may come from (flag, environment variable, cloud-config
 * file key), its default and a description. `load.ts` merges the sources with it (flag > env > file > default)
 * and `scripts/generate-docs.ts` renders `docs/reference/flags.md` and `docs/reference/env.md` from it.
 * Flag names and defaults follow upstream `k8s.io/cloud-provider` (ccm-semantics §2.1, §2.3).
 */
import { ENV } from './env.ts';

export const SettingType = {
  String: 'string',
  Int: 'int',
  Float: 'float',
  Bool: 'bool',
  Duration: 'duration',
  List: 'list',
} as const;
export type SettingType = (typeof SettingType)[keyof typeof SettingType];

export interface SettingDefinition {
  readonly type: SettingType;
  /** Flag name without dashes (`cluster-name`); absent = no flag. */
  readonly flag?: string;
  /** Environment variable; absent = none. */
  readonly env?: string;
  /** Dotted key in the cloud-config file (`loadBalancer.strategy`); absent = not in the file. */
  readonly file?: string;
  /** Default as documented (parsed like a flag value); '' = empty/none. */
  readonly default: string;
  readonly description: string;
  /** Not an upstream flag: documented as a simcloud-ccm extension. */
  readonly extension?: boolean;
  /** Never logged or shown. */
  readonly secret?: boolean;
}

const s = (def: SettingDefinition): SettingDefinition => def;

export const settings = {
  cloudProvider: s({ type: 'string', flag: 'cloud-provider', default: 'simcloud', description: 'The provider; only `simcloud` is served. Upstream has no default and rejects an empty value.' }),
  cloudConfig: s({ type: 'string', flag: 'cloud-config', env: ENV.cloudConfig, default: '', description: 'Path of the cloud-config file (JSON or YAML).' }),
  kubeconfig: s({ type: 'string', flag: 'kubeconfig', default: '', description: 'Path of a kubeconfig; empty = in-cluster config, then `~/.kube/config`.' }),
  clusterName: s({ type: 'string', flag: 'cluster-name', env: ENV.clusterName, file: 'clusterName', default: 'kubernetes', description: 'Cluster name; part of every cloud resource name and label.' }),
  controllers: s({ type: 'list', flag: 'controllers', default: '*', description: 'Controllers to run: `*` = all; `-name` disables one; names or aliases (`cloud-node`, `cloud-node-lifecycle`, `service`, `route`).' }),
  leaderElect: s({ type: 'bool', flag: 'leader-elect', default: 'true', description: 'Run the controllers only while holding the leader Lease.' }),
  leaderElectLeaseDuration: s({ type: 'duration', flag: 'leader-elect-lease-duration', default: '15s', description: 'How long a non-leader waits after the last renewal before taking over.' }),
  leaderElectRenewDeadline: s({ type: 'duration', flag: 'leader-elect-renew-deadline', default: '10s', description: 'How long the leader keeps trying to renew before giving up (then it exits 1).' }),
  leaderElectRetryPeriod: s({ type: 'duration', flag: 'leader-elect-retry-period', default: '2s', description: 'Interval between attempts to acquire or renew the Lease.' }),
  leaderElectResourceName: s({ type: 'string', flag: 'leader-elect-resource-name', default: 'cloud-controller-manager', description: 'Name of the leader Lease.' }),
  leaderElectResourceNamespace: s({ type: 'string', flag: 'leader-elect-resource-namespace', default: 'kube-system', description: 'Namespace of the leader Lease.' }),
  concurrentServiceSyncs: s({ type: 'int', flag: 'concurrent-service-syncs', default: '1', description: 'Service workers (and node-sync parallelism).' }),
  concurrentNodeSyncs: s({ type: 'int', flag: 'concurrent-node-syncs', default: '1', description: 'Cloud-node workers.' }),
  nodeMonitorPeriod: s({ type: 'duration', flag: 'node-monitor-period', default: '5s', description: 'Period of the node-lifecycle check.' }),
  nodeStatusUpdateFrequency: s({ type: 'duration', flag: 'node-status-update-frequency', default: '5m', description: 'Period of the cloud-node address refresh.' }),
  routeReconciliationPeriod: s({ type: 'duration', flag: 'route-reconciliation-period', default: '10s', description: 'Period of the route reconciliation.' }),
  configureCloudRoutes: s({ type: 'bool', flag: 'configure-cloud-routes', default: 'true', description: 'Run the route controller (needs `--cluster-cidr`).' }),
  clusterCIDR: s({ type: 'string', flag: 'cluster-cidr', default: '', description: 'Pod CIDR of the cluster; routes outside it are never touched. Empty with routes on is fatal.' }),
  kubeApiQps: s({ type: 'float', flag: 'kube-api-qps', default: '20', description: 'Steady request rate to the kube-apiserver.' }),
  kubeApiBurst: s({ type: 'int', flag: 'kube-api-burst', default: '30', description: 'Burst of requests to the kube-apiserver.' }),
  bindAddress: s({ type: 'string', flag: 'bind-address', default: '0.0.0.0', description: 'Address of the /healthz and /metrics server.' }),
  securePort: s({ type: 'int', flag: 'secure-port', default: '10258', description: 'Port of the /healthz and /metrics server; 0 picks a free port (logged).' }),
  insecureHttp: s({ type: 'bool', flag: 'insecure-http', default: 'false', extension: true, description: 'Serve plain HTTP instead of HTTPS with an in-memory self-signed certificate.' }),
  allowedHosts: s({ type: 'list', flag: 'allowed-host', env: ENV.allowedHosts, default: '', extension: true, description: 'Host names (`NAME` or `NAME:PORT`, comma-separated) the /healthz and /metrics server accepts besides loopback and the bind address; any other Host header gets 403 (DNS-rebinding guard).' }),
  verbosity: s({ type: 'int', flag: 'v', default: '0', description: 'Log verbosity like klog: 0 info, 2 debug, 4 trace.' }),
  loadBalancerClass: s({ type: 'string', flag: 'load-balancer-class', default: '', extension: true, description: 'Empty: ignore every Service with a class (upstream). Set: serve exactly the Services of this class.' }),
  endpoint: s({ type: 'string', env: ENV.endpoint, file: 'endpoint', default: '', description: 'Base URL of the simcloud API.' }),
  token: s({ type: 'string', env: ENV.token, file: 'token', default: '', secret: true, description: 'simcloud API token.' }),
  requestTimeout: s({ type: 'duration', env: ENV.requestTimeout, file: 'requestTimeout', default: '30s', description: 'Timeout of one simcloud API request.' }),
  network: s({ type: 'string', env: ENV.network, file: 'routes.network', default: '', description: 'Network (id or name) holding the pod routes; without it the Routes capability is absent.' }),
  routesEnabled: s({ type: 'bool', env: ENV.routesEnabled, file: 'routes.enabled', default: 'true', description: 'Offer the Routes capability (also needs a network).' }),
  loadBalancersEnabled: s({ type: 'bool', env: ENV.loadBalancersEnabled, file: 'loadBalancer.enabled', default: 'true', description: 'Offer the LoadBalancer capability.' }),
  loadBalancerStrategy: s({ type: 'string', env: ENV.loadBalancerStrategy, file: 'loadBalancer.strategy', default: 'lb', description: '`lb`: one load balancer + server group + firewall policy per Service; `ip-block`: one /29 IP block per Service.' }),
  logFormat: s({ type: 'string', env: ENV.logFormat, default: 'json', extension: true, description: '`json` or `pretty`.' }),
} as const satisfies Record<string, SettingDefinition>;

export type SettingKey = keyof typeof settings;

/** The definition for a flag name (`-v` and `--v` both map to `v`). */
export function settingByFlag(flag: string): [SettingKey, SettingDefinition] | undefined {
  const entry = Object.entries(settings).find(([, def]) => 'flag' in def && def.flag === flag);
  return entry as [SettingKey, SettingDefinition] | undefined;
}
