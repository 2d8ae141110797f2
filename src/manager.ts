/**
 * The cloud-controller-manager process core (upstream `cloud-provider/app/controllermanager.go` + `core.go`):
 * probe the cloud once, decide which controllers run from the provider's capabilities and `--controllers`,
 * serve `/healthz` (per-controller checks + the leader-election watchdog) and `/metrics`, then run the
 * controllers while holding the leader Lease. Losing the lease ends the manager with exit code 1.
 *
 * ```ts
 * const manager = await Manager.start({ config, logger });
 * const code = await manager.done; // 0 after stop(), 1 after leadership loss
 * ```
 */
import { hostname } from 'node:os';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { CloudProvider } from './cloud/provider.ts';
import { ControllerNames, enabledControllers, type ControllerName } from './config/controllers.ts';
import { redactedConfig } from './config/load.ts';
import type { CcmConfig } from './config/schema.ts';
import { CloudNodeController } from './controllers/node/controller.ts';
import { CloudNodeLifecycleController } from './controllers/node-lifecycle/controller.ts';
import { RouteController } from './controllers/route/controller.ts';
import { ServiceController } from './controllers/service/controller.ts';
import { apiTokenBucket, makeRateLimitedApiClient, perControllerCoreClients } from './kube/api-client.ts';
import { ClientKube } from './kube/client-kube.ts';
import { KubeEventRecorder } from './kube/event-recorder.ts';
import { loadKubeConfig, PooledKubeConfig } from './kube/kubeconfig.ts';
import { EventSource } from './kube/events.ts';
import { nodeInformer, serviceInformer, type SupervisedInformer } from './kube/informer.ts';
import { LeaderElector, coordinationLeaseClient } from './kube/leader-election.ts';
import type { Logger } from './kube/logger.ts';
import { startServing, type HealthCheck, type RunningServer } from './serving.ts';
import { SimcloudProvider } from './simcloud/provider.ts';
import { CcmMetrics } from './telemetry/metrics.ts';
import type { KubeConfig, V1Node, V1Service } from '@kubernetes/client-node';

export interface ManagerOptions {
  readonly config: CcmConfig;
  readonly logger: Logger;
  /** Overrides the kubeconfig from `--kubeconfig` (tests). */
  readonly kubeConfig?: KubeConfig;
  /** Overrides the simcloud provider (tests with another cloud). */
  readonly provider?: CloudProvider;
}

/** A misconfiguration found at start (upstream: fatal, exit 1). */
export class StartupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StartupError';
  }
}

interface Runnable {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
}

interface Wiring {
  readonly config: CcmConfig;
  readonly logger: Logger;
  readonly provider: CloudProvider;
  readonly enabled: ReadonlySet<ControllerName>;
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly metrics: CcmMetrics;
}

/** Which controllers will run, given `--controllers` and the provider's capabilities (upstream start-up rules). */
export function plannedControllers(config: CcmConfig, provider: CloudProvider, logger: Logger): Set<ControllerName> {
  const enabled = enabledControllers(config.controllers);
  if (!provider.instances()) {
    logger.warn('the cloud provider does not support InstancesV2: skipping the cloud-node and cloud-node-lifecycle controllers');
    enabled.delete(ControllerNames.cloudNode);
    enabled.delete(ControllerNames.cloudNodeLifecycle);
  }
  if (!provider.loadBalancer() && enabled.delete(ControllerNames.service)) {
    logger.error('the cloud provider does not support load balancers: skipping service-lb-controller');
  }
  if (!provider.routes() || !config.configureCloudRoutes) {
    if (enabled.delete(ControllerNames.route)) logger.info('routes not supported or --configure-cloud-routes=false: skipping node-route-controller');
  } else if (enabled.has(ControllerNames.route) && config.clusterCIDR === '') {
    throw new StartupError('node-route-controller: --cluster-cidr is required when configuring cloud routes (set it, or --configure-cloud-routes=false)');
  }
  return enabled;
}

/** A Kubernetes client of its own for a controller. */
type KubeFor = (name: ControllerName) => ClientKube;

interface Informers {
  readonly nodes: SupervisedInformer<V1Node>;
  readonly services: SupervisedInformer<V1Service>;
}

/** Per-controller logger and event recorder (source component as upstream). */
function controllerKit(w: Wiring, kube: ClientKube, name: ControllerName, component: string): { logger: Logger; recorder: KubeEventRecorder } {
  const logger = w.logger.child({ controller: name });
  return { logger, recorder: new KubeEventRecorder({ kube, component, host: hostname(), logger }) };
}

