/** Private networks and their routes: `client.networks.*`. */
import type { ListMeta, ListParams } from '../schema/common.ts';
import {
  NetworkListResponse,
  NetworkResponse,
  RouteCreateResponse,
  RouteListResponse,
  type CreateNetworkRequest,
  type CreateRouteRequest,
  type Network,
  type Route,
  type UpdateNetworkRequest,
} from '../schema/networks.ts';
import type { Action } from '../schema/actions.ts';
import { ActionResponse } from '../schema/actions.ts';
import { collectPages, seg, type CallOptions, type Requester } from './requester.ts';

export class NetworksClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async list(params: ListParams = {}, opts?: CallOptions): Promise<{ networks: Network[]; meta: ListMeta }> {
    return this.#r.call('networks.list', NetworkListResponse, { method: 'GET', path: '/v1/networks', query: params }, opts);
  }

  async listAll(params: Omit<ListParams, 'page'> = {}, opts?: CallOptions): Promise<Network[]> {
    return collectPages(async (page) => {
      const r = await this.list({ per_page: 500, ...params, page }, opts);
      return { items: r.networks, meta: r.meta };
    });
  }

  async get(id: string, opts?: CallOptions): Promise<Network> {
    return (await this.#r.call('networks.get', NetworkResponse, { method: 'GET', path: `/v1/networks/${seg(id)}` }, opts)).network;
  }

  async create(body: CreateNetworkRequest, opts?: CallOptions): Promise<Network> {
    return (await this.#r.call('networks.create', NetworkResponse, { method: 'POST', path: '/v1/networks', body }, opts)).network;
  }

  async update(id: string, body: UpdateNetworkRequest, opts?: CallOptions): Promise<Network> {
    return (await this.#r.call('networks.update', NetworkResponse, { method: 'PATCH', path: `/v1/networks/${seg(id)}`, body }, opts)).network;
  }

  async delete(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('networks.delete', { method: 'DELETE', path: `/v1/networks/${seg(id)}` }, opts);
  }

  async listRoutes(id: string, opts?: CallOptions): Promise<Route[]> {
    return (await this.#r.call('networks.listRoutes', RouteListResponse, { method: 'GET', path: `/v1/networks/${seg(id)}/routes` }, opts)).routes;
  }

  /** Conflict when the destination overlaps an existing route; invalid_input when the gateway is outside the network. */
  async createRoute(id: string, body: CreateRouteRequest, opts?: CallOptions): Promise<{ route: Route; action: Action }> {
    return this.#r.call('networks.createRoute', RouteCreateResponse, { method: 'POST', path: `/v1/networks/${seg(id)}/routes`, body }, opts);
  }

  async deleteRoute(id: string, routeId: string, opts?: CallOptions): Promise<Action> {
    const path = `/v1/networks/${seg(id)}/routes/${seg(routeId)}`;
    return (await this.#r.call('networks.deleteRoute', ActionResponse, { method: 'DELETE', path }, opts)).action;
  }
}
