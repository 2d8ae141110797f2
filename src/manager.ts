/**
 * The cloud-controller-manager process core (upstream `cloud-provider/app/controllermanager.go` + `core.go`):
 * probe the cloud once, decide which controllers run from the provider's capabilities and `--controllers`,
 * serve `/healthz` (per-controller checks + the leader-election watchdog) and `/metrics`, then run the
 * controllers while holding the leader Lease. Losing the lease ends the manager with exit code 1; so does a
 * controller (or informer) that crashes: its health check fails, the other controllers stop, the lease is
 * released so another replica takes over at once, and the process exits 1 for its supervisor to restart it
 * (upstream's manager dies on a controller failure the same way).
 *
 * ```ts
 * const manager = await Manager.start({ config, logger });
 * const code = await manager.done; // 0 after stop(), 1 after leadership loss or a crash (see manager.failure)
 * ```
 */
import { hostname } from 'node:os';
import type { CloudProvider } from './cloud/provider.ts';
import { cloudProviders, type CloudProviderRegistry, type ProviderFactory } from './cloud/registry.ts';
import { ControllerNames, enabledControllers, type ControllerName } from './config/controllers.ts';
import { redactedConfig } from './config/load.ts';
import type { CcmConfig } from './config/schema.ts';
import { CloudNodeController } from './controllers/node/controller.ts';
import { CloudNodeLifecycleController } from './controllers/node-lifecycle/controller.ts';
import { RouteController } from './controllers/route/controller.ts';
import { ServiceController } from './controllers/service/controller.ts';
import { apiTokenBucket, KubeClient, perControllerClients } from './kube/api-client.ts';
import { ClientKube } from './kube/client-kube.ts';
import { KubeEventRecorder } from './kube/event-recorder.ts';
import { loadKubeEndpoint, type KubeEndpoint } from './kube/kubeconfig.ts';
import { EventSource } from './kube/events.ts';
import { nodeInformer, serviceInformer, type SupervisedInformer } from './kube/informer.ts';
import { LeaderElector, coordinationLeaseClient } from './kube/leader-election.ts';
import type { Logger } from './kube/logger.ts';
import { startServing, type HealthCheck, type RunningServer } from './serving.ts';
import { CcmMetrics } from './telemetry/metrics.ts';
import { KubeTransport } from './kube/transport.ts';
import type { V1Node, V1Service } from '@kubernetes/client-node';

export interface ManagerOptions {
  readonly config: CcmConfig;
  readonly logger: Logger;
  /** Overrides the apiserver endpoint from `--kubeconfig` (tests). */
  readonly kube?: KubeEndpoint;
  /** Overrides the provider `--cloud-provider` names (tests with another cloud). */
  readonly provider?: CloudProvider;
  /** Where `--cloud-provider` is looked up (default the process's registry, filled by the imported registration modules). */
  readonly registry?: CloudProviderRegistry;
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
  readonly transport: KubeTransport;
  /** The manager's own client (informers, leader election, its events), sharing one budget as upstream's. */
  readonly client: KubeClient;
  readonly metrics: CcmMetrics;
  readonly crashes: Crashes;
}

/**
 * Controllers that crashed (their `run` rejected or never started). The first crash stops everything: the
 * manager cannot do its job with a controller missing, and a restart is the only way to get it back.
 */
export class Crashes {
  readonly #failed = new Map<string, string>();
  readonly #stop: () => void;

  constructor(stop: () => void) {
    this.#stop = stop;
  }