function nodeControllers(w: Wiring, informers: Informers, kubeFor: KubeFor): Runnable[] {
  const { config, enabled, metrics } = w;
  const instances = w.provider.instances();
  if (!instances) return [];
  const built: Runnable[] = [];
  if (enabled.has(ControllerNames.cloudNode)) {
    const kube = kubeFor(ControllerNames.cloudNode);
    const kit = controllerKit(w, kube, ControllerNames.cloudNode, EventSource.CloudNode);
    const tuning = { workers: config.concurrentNodeSyncs, nodeStatusUpdateFrequencyMs: config.nodeStatusUpdateFrequency };
    built.push(new CloudNodeController({ nodes: informers.nodes, kube, instances, metrics, queueMetrics: metrics, ...kit, ...tuning }));
  }
  if (enabled.has(ControllerNames.cloudNodeLifecycle)) {
    const kube = kubeFor(ControllerNames.cloudNodeLifecycle);
    const kit = controllerKit(w, kube, ControllerNames.cloudNodeLifecycle, EventSource.CloudNodeLifecycle);
    built.push(new CloudNodeLifecycleController({ nodes: informers.nodes, kube, instances, metrics, nodeMonitorPeriodMs: config.nodeMonitorPeriod, ...kit }));
  }
  return built;
}

function serviceAndRouteControllers(w: Wiring, informers: Informers, kubeFor: KubeFor): Runnable[] {
  const { config, enabled, metrics } = w;
  const balancer = w.provider.loadBalancer();
  const routes = w.provider.routes();
  const built: Runnable[] = [];
  if (balancer && enabled.has(ControllerNames.service)) {
    const kube = kubeFor(ControllerNames.service);
    const kit = controllerKit(w, kube, ControllerNames.service, EventSource.Service);
    const loadBalancerClass = config.loadBalancerClass === '' ? undefined : config.loadBalancerClass;
    const tuning = { clusterName: config.clusterName, loadBalancerClass, workers: config.concurrentServiceSyncs };
    built.push(new ServiceController({ nodes: informers.nodes, services: informers.services, kube, balancer, metrics, queueMetrics: metrics, ...kit, ...tuning }));
  }
  if (routes && enabled.has(ControllerNames.route)) {
    const kube = kubeFor(ControllerNames.route);
    const kit = controllerKit(w, kube, ControllerNames.route, EventSource.Route);
    const tuning = { clusterName: config.clusterName, clusterCIDRs: config.clusterCIDR, reconciliationPeriodMs: config.routeReconciliationPeriod };
    built.push(new RouteController({ nodes: informers.nodes, kube, routes, metrics, ...kit, ...tuning }));
  }
  return built;
}

/** Builds informers and controllers, then runs them until `signal` aborts (upstream: informers start last). */
async function runControllers(w: Wiring, signal: AbortSignal): Promise<void> {
  const informerOptions = { kubeConfig: w.kubeConfig, core: w.core, logger: w.logger };
  const informers = { nodes: nodeInformer(informerOptions), services: serviceInformer(informerOptions) };
  // One client and one QPS budget per controller, as upstream's ClientBuilder.ClientOrDie(name) gives each
  // controller its own clientset: the route controller's 1 000 condition patches do not slow node
  // initialisation. The informers list through the shared client (upstream: the shared informer factory's).
  const coreFor = perControllerCoreClients(w.kubeConfig, { qps: w.config.kubeApiQps, burst: w.config.kubeApiBurst });
  const kubeFor: KubeFor = (name) => new ClientKube(coreFor(name));
  const controllers = [...nodeControllers(w, informers, kubeFor), ...serviceAndRouteControllers(w, informers, kubeFor)];
  const runs = [informers.nodes.run(signal), ...(w.enabled.has(ControllerNames.service) ? [informers.services.run(signal)] : [])];
  for (const c of controllers) {
    runs.push(
      c.run(signal).catch((err: unknown) => {
        w.logger.error({ err, controller: c.name }, `controller ${c.name} failed`);
      }),
    );
  }
  await Promise.all(runs);
}

export class Manager {
  readonly server: RunningServer;
  /** Resolves with the exit code: 0 after `stop()`, 1 after losing the lease or a controller crash. */
  readonly done: Promise<number>;
  readonly controllers: ReadonlySet<ControllerName>;
  readonly #abort: AbortController;

  private constructor(server: RunningServer, done: Promise<number>, abort: AbortController, controllers: ReadonlySet<ControllerName>) {
    this.server = server;
    this.done = done;
    this.#abort = abort;
    this.controllers = controllers;
  }

