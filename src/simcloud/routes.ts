/**
 * Routes in the configured simcloud network (Hetzner style): `<podCIDR> -> <node's private IP>`. A route is
 * created with the route controller's name hint (the node UID) as its name, and reported under that name
 * (its id when it has none); the target node is found again from the gateway (the server holding that
 * private IP in the network). A route whose gateway belongs to no server is reported as a blackhole, so the
 * route controller removes it.
 * Creates and deletes read the network as the pass's listing saw it (when at most 10 s old) instead of
 * fetching it again each: at 300 nodes a pass fetched the whole network (every route) 300 times, which on
 * a busy machine made route creation twice as slow with the tuned profile as with the parity one. The
 * controller planned from that same listing; a route made meanwhile by someone else is a 409, answered
 * by a fresh read.
 */
import type { V1NodeAddress } from '@kubernetes/client-node';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { Network, Server } from '../../simulator/api/schema/index.ts';
import { CloudMethod, inMethod, type CallContext } from '../cloud/provider.ts';
import type { Route, Routes } from '../cloud/routes.ts';
import { callOptions, deleteIgnoringNotFound, unlessNotFound, waitForAction } from './client.ts';
import { isApiError } from '../../simulator/api/client/index.ts';
import type { ServerCache } from './server-cache.ts';
import { realClock, type Clock } from '../kube/clock.ts';

export interface SimcloudRoutesOptions {
  readonly client: SimcloudClient;
  /** Network id or name. */
  readonly network: string;
  /** Server list cache: gateways are mapped to nodes without listing every server each period. */
  readonly servers?: ServerCache;
  readonly clock?: Clock;
}

/**
 * Creates and deletes reuse the pass's network listing this long (the route period is 10 s), and a listing
 * maps gateways with a server snapshot no older: a deleted server's route must read as a blackhole by the
 * next pass, as upstream's provider, listing servers every pass, reports it. (An older snapshot kept such
 * routes for minutes, then deleted them all in one pass: 1 000 of them at once after a fleet was removed.)
 */
const LISTING_REUSE_MS = 10_000;

const ID = /^[a-z]{2,5}-[A-Za-z0-9]{1,40}$/;
/** simcloud's name rule; a node UID always satisfies it. */
const ROUTE_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

/** The server's address in `network`: its attachment there, else its primary private address. */
export function privateIpIn(server: Server, networkId: string): string | undefined {
  return server.private_networks.find((n) => n.network_id === networkId)?.ip ?? server.private_ipv4 ?? undefined;
}

/** Routes in the contract's shape: name = route id, target = the server holding the gateway (pure). */
export function toRoutes(network: Network, servers: readonly Server[]): Route[] {
  const byIp = new Map<string, string>();
  for (const s of servers) {
    const ip = privateIpIn(s, network.id);
    if (ip !== undefined) byIp.set(ip, s.name);
  }
  return network.routes.map((r) => {
    const target = byIp.get(r.gateway);
    return {
      name: r.name ?? r.id,
      targetNode: target ?? '',
      targetNodeAddresses: [],
      destinationCIDR: r.destination,
      blackhole: target === undefined,
      enableNodeAddresses: false,
    };
  });
}

export class SimcloudRoutes implements Routes {
  readonly #client: SimcloudClient;
  readonly #network: string;
  readonly #cache: ServerCache | undefined;
  readonly #clock: Clock;
  #networkId: string | undefined;
  #listed: { network: Network; at: number } | undefined;
  #reading: Promise<Network> | undefined;

  constructor(options: SimcloudRoutesOptions) {
    this.#client = options.client;
    this.#network = options.network;
    this.#cache = options.servers;
    this.#clock = options.clock ?? realClock;
  }

