/** Load balancers: `client.loadBalancers.*`. */
import type { ListMeta, ListParams } from '../schema/common.ts';
import { ActionResponse, type Action } from '../schema/actions.ts';
import {
  LoadBalancerCreateResponse,
  LoadBalancerListResponse,
  LoadBalancerMetricsResponse,
  LoadBalancerResponse,
  LoadBalancerSummaryListResponse,
  type AttachLoadBalancerToNetworkRequest,
  type CreateLoadBalancerRequest,
  type LoadBalancer,
  type LoadBalancerSummary,
  type TargetCounters,
  type UpdateLoadBalancerRequest,
} from '../schema/load-balancers.ts';
import { collectPages, seg, type CallOptions, type Requester } from './requester.ts';

export class LoadBalancersClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async list(params: ListParams = {}, opts?: CallOptions): Promise<{ load_balancers: LoadBalancer[]; meta: ListMeta }> {
    return this.#r.call('loadBalancers.list', LoadBalancerListResponse, { method: 'GET', path: '/v1/load_balancers', query: params }, opts);
  }

  /** The list without `resolved_targets` (`resolved_targets=false`): for a client that reads only the configuration. */
  async listSummaries(params: ListParams = {}, opts?: CallOptions): Promise<{ load_balancers: LoadBalancerSummary[]; meta: ListMeta }> {
    const query = { ...params, resolved_targets: 'false' };
    return this.#r.call('loadBalancers.listSummaries', LoadBalancerSummaryListResponse, { method: 'GET', path: '/v1/load_balancers', query }, opts);
  }

  async listAll(params: Omit<ListParams, 'page'> = {}, opts?: CallOptions): Promise<LoadBalancer[]> {
    return collectPages(async (page) => {
      const r = await this.list({ per_page: 500, ...params, page }, opts);
      return { items: r.load_balancers, meta: r.meta };
    });
  }

  async get(id: string, opts?: CallOptions): Promise<LoadBalancer> {
    return (await this.#r.call('loadBalancers.get', LoadBalancerResponse, { method: 'GET', path: `/v1/load_balancers/${seg(id)}` }, opts)).load_balancer;
  }

  async create(body: CreateLoadBalancerRequest, opts?: CallOptions): Promise<{ load_balancer: LoadBalancer; action: Action }> {
    return this.#r.call('loadBalancers.create', LoadBalancerCreateResponse, { method: 'POST', path: '/v1/load_balancers', body }, opts);
  }

  /** Replaces each given field (services and targets as whole lists). */
  async update(id: string, body: UpdateLoadBalancerRequest, opts?: CallOptions): Promise<LoadBalancer> {
    const path = `/v1/load_balancers/${seg(id)}`;
    return (await this.#r.call('loadBalancers.update', LoadBalancerResponse, { method: 'PATCH', path, body }, opts)).load_balancer;
  }

  async delete(id: string, opts?: CallOptions): Promise<Action> {
    return (await this.#r.call('loadBalancers.delete', ActionResponse, { method: 'DELETE', path: `/v1/load_balancers/${seg(id)}` }, opts)).action;
  }

  async attachToNetwork(id: string, body: AttachLoadBalancerToNetworkRequest, opts?: CallOptions): Promise<Action> {
    const path = `/v1/load_balancers/${seg(id)}/actions/attach_to_network`;
    return (await this.#r.call('loadBalancers.attachToNetwork', ActionResponse, { method: 'POST', path, body }, opts)).action;
  }

  async detachFromNetwork(id: string, opts?: CallOptions): Promise<Action> {
    const path = `/v1/load_balancers/${seg(id)}/actions/detach_from_network`;
    return (await this.#r.call('loadBalancers.detachFromNetwork', ActionResponse, { method: 'POST', path, body: {} }, opts)).action;
  }

  /** Connection and byte counters per resolved target, from the data plane. */
  async metrics(id: string, opts?: CallOptions): Promise<TargetCounters[]> {
    const path = `/v1/load_balancers/${seg(id)}/metrics`;
    return (await this.#r.call('loadBalancers.metrics', LoadBalancerMetricsResponse, { method: 'GET', path }, opts)).targets;
  }
}