  /** Probes the cloud, starts serving and campaigns for leadership (or runs directly without election). */
  static async start(options: ManagerOptions): Promise<Manager> {
    const { config, logger } = options;
    const metrics = new CcmMetrics({ provider: 'simcloud', defaultMetrics: true });
    const provider = options.provider ?? simcloudProvider(config, metrics);
    const abort = new AbortController();
    await provider.initialize?.(abort.signal);
    logger.info({ endpoint: config.endpoint }, 'simcloud probe succeeded');
    const enabled = plannedControllers(config, provider, logger);
    const kubeConfig = options.kubeConfig ?? loadKubeConfig(config.kubeconfig);
    const bucket = apiTokenBucket({ qps: config.kubeApiQps, burst: config.kubeApiBurst });
    const core = makeRateLimitedApiClient(kubeConfig, CoreV1Api, bucket);
    const wiring: Wiring = { config, logger, provider, enabled, kubeConfig, core, metrics };
    const election = config.leaderElect ? new Election(wiring, makeRateLimitedApiClient(kubeConfig, CoordinationV1Api, bucket)) : undefined;
    const checks = healthChecks(enabled, election?.elector);
    const server = await startServing({ bindAddress: config.bindAddress, port: config.securePort, tls: !config.insecureHttp, checks: () => checks, metrics: () => metrics.render(), configz: () => redactedConfig(config), allowedHosts: config.allowedHosts });
    logger.info({ url: server.url, port: server.port }, `serving /healthz and /metrics on ${server.url}`);
    const done = run(wiring, election, abort.signal).finally(async () => {
      await server.close();
      // A kubeconfig the caller passed in is the caller's to close; one loaded here is ours.
      if (kubeConfig !== options.kubeConfig && kubeConfig instanceof PooledKubeConfig) await kubeConfig.close();
    });
    return new Manager(server, done, abort, enabled);
  }

  /** Stops the controllers and the server; resolves once everything has ended. */
  async stop(): Promise<number> {
    this.#abort.abort();
    return this.done;
  }
}

function simcloudProvider(config: CcmConfig, metrics: CcmMetrics): SimcloudProvider {
  return new SimcloudProvider({
    endpoint: config.endpoint,
    token: config.token,
    requestTimeoutMs: config.requestTimeout,
    loadBalancersEnabled: config.loadBalancersEnabled,
    loadBalancerStrategy: config.loadBalancerStrategy,
    routesEnabled: config.routesEnabled,
    network: config.network,
    onCall: (operation, status, seconds) => metrics.observeCloudCall(operation, status, seconds),
  });
}

function healthChecks(enabled: ReadonlySet<ControllerName>, elector: LeaderElector | undefined): Map<string, HealthCheck> {
  const checks = new Map<string, HealthCheck>();
  for (const name of enabled) checks.set(name, () => undefined);
  if (elector) checks.set('leaderElection', () => elector.healthCheck());
  return checks;
}

/** Leader election around the controllers: they run while the lease is held. */
class Election {
  readonly elector: LeaderElector;
  #leading: Promise<void> = Promise.resolve();

  constructor(w: Wiring, coordination: CoordinationV1Api) {
    const { config, logger } = w;
    this.elector = new LeaderElector({
      lease: coordinationLeaseClient(coordination, config.leaderElectResourceNamespace, config.leaderElectResourceName),
      leaseDurationMs: config.leaderElectLeaseDuration,
      renewDeadlineMs: config.leaderElectRenewDeadline,
      retryPeriodMs: config.leaderElectRetryPeriod,
      logger: logger.child({ component: 'leader-election' }),
      onStartedLeading: (signal) => {
        logger.info('started leading: starting controllers');
        this.#leading = runControllers(w, signal);
      },
      onStoppedLeading: () => logger.info('stopped leading'),
      onNewLeader: (identity) => logger.info({ identity }, `new leader elected: ${identity}`),
    });
  }

  /** Campaigns and leads; 0 when stopped, 1 when the lease was lost (upstream exits 1). */
  async run(signal: AbortSignal): Promise<number> {
    await this.elector.run(signal);
    await this.#leading;
    return signal.aborted ? 0 : 1;
  }
}

/** Runs until `signal` aborts (exit 0) or leadership is lost (exit 1). */
async function run(w: Wiring, election: Election | undefined, signal: AbortSignal): Promise<number> {
  if (!election) {
    await runControllers(w, signal);
    return 0;
  }
  return election.run(signal);
}
