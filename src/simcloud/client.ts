/**
 * The provider's side of the typed simcloud client: building it (caller header, timeouts, the retry policy,
 * the rate budget, a metrics hook on every HTTP exchange, all waits on the injected clock), per-call options from the contract's `CallContext`, not_found handling, action waits, and the
 * conversion of wire servers into the provider's view. The only module that constructs a `SimcloudClient`.
 */
import {
  DEFAULT_RETRY,
  SimcloudClient,
  poolExchange,
  isApiError,
  type CallOptions,
  type Middleware,
  type RetryPolicy,
} from '../../simulator/api/client/index.ts';
import type { Action, Server } from '../../simulator/api/schema/index.ts';
import type { CallContext } from '../cloud/provider.ts';
import type { CloudCallObserver } from '../cloud/registry.ts';
import type { CloudServer, ServerLookup } from './instances.ts';
import type { HttpTransport } from '../../lib/http-pool.ts';
import { realClock, sleep, type Clock } from '../kube/clock.ts';
import { rateBudgetGate } from './rate-budget.ts';

export interface ClientOptions {
  readonly endpoint: string;
  readonly token: string;
  readonly requestTimeoutMs: number;
  /** Observes every HTTP exchange with simcloud (one per attempt). */
  readonly onCall?: CloudCallObserver;
  /** Default `X-Simcloud-Caller` when a call has no context (default `simcloud-ccm`). */
  readonly caller?: string;
  /** Every wait (retry backoff, rate budget, action polls) is on this clock (default the wall clock). */
  readonly clock?: Clock;
  /** Sends over this fetch instead of the CCM's pool: tests pass one that records. */
  readonly fetch?: typeof globalThis.fetch;
  /** The HTTP client under the pool (the `httpTransport` setting; default lib/http1). */
  readonly httpTransport?: HttpTransport;
}

function observe(onCall: CloudCallObserver): Middleware {
  return (next) => async (req) => {
    const started = performance.now();
    try {
      const res = await next(req);
      onCall(req.operation, res.status, (performance.now() - started) / 1000);
      return res;
    } catch (err) {
      onCall(req.operation, isApiError(err) ? err.status : 0, (performance.now() - started) / 1000);
      throw err;
    }
  };
}

/**
 * The CCM's retry policy for the client's one retry layer: besides the transient codes, a 500 is retried
 * too. Which requests may be repeated is the layer's rule (idempotent methods, requests carrying an
 * idempotency key, requests that never left): a create after a 500 is repeated only under its key, so
 * simcloud answers it with the first answer and no second resource exists.
 */
export const CCM_RETRY: Partial<RetryPolicy> = { maxRetries: 5, retryOn: [...DEFAULT_RETRY.retryOn, 'server_error'] };

export function createClient(options: ClientOptions): SimcloudClient {
  const clock = options.clock ?? realClock;
  return new SimcloudClient({
    endpoint: options.endpoint,
    token: options.token,
    caller: options.caller ?? 'simcloud-ccm',
    timeoutMs: options.requestTimeoutMs,
    retry: CCM_RETRY,
    sleep: (ms, signal) => sleep(clock, ms, signal),
    now: () => clock.now(),
    gate: rateBudgetGate(clock),
    attemptMiddlewares: options.onCall ? [observe(options.onCall)] : [],
    ...(options.fetch ? { fetch: options.fetch } : { exchange: poolExchange(options.httpTransport) }),
  });
}

/** Client options for one call: the caller and method headers and the abort signal. */
export function callOptions(ctx: CallContext | undefined): CallOptions {
  const opts: CallOptions = {};
  if (ctx?.caller) opts.caller = ctx.caller;
  if (ctx?.method) opts.method = ctx.method;
  if (ctx?.signal) opts.signal = ctx.signal;
  return opts;
}

/** Runs `call`; a definite not_found becomes `undefined`, every other error is rethrown. */
export async function unlessNotFound<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (isApiError(err, 'not_found')) return undefined;
    throw err;
  }
}

/** Deletes, treating not_found as already done. */
export async function deleteIgnoringNotFound(call: () => Promise<unknown>): Promise<boolean> {
  return (await unlessNotFound(call)) !== undefined;
}

/**
 * Waits for an action: polls after 100 ms, then doubling up to one a second. Most actions finish within
 * a poll or two, and a worker waiting here serves nothing else: a fixed 1 s interval cost every LB create
 * that was still running at the first look a whole second (a third of them in a 100-Service burst).
 */
export function waitForAction(client: SimcloudClient, action: Action, ctx: CallContext | undefined): Promise<Action> {
  return client.waitForAction(action, { ...callOptions(ctx), intervalMs: 100, maxIntervalMs: 1000, deadlineMs: 120_000 });
}

export function toCloudServer(server: Server): CloudServer {
  const privateIPs = server.private_ipv4 ? [server.private_ipv4] : server.private_networks.map((n) => n.ip).slice(0, 1);
  return {
    id: server.id,
    name: server.name,
    status: server.status,
    serverType: server.server_type,
    region: server.region,
    zone: server.zone,
    publicIPv4: server.public_ipv4 ?? undefined,
    privateIPs,
  };
}

/** `ServerLookup` on the client: GET by id, list filtered by exact name. */
export function serverLookup(client: SimcloudClient): ServerLookup {
  return {
    getServer: async (id, ctx) => {
      const server = await unlessNotFound(() => client.servers.get(id, callOptions(ctx)));
      return server && toCloudServer(server);
    },
    findServerByName: async (name, ctx) => {
      const { servers } = await client.servers.list({ name, per_page: 2 }, callOptions(ctx));
      const server = servers.find((s) => s.name === name);
      return server && toCloudServer(server);
    },
  };
}