  async listRoutes(_clusterName: string, outer?: CallContext): Promise<Route[]> {
    const ctx = inMethod(outer, CloudMethod.listRoutes);
    // The network and the servers are read side by side; the gateways are checked against the servers after.
    const [network, servers] = await Promise.all([this.#getNetwork(ctx), this.#servers(ctx)]);
    this.#listed = { network, at: this.#clock.now() };
    return toRoutes(network, await this.#complete(network, servers, ctx));
  }

  /**
   * A fresh read of the network, shared by the creates and deletes that ask while it is in flight: when a
   * pass outlives its listing, its concurrent creates share one read instead of each holding its own copy of
   * every route (at 3 000 Nodes, ~100 copies of a 2 000-route network ran the CCM out of heap). It is not
   * kept as the listing: our own creates and deletes would make it wrong.
   */
  #freshListing(ctx: CallContext | undefined): Promise<Network> {
    this.#reading ??= this.#getNetwork(ctx).finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /** The network as the pass's listing read it, when that was at most LISTING_REUSE_MS ago. */
  #recentListing(): Network | undefined {
    const listed = this.#listed;
    return listed && this.#clock.now() - listed.at <= LISTING_REUSE_MS ? listed.network : undefined;
  }

  /** Every server: the cache's snapshot when it is this pass's (at most LISTING_REUSE_MS old), else a list. */
  #servers(ctx: CallContext | undefined): Promise<readonly Server[]> {
    return this.#cache ? this.#cache.list(ctx, { maxAgeMs: LISTING_REUSE_MS }) : this.#client.servers.listAll({}, callOptions(ctx));
  }

  /** `servers`, refreshed once from the cache when they miss a gateway of the network's routes (a server made since). */
  async #complete(network: Network, servers: readonly Server[], ctx: CallContext | undefined): Promise<readonly Server[]> {
    if (!this.#cache) return servers;
    const complete = (list: readonly Server[]): boolean => {
      const ips = new Set(list.map((s) => privateIpIn(s, network.id)));
      return network.routes.every((r) => ips.has(r.gateway));
    };
    return complete(servers) ? servers : this.#cache.list(ctx, { maxAgeMs: LISTING_REUSE_MS, complete, paced: false });
  }

  async createRoute(_clusterName: string, nameHint: string, route: Route, outer?: CallContext): Promise<void> {
    const ctx = inMethod(outer, CloudMethod.createRoute);
    const listed = this.#recentListing();
    if (listed) {
      const gateway = await this.#gatewayFor(listed, route, ctx);
      try {
        await this.#createIn(listed, { nameHint, destination: route.destinationCIDR, gateway }, ctx);
        return;
      } catch (err) {
        // The listing misses what changed since (this pass's own creates, another client's): decide again on a fresh read.
        if (!isApiError(err, 'conflict')) throw err;
      }
    }
    const network = await this.#freshListing(ctx);
    const gateway = await this.#gatewayFor(network, route, ctx);
    try {
      await this.#createIn(network, { nameHint, destination: route.destinationCIDR, gateway }, ctx);
    } catch (err) {
      if (!isApiError(err, 'conflict')) throw err;
      // A conflict is success when the route we wanted is there (made by an earlier attempt).
      const again = await this.#getNetwork(ctx);
      if (!again.routes.some((r) => r.destination === route.destinationCIDR && r.gateway === gateway)) throw err;
    }
  }

  /** Makes `destination -> gateway` in `network` as read: done when there, replacing a route to another gateway. */
  async #createIn(network: Network, want: { nameHint: string; destination: string; gateway: string }, ctx: CallContext | undefined): Promise<void> {
    const { nameHint, destination, gateway } = want;
    const existing = network.routes.find((r) => r.destination === destination);
    if (existing?.gateway === gateway) return;
    if (existing) await this.#delete(network.id, existing.id, ctx);
    const name = ROUTE_NAME.test(nameHint) ? { name: nameHint } : {};
    const { action } = await this.#client.networks.createRoute(network.id, { destination, gateway, ...name }, callOptions(ctx));
    await waitForAction(this.#client, action, ctx);
  }

  async deleteRoute(_clusterName: string, route: Route, outer?: CallContext): Promise<void> {
    const ctx = inMethod(outer, CloudMethod.deleteRoute);
    const listed = this.#recentListing();
    const inListing = listed && routeMatching(listed, route);
    if (listed && inListing) return this.#delete(listed.id, inListing.id, ctx);
    const network = await this.#freshListing(ctx);
    const match = routeMatching(network, route);
    if (match) await this.#delete(network.id, match.id, ctx);
  }

  async #delete(networkId: string, routeId: string, ctx: CallContext | undefined): Promise<void> {
    const action = await unlessNotFound(() => this.#client.networks.deleteRoute(networkId, routeId, callOptions(ctx)));
    if (action) await deleteIgnoringNotFound(() => waitForAction(this.#client, action, ctx));
  }

  /** The node's private IP in the network: from its server (by name), else its InternalIP address. */
  async #gatewayFor(network: Network, route: Route, ctx: CallContext | undefined): Promise<string> {
    // Unpaced: a pass misses at most once (the nodes registered since its listing); its creates share that refresh.
    const server = this.#cache ? await this.#cache.byName(route.targetNode, ctx, { paced: false }) : await this.#byName(route.targetNode, ctx);
    const ip = (server && privateIpIn(server, network.id)) ?? internalIp(route.targetNodeAddresses);
    if (ip === undefined) throw new Error(`simcloud/Routes.createRoute: node ${route.targetNode} has no private IP in network ${network.name}`);
    return ip;
  }

  async #byName(name: string, ctx: CallContext | undefined): Promise<Server | undefined> {
    const { servers } = await this.#client.servers.list({ name, per_page: 2 }, callOptions(ctx));
    return servers.find((s) => s.name === name);
  }

  async #getNetwork(ctx: CallContext | undefined): Promise<Network> {
    const opts = callOptions(ctx);
    if (this.#networkId !== undefined) return this.#client.networks.get(this.#networkId, opts);
    const byId = ID.test(this.#network) ? await unlessNotFound(() => this.#client.networks.get(this.#network, opts)) : undefined;
    const network = byId ?? (await this.#client.networks.list({ name: this.#network }, opts)).networks.find((n) => n.name === this.#network);
    if (!network) throw new Error(`simcloud/Routes: network ${this.#network} does not exist`);
    this.#networkId = network.id;
    return network;
  }
}

/** The network's route for `route`: by name (or id), else the one to the same destination. */
function routeMatching(network: Network, route: Route): Network['routes'][number] | undefined {
  return network.routes.find((r) => r.id === route.name || r.name === route.name) ?? network.routes.find((r) => r.destination === route.destinationCIDR);
}

function internalIp(addresses: readonly V1NodeAddress[]): string | undefined {
  return addresses.find((a) => a.type === 'InternalIP')?.address;
}
