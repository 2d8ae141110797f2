/**
 * Kubernetes API clients with a client-side rate limit (`--kube-api-qps` / `--kube-api-burst`,
 * CCM defaults 20 / 30). client-node has no limiter; the cleanest hook in 2.0.1 is the per-request
 * `SecurityAuthentication.applySecurityAuthentication(context)` that every generated API call awaits
 * before sending: we build the API configuration like `KubeConfig.makeApiClient` does, but with an auth
 * method that first takes a token from the bucket and then delegates to the KubeConfig. Watches
 * (client-node `Watch`) authenticate through the KubeConfig directly and are not limited, which only
 * matters for watch (re)connects.
 */
import {
  CoreV1Api,
  createConfiguration,
  Observable,
  ServerConfiguration,
  type ApiConstructor,
  type ApiType,
  type ConfigurationOptions,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';
import { realClock, type Clock } from './clock.ts';
import { TokenBucket } from './token-bucket.ts';

export interface ApiRateLimit {
  /** `--kube-api-qps` (default 20). */
  readonly qps: number;
  /** `--kube-api-burst` (default 30). */
  readonly burst: number;
}

export const DefaultApiRateLimit: ApiRateLimit = { qps: 20, burst: 30 };

/** An auth method that waits for a token, then applies the KubeConfig's credentials. */
export function rateLimitedAuth(kubeConfig: KubeConfig, bucket: TokenBucket): SecurityAuthentication {
  return {
    getName: () => 'default',
    applySecurityAuthentication: async (context: RequestContext): Promise<void> => {
      await bucket.acquire();
      await kubeConfig.applySecurityAuthentication(context);
    },
  };
}

/**
 * Like `kubeConfig.makeApiClient(Api)` but rate-limited by `bucket`. Share one bucket across the API
 * clients of one user, as client-go shares one limiter per clientset; the manager gives each controller
 * its own, as upstream's ClientBuilder gives each controller its own clientset.
 */
export function makeRateLimitedApiClient<T extends ApiType>(kubeConfig: KubeConfig, api: ApiConstructor<T>, bucket: TokenBucket, userAgent = 'simcloud-ccm'): T {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('No active cluster!');
  const config = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: rateLimitedAuth(kubeConfig, bucket) },
    middleware: [headerMiddleware('User-Agent', userAgent)],
  });
  return new api(config);
}

/**
 * A client factory that gives each controller its own rate-limited CoreV1Api and so its own budget, as
 * upstream's `ClientBuilder.ClientOrDie(name)` gives each controller its own clientset (and limiter): one
 * controller's burst of writes does not hold back another's.
 */
export function perControllerCoreClients(kubeConfig: KubeConfig, limit: ApiRateLimit, clock: Clock = realClock): (name: string) => CoreV1Api {
  return (name) => makeRateLimitedApiClient(kubeConfig, CoreV1Api, apiTokenBucket(limit, clock), `simcloud-ccm/${name}`);
}

/** A token bucket for the API limiter. */
export function apiTokenBucket(limit: ApiRateLimit = DefaultApiRateLimit, clock: Clock = realClock): TokenBucket {
  return new TokenBucket(limit.qps, limit.burst, clock);
}

function headerMiddleware(key: string, value: string): { pre(c: RequestContext): Observable<RequestContext>; post(r: ResponseContext): Observable<ResponseContext> } {
  return {
    pre: (context) => {
      context.setHeaderParam(key, value);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
}

/** Per-request options adding a query parameter (e.g. `resourceVersion=0` for a cache-served GET). */
export function queryParamOptions(name: string, value: string): ConfigurationOptions {
  return {
    middleware: [
      {
        pre: (context: RequestContext) => {
          context.setQueryParam(name, value);
          return new Observable(Promise.resolve(context));
        },
        post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
}
