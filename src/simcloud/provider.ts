/**
 * The simcloud CloudProvider: InstancesV2 always; LoadBalancer unless disabled in the cloud config; Routes when
 * enabled and a network is configured. A disabled capability is absent (upstream's `(nil, false)`), so the
 * manager does not start its controller. `initialize` probes the API once so a bad token or endpoint fails
 * at start in one line.
 */
import { isApiError, type SimcloudClient } from '../../simulator/api/client/index.ts';
import type { InstancesV2 } from '../cloud/instances.ts';
import type { LoadBalancer } from '../cloud/load-balancer.ts';
import { CloudMethod, type CloudProvider } from '../cloud/provider.ts';
import type { Routes } from '../cloud/routes.ts';
import type { Clock } from '../kube/clock.ts';
import type { CloudCallObserver } from '../cloud/registry.ts';
import { createClient, serverLookup } from './client.ts';
import { SimcloudInstances } from './instances.ts';
import type { HttpTransport } from '../../lib/http-pool.ts';
import { SimcloudLoadBalancers, type LoadBalancerStrategy } from './load-balancers.ts';
import { PROVIDER_NAME } from './provider-id.ts';
import { SimcloudRoutes } from './routes.ts';
import { cachedServerLookup, freshServerLookup, ServerCache, serverLister } from './server-cache.ts';

export interface SimcloudProviderOptions {
  readonly endpoint: string;
  readonly token: string;
  readonly requestTimeoutMs: number;
  /** The HTTP client to simcloud (the `httpTransport` setting; default lib/http1). */
  readonly httpTransport?: HttpTransport;
  readonly loadBalancersEnabled: boolean;
  readonly loadBalancerStrategy: LoadBalancerStrategy;
  readonly routesEnabled: boolean;
  /** Network id or name for routes; empty = no Routes capability. */
  readonly network: string;
  /** Observes every simcloud HTTP exchange (metrics). */
  readonly onCall?: CloudCallObserver;
  /** Every wait (retries, action polls, cache ages) is on this clock (default the wall clock). */
  readonly clock?: Clock;
}

/** The start-up probe failed: bad endpoint, bad token, or simcloud down. The message is one line. */
export class CloudProbeError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CloudProbeError';
  }
}

/** Existence and power state answered from a server list at most this old (below the 5 s node-monitor period). */
const POWER_STATE_MAX_AGE_MS = 2000;

export class SimcloudProvider implements CloudProvider {
  readonly providerName = PROVIDER_NAME;
  readonly client: SimcloudClient;
  readonly #endpoint: string;
  readonly #instances: SimcloudInstances;
  readonly #loadBalancer: SimcloudLoadBalancers | undefined;
  readonly #routes: SimcloudRoutes | undefined;

  constructor(options: SimcloudProviderOptions) {
    this.#endpoint = options.endpoint;
    this.client = createClient({
      endpoint: options.endpoint,
      token: options.token,
      requestTimeoutMs: options.requestTimeoutMs,
      httpTransport: options.httpTransport,
      onCall: options.onCall,
      clock: options.clock,
    });
    // One server list cache for InstanceMetadata and route listing (benchmark S3: ~0 calls per node).
    const servers = new ServerCache({ lister: serverLister(this.client), ...(options.clock ? { clock: options.clock } : {}) });
    // Existence and power state from a list at most 2 s old (shared by a lifecycle pass), metadata <= 30 s.
    this.#instances = new SimcloudInstances(freshServerLookup(servers, serverLookup(this.client), POWER_STATE_MAX_AGE_MS), cachedServerLookup(servers));
    this.#loadBalancer = options.loadBalancersEnabled
      ? new SimcloudLoadBalancers({ client: this.client, strategy: options.loadBalancerStrategy, servers, ...(options.clock ? { clock: options.clock } : {}) })
      : undefined;
    this.#routes =
      options.routesEnabled && options.network !== ''
        ? new SimcloudRoutes({ client: this.client, network: options.network, servers, ...(options.clock ? { clock: options.clock } : {}) })
        : undefined;
  }

  /** One cheap authenticated call (list one server). */
  async initialize(signal: AbortSignal): Promise<void> {
    try {
      await this.client.servers.list({ per_page: 1 }, { caller: 'simcloud-ccm startup-probe', method: CloudMethod.initialize, signal });
    } catch (err) {
      const reason = isApiError(err) ? `${err.code}${err.status ? ` (HTTP ${err.status})` : ''}: ${err.message}` : String(err);
      throw new CloudProbeError(`cannot use simcloud at ${this.#endpoint}: ${reason}`, { cause: err });
    }
  }

  instances(): InstancesV2 {
    return this.#instances;
  }

  loadBalancer(): LoadBalancer | undefined {
    return this.#loadBalancer;
  }

  routes(): Routes | undefined {
    return this.#routes;
  }
}
