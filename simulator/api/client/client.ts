/**
 * SimcloudClient: the typed client of the simcloud `/v1` API, used by the CCM, the sandbox and tests.
 * Every response is validated with the wire schemas; failures are SimcloudApiError.
 *
 *   const client = new SimcloudClient({ endpoint: 'http://127.0.0.1:8787', token, caller: 'ccm' });
 *   const { server, action } = await client.servers.create({ name: 'n1', server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a' });
 *   await client.waitForAction(action.id);
 */
import { ActionResponse, type Action } from '../schema/actions.ts';
import { ImageListResponse, RegionListResponse, ServerTypeListResponse, ZoneListResponse } from '../schema/catalogue.ts';
import type { Image, Region, ServerType, Zone } from '../schema/catalogue.ts';
import { CertificatesClient } from './certificates.ts';
import { SimcloudApiError } from './errors.ts';
import { FirewallPoliciesClient } from './firewall-policies.ts';
import { IpBlocksClient } from './ip-blocks.ts';
import { LoadBalancersClient } from './load-balancers.ts';
import { NetworksClient } from './networks.ts';
import { Requester, seg, type CallOptions } from './requester.ts';
import { ServerGroupsClient } from './server-groups.ts';
import { ServersClient } from './servers.ts';
import {
  DEFAULT_RETRY,
  chain,
  fetchHandler,
  realSleep,
  withAuth,
  withCaller,
  withIdempotencyKey,
  withRequestId,
  withRetry,
  type AttemptGate,
  type HttpExchange,
  type Middleware,
  type RetryPolicy,
  type Sleep,
} from './transport.ts';

export interface SimcloudClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:8787` (no `/v1`). */
  endpoint: string;
  token: string;
  /** Default `X-Simcloud-Caller` for every call. */
  caller?: string;
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** How requests are sent (default: over `fetch`); the CCM passes `poolExchange()`. */
  exchange?: HttpExchange;
  /** The fetch of the default exchange (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Every wait (retry backoff, action polls) goes through it: tests inject a clock instead of sleeping. */
  sleep?: Sleep;
  /** The clock for deadlines (default `Date.now`). */
  now?: () => number;
  /** Extra middlewares around each logical call (retries included), outermost first, after the request id. */
  middlewares?: Middleware[];
  /** Middlewares around each attempt (e.g. metrics per HTTP exchange), inside the retry layer. */
  attemptMiddlewares?: Middleware[];
  /** Admission for each attempt (e.g. a rate budget shared by every call of the client). */
  gate?: AttemptGate;
}

export interface WaitOptions extends CallOptions {
  /** Poll interval (default 100 ms). */
  intervalMs?: number;
  /** Each further poll doubles the interval up to this (default: intervalMs, a fixed interval). */
  maxIntervalMs?: number;
  /** Give up after this long (default 60 s). */
  deadlineMs?: number;
}

export function buildRequester(opts: SimcloudClientOptions): Requester {
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
  const handler = chain(
    fetchHandler({
      endpoint: opts.endpoint,
      ...(opts.exchange ? { exchange: opts.exchange } : {}),
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      defaultTimeoutMs: opts.timeoutMs ?? 10_000,
    }),
    [
      withRequestId(),
      withIdempotencyKey(),
      ...(opts.middlewares ?? []),
      withCaller(opts.caller),
      withAuth(opts.token),
      withRetry(retry, opts.sleep ?? realSleep, opts.gate),
      ...(opts.attemptMiddlewares ?? []),
    ],
  );
  return new Requester(handler);
}

export class ActionsClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async get(id: string, opts?: CallOptions): Promise<Action> {
    return (await this.#r.call('actions.get', ActionResponse, { method: 'GET', path: `/v1/actions/${seg(id)}` }, opts)).action;
  }
}

export class CatalogueClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async regions(opts?: CallOptions): Promise<Region[]> {
    return (await this.#r.call('catalogue.regions', RegionListResponse, { method: 'GET', path: '/v1/regions' }, opts)).regions;
  }

  async zones(opts?: CallOptions): Promise<Zone[]> {
    return (await this.#r.call('catalogue.zones', ZoneListResponse, { method: 'GET', path: '/v1/zones' }, opts)).zones;
  }

  async serverTypes(opts?: CallOptions): Promise<ServerType[]> {
    return (await this.#r.call('catalogue.serverTypes', ServerTypeListResponse, { method: 'GET', path: '/v1/server_types' }, opts)).server_types;
  }

  async images(opts?: CallOptions): Promise<Image[]> {
    return (await this.#r.call('catalogue.images', ImageListResponse, { method: 'GET', path: '/v1/images' }, opts)).images;
  }
}

export class SimcloudClient {
  readonly servers: ServersClient;
  readonly networks: NetworksClient;
  readonly loadBalancers: LoadBalancersClient;
  readonly serverGroups: ServerGroupsClient;
  readonly firewallPolicies: FirewallPoliciesClient;
  readonly ipBlocks: IpBlocksClient;
  readonly certificates: CertificatesClient;
  readonly actions: ActionsClient;
  readonly catalogue: CatalogueClient;
  readonly #sleep: Sleep;
  readonly #now: () => number;

  constructor(opts: SimcloudClientOptions) {
    const r = buildRequester(opts);
    this.#sleep = opts.sleep ?? realSleep;
    this.#now = opts.now ?? Date.now;
    this.servers = new ServersClient(r);
    this.networks = new NetworksClient(r);
    this.loadBalancers = new LoadBalancersClient(r);
    this.serverGroups = new ServerGroupsClient(r);
    this.firewallPolicies = new FirewallPoliciesClient(r);
    this.ipBlocks = new IpBlocksClient(r);
    this.certificates = new CertificatesClient(r);
    this.actions = new ActionsClient(r);
    this.catalogue = new CatalogueClient(r);
  }

  /**
   * Polls an action until it leaves `running`. Resolves with the finished action on success; throws
   * SimcloudApiError (the action's error code, operation `actions.wait`) when it ends in `error`,
   * and code `timeout` after `deadlineMs`. Given the action a call just returned rather than its id, it
   * starts from that state: a finished action costs no call, and a running one is read again only after
   * the first interval (an action is rarely done the instant it was reported running).
   */
  async waitForAction(action: string | Action, opts: WaitOptions = {}): Promise<Action> {
    const id = typeof action === 'string' ? action : action.id;
    const deadline = this.#now() + (opts.deadlineMs ?? 60_000);
    let interval = opts.intervalMs ?? 100;
    let current = typeof action === 'string' ? await this.actions.get(id, opts) : action;
    for (;;) {
      if (finished(current)) return current;
      if (this.#now() >= deadline) {
        throw new SimcloudApiError({ code: 'timeout', message: `action ${id} still running`, status: 0, requestId: '', operation: 'actions.wait' });
      }
      await this.#sleep(interval, opts.signal);
      interval = Math.min(interval * 2, Math.max(interval, opts.maxIntervalMs ?? interval));
      current = await this.actions.get(id, opts);
    }
  }
}

/** Whether the action is done: true on success, false while running; an action that ended in error throws. */
function finished(action: Action): boolean {
  if (action.status === 'success') return true;
  if (action.status !== 'error') return false;
  const e = action.error ?? { code: 'server_error' as const, message: 'action failed' };
  throw new SimcloudApiError({ code: e.code, message: e.message, status: 0, requestId: '', operation: 'actions.wait' });
}
