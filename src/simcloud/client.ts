/**
 * The provider's side of the typed simcloud client: building it (caller header, timeouts, a metrics hook on
 * every call), per-call options from the contract's `CallContext`, not_found handling, action waits, and the
 * conversion of wire servers into the provider's view. The only module that constructs a `SimcloudClient`.
 */
import { DEFAULT_RETRY, SimcloudClient, isApiError, type CallOptions, type Middleware } from '../../simulator/api/client/index.ts';
import type { Action, Server } from '../../simulator/api/schema/index.ts';
import type { CallContext } from '../cloud/provider.ts';
import type { CloudServer, ServerLookup } from './instances.ts';
import { rateBudgetMiddleware } from './rate-budget.ts';

/** Observes every HTTP exchange with simcloud (one per attempt): operation, HTTP status (0 = none), seconds. */
export type CloudCallObserver = (operation: string, status: number, seconds: number) => void;

export interface ClientOptions {
  readonly endpoint: string;
  readonly token: string;
  readonly requestTimeoutMs: number;
  readonly onCall?: CloudCallObserver;
  /** Default `X-Simcloud-Caller` when a call has no context (default `simcloud-ccm`). */
  readonly caller?: string;
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

const SAFE_TO_REPEAT = new Set(['GET', 'DELETE']);

/**
 * The client's own policy retries rate limits, 503, locked, timeouts and network errors. On top, reads and
 * deletes (idempotent: a repeated delete answers not_found, which callers tolerate) are retried on a 500 too;
 * creates and updates are not, so a 500 after a committed write can never duplicate a resource.
 */
export function retryIdempotentOnServerError(attempts = 3, baseDelayMs = 200): Middleware {
  return (next) => async (req) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(req);
      } catch (err) {
        const retry = SAFE_TO_REPEAT.has(req.method) && isApiError(err, 'server_error') && attempt < attempts && !req.signal?.aborted;
        if (!retry) throw err;
        await new Promise((resolve) => setTimeout(resolve, baseDelayMs * 2 ** attempt));
      }
    }
  };
}

export function createClient(options: ClientOptions): SimcloudClient {
  return new SimcloudClient({
    endpoint: options.endpoint,
    token: options.token,
    caller: options.caller ?? 'simcloud-ccm',
    timeoutMs: options.requestTimeoutMs,
    // 429s are retried through the client-wide budget (rate-budget.ts), not per call by the transport.
    retry: { retryOn: DEFAULT_RETRY.retryOn.filter((code) => code !== 'rate_limit_exceeded') },
    middlewares: [retryIdempotentOnServerError(), rateBudgetMiddleware(), ...(options.onCall ? [observe(options.onCall)] : [])],
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

/** Waits for an action with a polling interval gentle on the API. */
export function waitForAction(client: SimcloudClient, action: Action, ctx: CallContext | undefined): Promise<Action> {
  if (action.status === 'success') return Promise.resolve(action);
  return client.waitForAction(action.id, { ...callOptions(ctx), intervalMs: 1000, deadlineMs: 120_000 });
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
