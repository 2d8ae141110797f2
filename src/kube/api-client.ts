/**
 * KubeClient: the CCM's Kubernetes API calls, with a client-side rate limit (`--kube-api-qps` /
 * `--kube-api-burst`, CCM defaults 20 / 30) and a User-Agent per controller, over the shared
 * `KubeTransport`. Every request waits for a token first, as client-go's rest client waits on its
 * limiter; watches take one when they (re)connect.
 *
 * Objects come back as the apiserver's JSON, typed with `@kubernetes/client-node`'s interfaces (types
 * only: its runtime is not loaded, docs/adr/0014). What every caller keys on, `metadata.name` and the
 * list's `resourceVersion`, is checked (zod) before an object is handed on.
 */
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { z } from 'zod';
import { realClock, type Clock } from './clock.ts';
import { TokenBucket } from './token-bucket.ts';
import { KubeApiError, type HttpMethod, type KubeTransport } from './transport.ts';

export interface ApiRateLimit {
  /** `--kube-api-qps` (default 20). */
  readonly qps: number;
  /** `--kube-api-burst` (default 30). */
  readonly burst: number;
}

export const DefaultApiRateLimit: ApiRateLimit = { qps: 20, burst: 30 };

/** The patch types the CCM sends (upstream's `types.PatchType`). */
export const PatchTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategicMerge: 'application/strategic-merge-patch+json',
} as const;
export type PatchType = (typeof PatchTypes)[keyof typeof PatchTypes];

const ObjectShape = z.object({ metadata: z.object({ name: z.string().min(1), namespace: z.string().optional(), resourceVersion: z.string().optional() }) });
const ListShape = z.object({ metadata: z.object({ resourceVersion: z.string().optional() }).optional(), items: z.array(ObjectShape) });

/** Checks that `value` is an object with a name and hands it on typed; a `KubeApiError` otherwise. */
export function asObject<T extends KubernetesObject>(value: unknown, what: string): T {
  const parsed = ObjectShape.safeParse(value);
  if (!parsed.success)
    throw new KubeApiError(
      0,
      `${what}: the response is not a Kubernetes object (${parsed.error.issues[0]?.message ?? 'invalid'} at ${parsed.error.issues[0]?.path.join('.') ?? ''})`,
    );
  return value as T;
}

/** Checks that `value` is a list of named objects and hands it on typed. */
export function asList<T extends KubernetesObject>(value: unknown, what: string): KubernetesListObject<T> {
  const parsed = ListShape.safeParse(value);
  if (!parsed.success)
    throw new KubeApiError(
      0,
      `${what}: the response is not a Kubernetes list (${parsed.error.issues[0]?.message ?? 'invalid'} at ${parsed.error.issues[0]?.path.join('.') ?? ''})`,
    );
  return value as KubernetesListObject<T>;
}

export interface CallOptions {
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

/** `encodeURIComponent` for a path segment (a name or namespace). */
export const seg = (s: string): string => encodeURIComponent(s);

export class KubeClient {
  readonly transport: KubeTransport;
  readonly userAgent: string;
  readonly #bucket: TokenBucket | undefined;

  constructor(transport: KubeTransport, bucket: TokenBucket | undefined, userAgent = 'simcloud-ccm') {
    this.transport = transport;
    this.#bucket = bucket;
    this.userAgent = userAgent;
  }

  /** One rate-limited call; the parsed JSON body. */
  async call(method: HttpMethod, path: string, options: CallOptions = {}): Promise<unknown> {
    await this.#bucket?.acquire(options.signal);
    return this.transport.request({ method, path, userAgent: this.userAgent, ...options });
  }

  /** GET/PUT/POST/PATCH returning one object. */
  async object<T extends KubernetesObject>(method: HttpMethod, path: string, options: CallOptions = {}): Promise<T> {
    return asObject<T>(await this.call(method, path, options), `${method} ${path}`);
  }

  async patch<T extends KubernetesObject>(path: string, type: PatchType, body: unknown): Promise<T> {
    return this.object<T>('PATCH', path, { body, contentType: type });
  }

  async list<T extends KubernetesObject>(path: string, options: CallOptions = {}): Promise<KubernetesListObject<T>> {
    return asList<T>(await this.call('GET', path, options), `GET ${path}`);
  }

  /** A watch stream; waits for a token like any request (client-go's watch goes through the limiter too). */
  async watch(request: WatchRequest, onValue: (value: unknown) => void): Promise<void> {
    const { path, query, signal, maxSilenceMs } = request;
    await this.#bucket?.acquire(signal);
    await this.transport.stream(
      { method: 'GET', path, query: { ...query, watch: 'true' }, userAgent: this.userAgent, signal, inactivityTimeoutMs: maxSilenceMs },
      onValue,
    );
  }
}

export interface WatchRequest {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /** The longest the stream may stay silent: it is taken for a dead connection and ended after that. */
  readonly maxSilenceMs: number;
}

/** A token bucket for the API limiter. */
export function apiTokenBucket(limit: ApiRateLimit = DefaultApiRateLimit, clock: Clock = realClock): TokenBucket {
  return new TokenBucket(limit.qps, limit.burst, clock);
}

/**
 * A client factory that gives each controller its own budget and User-Agent (`simcloud-ccm/<name>`), as
 * upstream's `ClientBuilder.ClientOrDie(name)` gives each controller its own clientset and limiter: one
 * controller's burst of writes does not hold back another's. All share the transport's connections.
 */
export function perControllerClients(transport: KubeTransport, limit: ApiRateLimit, clock: Clock = realClock): (name: string) => KubeClient {
  return (name) => new KubeClient(transport, apiTokenBucket(limit, clock), `simcloud-ccm/${name}`);
}