  /** Records a crash and stops the manager. */
  crashed(name: string, err: unknown): void {
    if (!this.#failed.has(name)) this.#failed.set(name, `${name} crashed: ${err instanceof Error ? err.message : String(err)}`);
    this.#stop();
  }

  /** Health check result for `name`: the crash, else healthy. */
  check(name: string): string | undefined {
    return this.#failed.get(name);
  }

  /** The first crash, if any. */
  first(): string | undefined {
    return this.#failed.values().next().value;
  }
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
    built.push(
      new ServiceController({ nodes: informers.nodes, services: informers.services, kube, balancer, metrics, queueMetrics: metrics, ...kit, ...tuning }),
    );
  }
  if (routes && enabled.has(ControllerNames.route)) {
    const kube = kubeFor(ControllerNames.route);
    const kit = controllerKit(w, kube, ControllerNames.route, EventSource.Route);
    const tuning = { clusterName: config.clusterName, clusterCIDRs: config.clusterCIDR, reconciliationPeriodMs: config.routeReconciliationPeriod };
    built.push(new RouteController({ nodes: informers.nodes, kube, routes, metrics, ...kit, ...tuning }));
  }
  return built;
}

/** The crash name of a failure while building the controllers (e.g. a bad `--cluster-cidr` pair). */
const STARTING = 'controller start-up';

/** Runs `run`; a rejection is a crash of `name`, which stops the manager. */
function supervised(w: Wiring, name: string, run: () => Promise<void>): Promise<void> {
  return run().catch((err: unknown) => {
    w.logger.error({ err, controller: name }, `${name} crashed: stopping the manager`);
    w.crashes.crashed(name, err);
  });
}

/** Builds informers and controllers, then runs them until `signal` aborts; a crash while building or running ends it. */
function runControllers(w: Wiring, signal: AbortSignal): Promise<void> {
  return supervised(w, STARTING, () => startControllers(w, signal));
}

/** Builds informers and controllers and runs them (upstream: informers start last). */
async function startControllers(w: Wiring, signal: AbortSignal): Promise<void> {
  const informerOptions = { client: w.client, logger: w.logger };
  const informers = { nodes: nodeInformer(informerOptions), services: serviceInformer(informerOptions) };
  // One client and one QPS budget per controller, as upstream's ClientBuilder.ClientOrDie(name) gives each
  // controller its own clientset: the route controller's 1 000 condition patches do not slow node
  // initialisation. The informers list through the shared client (upstream: the shared informer factory's).
  const clientFor = perControllerClients(w.transport, { qps: w.config.kubeApiQps, burst: w.config.kubeApiBurst });
  const kubeFor: KubeFor = (name) => new ClientKube(clientFor(name));
  const controllers = [...nodeControllers(w, informers, kubeFor), ...serviceAndRouteControllers(w, informers, kubeFor)];
  const runs = [supervised(w, 'node-informer', () => informers.nodes.run(signal))];
  if (w.enabled.has(ControllerNames.service)) runs.push(supervised(w, 'service-informer', () => informers.services.run(signal)));
  for (const c of controllers) runs.push(supervised(w, c.name, () => c.run(signal)));
  await Promise.all(runs);
}

export class Manager {
  readonly server: RunningServer;
  /** Resolves with the exit code: 0 after `stop()`, 1 after losing the lease or a controller crash. */
  readonly done: Promise<number>;
  readonly controllers: ReadonlySet<ControllerName>;
  readonly #abort: AbortController;
  readonly #crashes: Crashes;

  private constructor(server: RunningServer, done: Promise<number>, abort: AbortController, wiring: Wiring) {
    this.server = server;
    this.done = done;
    this.#abort = abort;
    this.controllers = wiring.enabled;
    this.#crashes = wiring.crashes;
  }

  /** Why the manager ended with a non-zero code: the first crash, else a lost lease. Undefined while running or after stop(). */
  async failure(): Promise<string | undefined> {
    const code = await this.done;
    if (code === 0) return undefined;
    return this.#crashes.first() ?? 'leaderelection lost';
  }

