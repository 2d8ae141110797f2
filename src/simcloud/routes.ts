/**
 * Routes in the configured simcloud network (Hetzner style): `<podCIDR> -> <node's private IP>`. A route is
 * created with the route controller's name hint (the node UID) as its name, and reported under that name
 * (its id when it has none); the target node is found again from the gateway (the server holding that
 * private IP in the network). A route whose gateway belongs to no server is reported as a blackhole, so the
 * route controller removes it.
 */
import type { V1NodeAddress } from '@kubernetes/client-node';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { Network, Server } from '../../simulator/api/schema/index.ts';
import { CloudMethod, inMethod, type CallContext } from '../cloud/provider.ts';
import type { Route, Routes } from '../cloud/routes.ts';
import { callOptions, deleteIgnoringNotFound, unlessNotFound, waitForAction } from './client.ts';
import { isApiError } from '../../simulator/api/client/index.ts';
import type { ServerCache } from './server-cache.ts';

export interface SimcloudRoutesOptions {
  readonly client: SimcloudClient;
  /** Network id or name. */
  readonly network: string;
  /** Server list cache: gateways are mapped to nodes without listing every server each period. */
  readonly servers?: ServerCache;
}

/** A route listing accepts a server snapshot this old while it knows every gateway (private IPs do not change). */
const ROUTE_SNAPSHOT_MAX_AGE_MS = 5 * 60_000;

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
    return { name: r.name ?? r.id, targetNode: target ?? '', targetNodeAddresses: [], destinationCIDR: r.destination, blackhole: target === undefined, enableNodeAddresses: false };
  });
}

export class SimcloudRoutes implements Routes {
  readonly #client: SimcloudClient;
  readonly #network: string;
  readonly #cache: ServerCache | undefined;
  #networkId: string | undefined;

  constructor(options: SimcloudRoutesOptions) {
    this.#client = options.client;
    this.#network = options.network;
    this.#cache = options.servers;
  }

  async listRoutes(_clusterName: string, outer?: CallContext): Promise<Route[]> {
    const ctx = inMethod(outer, CloudMethod.listRoutes);
    const network = await this.#getNetwork(ctx);
    return toRoutes(network, await this.#serversFor(network, ctx));
  }

  /** Every server; from the cache while it knows every gateway of the network's routes. */
  async #serversFor(network: Network, ctx: CallContext | undefined): Promise<readonly Server[]> {
    if (!this.#cache) return this.#client.servers.listAll({}, callOptions(ctx));
    const complete = (servers: readonly Server[]): boolean => {
      const ips = new Set(servers.map((s) => privateIpIn(s, network.id)));
      return network.routes.every((r) => ips.has(r.gateway));
    };
    return this.#cache.list(ctx, { maxAgeMs: ROUTE_SNAPSHOT_MAX_AGE_MS, complete });
  }

  async createRoute(_clusterName: string, nameHint: string, route: Route, outer?: CallContext): Promise<void> {
    const ctx = inMethod(outer, CloudMethod.createRoute);
    const network = await this.#getNetwork(ctx);
    const gateway = await this.#gatewayFor(network, route, ctx);
    const existing = network.routes.find((r) => r.destination === route.destinationCIDR);
    if (existing?.gateway === gateway) return;
    if (existing) await this.#delete(network.id, existing.id, ctx);
    try {
      const name = ROUTE_NAME.test(nameHint) ? { name: nameHint } : {};
      const { action } = await this.#client.networks.createRoute(network.id, { destination: route.destinationCIDR, gateway, ...name }, callOptions(ctx));
      await waitForAction(this.#client, action, ctx);
    } catch (err) {
      if (!isApiError(err, 'conflict')) throw err;
      const again = await this.#getNetwork(ctx);
      if (!again.routes.some((r) => r.destination === route.destinationCIDR && r.gateway === gateway)) throw err;
    }
  }

  async deleteRoute(_clusterName: string, route: Route, outer?: CallContext): Promise<void> {
    const ctx = inMethod(outer, CloudMethod.deleteRoute);
    const network = await this.#getNetwork(ctx);
    const match = network.routes.find((r) => r.id === route.name || r.name === route.name) ?? network.routes.find((r) => r.destination === route.destinationCIDR);
    if (match) await this.#delete(network.id, match.id, ctx);
  }

  async #delete(networkId: string, routeId: string, ctx: CallContext | undefined): Promise<void> {
    const action = await unlessNotFound(() => this.#client.networks.deleteRoute(networkId, routeId, callOptions(ctx)));
    if (action) await deleteIgnoringNotFound(() => waitForAction(this.#client, action, ctx));
  }

  /** The node's private IP in the network: from its server (by name), else its InternalIP address. */
  async #gatewayFor(network: Network, route: Route, ctx: CallContext | undefined): Promise<string> {
    const server = this.#cache ? await this.#cache.byName(route.targetNode, ctx) : await this.#byName(route.targetNode, ctx);
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

function internalIp(addresses: readonly V1NodeAddress[]): string | undefined {
  return addresses.find((a) => a.type === 'InternalIP')?.address;
}
