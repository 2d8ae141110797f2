/**
 * The settings registry: every config field, where it may come from (flag, environment variable, cloud-config
 * file key), its type and the schema parsing it, its default and a description. Everything else derives from
 * it: the zod schema and the cloud-config file's keys (`schema.ts`), the merge of the sources (`load.ts`:
 * flag > env > file > default), `--help`, and `docs/reference/flags.md` and `env.md`
 * (`scripts/generate-docs.ts`). A setting without a schema does not compile, and a field cannot be in the
 * schema without being here. Flag names and defaults follow upstream `k8s.io/cloud-provider`.
 */
import { z } from 'zod';
import { BearerToken } from '../../simulator/api/schema/projects.ts';
import { HttpTransports } from '../../lib/http-pool.ts';
import { ENV } from './env.ts';
import { field, type Field } from './fields.ts';

export interface SettingDefinition<S extends z.ZodType = z.ZodType> extends Field<S> {
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

const s = <S extends z.ZodType>(def: SettingDefinition<S>): SettingDefinition<S> => def;

export const settings = {
  cloudProvider: s({
    ...field.textWith(z.string().min(1, 'cannot be empty')),
    flag: 'cloud-provider',
    default: 'simcloud',
    description:
      'The provider, by its registered name; `simcloud` is the one registered. An unknown name exits 2 naming the registered ones. Upstream has no default and rejects an empty value.',
  }),
  cloudConfig: s({ ...field.text(), flag: 'cloud-config', env: ENV.cloudConfig, default: '', description: 'Path of the cloud-config file (JSON or YAML).' }),
  kubeconfig: s({
    ...field.text(),
    flag: 'kubeconfig',
    default: '',
    description:
      'Path of a kubeconfig; empty = the in-cluster service account, else the files of `$KUBECONFIG` merged as client-go merges them, else `~/.kube/config`. Tokens, token files, client certificates, basic auth and exec plugins work; auth-provider plugins do not.',
  }),
  clusterName: s({
    ...field.textWith(z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label (a-z, 0-9, -), at most 63 characters')),
    flag: 'cluster-name',
    env: ENV.clusterName,
    file: 'clusterName',
    default: 'kubernetes',
    description: 'Cluster name; part of every cloud resource name and label.',
  }),
  controllers: s({
    ...field.list(),
    flag: 'controllers',
    default: '*',
    description: 'Controllers to run: `*` = all; `-name` disables one; names or aliases (`cloud-node`, `cloud-node-lifecycle`, `service`, `route`).',
  }),
  leaderElect: s({ ...field.bool(), flag: 'leader-elect', default: 'true', description: 'Run the controllers only while holding the leader Lease.' }),
  leaderElectLeaseDuration: s({
    ...field.duration(1),
    flag: 'leader-elect-lease-duration',
    default: '15s',
    description: 'How long a non-leader waits after the last renewal before taking over.',
  }),
  leaderElectRenewDeadline: s({
    ...field.duration(1),
    flag: 'leader-elect-renew-deadline',
    default: '10s',
    description: 'How long the leader keeps trying to renew before giving up (then it exits 1).',
  }),
  leaderElectRetryPeriod: s({
    ...field.duration(1),
    flag: 'leader-elect-retry-period',
    default: '2s',
    description: 'Interval between attempts to acquire or renew the Lease.',
  }),
  leaderElectResourceName: s({
    ...field.textWith(z.string().min(1)),
    flag: 'leader-elect-resource-name',
    default: 'cloud-controller-manager',
    description: 'Name of the leader Lease.',
  }),
  leaderElectResourceNamespace: s({
    ...field.textWith(z.string().min(1)),
    flag: 'leader-elect-resource-namespace',
    default: 'kube-system',
    description: 'Namespace of the leader Lease.',
  }),
  concurrentServiceSyncs: s({
    ...field.int(1, 100),
    flag: 'concurrent-service-syncs',
    default: '1',
    description: 'Service workers (and node-sync parallelism).',
  }),
  concurrentNodeSyncs: s({ ...field.int(1, 100), flag: 'concurrent-node-syncs', default: '1', description: 'Cloud-node workers.' }),
  nodeMonitorPeriod: s({ ...field.duration(1), flag: 'node-monitor-period', default: '5s', description: 'Period of the node-lifecycle check.' }),
  nodeStatusUpdateFrequency: s({
    ...field.duration(1),
    flag: 'node-status-update-frequency',
    default: '5m',
    description: 'Period of the cloud-node address refresh.',
  }),
  routeReconciliationPeriod: s({
    ...field.duration(1),
    flag: 'route-reconciliation-period',
    default: '10s',
    description: 'Period of the route reconciliation.',
  }),
  configureCloudRoutes: s({
    ...field.bool(),
    flag: 'configure-cloud-routes',
    default: 'true',
    description: 'Run the route controller (needs `--cluster-cidr`).',
  }),
  clusterCIDR: s({
    ...field.cidrs(),
    flag: 'cluster-cidr',
    default: '',
    description: 'Pod CIDR of the cluster; routes outside it are never touched. Empty with routes on is fatal.',
  }),
  kubeApiQps: s({ ...field.float(0.01), flag: 'kube-api-qps', default: '20', description: 'Steady request rate to the kube-apiserver.' }),
  kubeApiBurst: s({ ...field.int(1, 100_000), flag: 'kube-api-burst', default: '30', description: 'Burst of requests to the kube-apiserver.' }),
  bindAddress: s({
    ...field.textWith(z.string().min(1)),
    flag: 'bind-address',
    default: '0.0.0.0',
    description: 'Address of the /healthz and /metrics server.',
  }),
  securePort: s({
    ...field.int(0, 65535),
    flag: 'secure-port',
    default: '10258',
    description: 'Port of the /healthz and /metrics server; 0 picks a free port (logged).',
  }),
  insecureHttp: s({
    ...field.bool(),
    flag: 'insecure-http',
    default: 'false',
    extension: true,
    description: 'Serve plain HTTP instead of HTTPS with an in-memory self-signed certificate.',
  }),
  allowedHosts: s({
    ...field.hostList(),
    flag: 'allowed-host',
    env: ENV.allowedHosts,
    default: '',
    extension: true,
    description:
      'Host names (`NAME` or `NAME:PORT`, comma-separated) the /healthz and /metrics server accepts besides loopback and the bind address; any other Host header gets 403 (DNS-rebinding guard).',
  }),
  verbosity: s({ ...field.int(0, 10), flag: 'v', default: '0', description: 'Log verbosity like klog: 0 info, 2 debug, 4 trace.' }),
  loadBalancerClass: s({
    ...field.text(),
    flag: 'load-balancer-class',
    default: '',
    extension: true,
    description: 'Empty: ignore every Service with a class (upstream). Set: serve exactly the Services of this class.',
  }),
  endpoint: s({
    ...field.textWith(
      z
        .string()
        .min(1, 'is required (the simcloud API URL)')
        .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
    ),
    env: ENV.endpoint,
    file: 'endpoint',
    default: '',
    description: 'Base URL of the simcloud API.',
  }),
  token: s({
    ...field.textWith(z.string().min(1, 'is required (the simcloud API token)').pipe(BearerToken)),
    env: ENV.token,
    file: 'token',
    default: '',
    secret: true,
    description: 'simcloud API token.',
  }),
  requestTimeout: s({
    ...field.duration(1),
    env: ENV.requestTimeout,
    file: 'requestTimeout',
    default: '30s',
    description: 'Timeout of one simcloud API request.',
  }),
  network: s({
    ...field.text(),
    env: ENV.network,
    file: 'routes.network',
    default: '',
    description: 'Network (id or name) holding the pod routes; without it the Routes capability is absent.',
  }),
  routesEnabled: s({
    ...field.bool(),
    env: ENV.routesEnabled,
    file: 'routes.enabled',
    default: 'true',
    description: 'Offer the Routes capability (also needs a network).',
  }),
  loadBalancersEnabled: s({
    ...field.bool(),
    env: ENV.loadBalancersEnabled,
    file: 'loadBalancer.enabled',
    default: 'true',
    description: 'Offer the LoadBalancer capability.',
  }),
  loadBalancerStrategy: s({
    ...field.oneOf(['lb', 'ip-block']),
    env: ENV.loadBalancerStrategy,
    file: 'loadBalancer.strategy',
    default: 'lb',
    description: '`lb`: one load balancer + server group + firewall policy per Service; `ip-block`: one /29 IP block per Service.',
  }),
  httpTransport: s({
    ...field.oneOf(HttpTransports),
    env: ENV.httpTransport,
    default: 'http1',
    extension: true,
    description:
      'The HTTP client of both API clients: `http1` (our own, lib/http1.ts), `undici` (its `Pool`; needs the JIT: not under `--jitless`) or `http2` (`node:http2` to an https apiserver, undici to simcloud). Measured in docs/adr/0015.',
  }),
  logFormat: s({ ...field.oneOf(['json', 'pretty']), env: ENV.logFormat, default: 'json', extension: true, description: '`json` or `pretty`.' }),
} as const;

export type SettingKey = keyof typeof settings;

/** The definition for a flag name (`-v` and `--v` both map to `v`). */
export function settingByFlag(flag: string): [SettingKey, SettingDefinition] | undefined {
  const entry = Object.entries(settings).find(([, def]) => 'flag' in def && def.flag === flag);
  return entry as [SettingKey, SettingDefinition] | undefined;
}