  /** Probes the cloud, starts serving and campaigns for leadership (or runs directly without election). */
  static async start(options: ManagerOptions): Promise<Manager> {
    const { config, logger } = options;
    // An unknown --cloud-provider fails first, before anything is built.
    const given = options.provider;
    const factory: ProviderFactory = given ? () => given : (options.registry ?? cloudProviders).factory(config.cloudProvider);
    const metrics = new CcmMetrics({ provider: config.cloudProvider, defaultMetrics: true });
    const provider = factory({ config, onCall: (operation, status, seconds) => metrics.observeCloudCall(operation, status, seconds) });
    const abort = new AbortController();
    // The kubeconfig first: a local file that is wrong should be named before the cloud is probed.
    const transport = new KubeTransport(options.kube ?? loadKubeEndpoint(config.kubeconfig), config.httpTransport);
    await provider.initialize?.(abort.signal);
    logger.info({ endpoint: config.endpoint }, `${config.cloudProvider} probe succeeded`);
    const enabled = plannedControllers(config, provider, logger);
    const client = new KubeClient(transport, apiTokenBucket({ qps: config.kubeApiQps, burst: config.kubeApiBurst }));
    const crashes = new Crashes(() => abort.abort());
    const wiring: Wiring = { config, logger, provider, enabled, transport, client, metrics, crashes };
    const election = config.leaderElect ? new Election(wiring) : undefined;
    const checks = healthChecks(enabled, crashes, election?.elector);
    const server = await startServing({
      bindAddress: config.bindAddress,
      port: config.securePort,
      tls: !config.insecureHttp,
      checks: () => checks,
      metrics: () => metrics.render(),
      configz: () => redactedConfig(config),
      allowedHosts: config.allowedHosts,
    });
    logger.info({ url: server.url, port: server.port }, `serving /healthz and /metrics on ${server.url}`);
    const done = run(wiring, election, abort.signal)
      .then((code) => (crashes.first() === undefined ? code : 1))
      .finally(async () => {
        await server.close();
        transport.close();
      });
    return new Manager(server, done, abort, wiring);
  }

  /** Stops the controllers and the server; resolves once everything has ended. */
  async stop(): Promise<number> {
    this.#abort.abort();
    return this.done;
  }
}

/** One check per controller (failing once it crashed) and the leader-election watchdog. */
export function healthChecks(enabled: ReadonlySet<ControllerName>, crashes: Crashes, elector: LeaderElector | undefined): Map<string, HealthCheck> {
  const checks = new Map<string, HealthCheck>();
  for (const name of enabled) checks.set(name, () => crashes.check(name) ?? crashes.check(STARTING));
  if (elector) checks.set('leaderElection', () => elector.healthCheck());
  return checks;
}

/** Leader election around the controllers: they run while the lease is held. */
class Election {
  readonly elector: LeaderElector;
  #leading: Promise<void> = Promise.resolve();

  constructor(w: Wiring) {
    const { config, logger } = w;
    this.elector = new LeaderElector({
      lease: coordinationLeaseClient(w.client, config.leaderElectResourceNamespace, config.leaderElectResourceName),
      leaseDurationMs: config.leaderElectLeaseDuration,
      renewDeadlineMs: config.leaderElectRenewDeadline,
      retryPeriodMs: config.leaderElectRetryPeriod,
      logger: logger.child({ component: 'leader-election' }),
      // Upstream's leader election records through the manager's own recorder (component cloud-controller-manager).
      events: {
        recorder: new KubeEventRecorder({ kube: new ClientKube(w.client), component: 'cloud-controller-manager', host: hostname(), logger }),
        lease: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: config.leaderElectResourceNamespace, name: config.leaderElectResourceName },
      },
      onStartedLeading: (signal) => {
        logger.info('started leading: starting controllers');
        this.#leading = runControllers(w, signal);
      },
      onStoppedLeading: () => logger.info('stopped leading'),
      onNewLeader: (identity) => logger.info({ identity }, `new leader elected: ${identity}`),
    });
  }

  /**
   * Campaigns and leads; 0 when stopped, 1 when the lease was lost (upstream exits 1). Stopped on purpose
   * (a signal or a crash), it releases the lease once the controllers have ended, so a standby need not
   * wait out the lease duration.
   */
  async run(signal: AbortSignal): Promise<number> {
    await this.elector.run(signal);
    await this.#leading;
    if (!signal.aborted) return 1;
    await this.elector.release();
    return 0;
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
