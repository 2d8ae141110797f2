/** Servers: `client.servers.*`. */
import type { ListMeta, ListParams } from '../schema/common.ts';
import { ActionResponse, type Action } from '../schema/actions.ts';
import {
  ServerCreateResponse,
  ServerListResponse,
  ServerResponse,
  type AttachServerToNetworkRequest,
  type CreateServerRequest,
  type Server,
  type UpdateServerRequest,
} from '../schema/servers.ts';
import { collectPages, seg, type CallOptions, type Requester } from './requester.ts';

export type ServerListParams = ListParams & { status?: string };

export class ServersClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async list(params: ServerListParams = {}, opts?: CallOptions): Promise<{ servers: Server[]; meta: ListMeta }> {
    return this.#r.call('servers.list', ServerListResponse, { method: 'GET', path: '/v1/servers', query: params }, opts);
  }

  /** Every page of `list`. */
  async listAll(params: Omit<ServerListParams, 'page'> = {}, opts?: CallOptions): Promise<Server[]> {
    return collectPages(async (page) => {
      const r = await this.list({ per_page: 500, ...params, page }, opts);
      return { items: r.servers, meta: r.meta };
    });
  }

  async get(id: string, opts?: CallOptions): Promise<Server> {
    return (await this.#r.call('servers.get', ServerResponse, { method: 'GET', path: `/v1/servers/${seg(id)}` }, opts)).server;
  }

  async create(body: CreateServerRequest, opts?: CallOptions): Promise<{ server: Server; action: Action }> {
    return this.#r.call('servers.create', ServerCreateResponse, { method: 'POST', path: '/v1/servers', body }, opts);
  }

  async update(id: string, body: UpdateServerRequest, opts?: CallOptions): Promise<Server> {
    return (await this.#r.call('servers.update', ServerResponse, { method: 'PATCH', path: `/v1/servers/${seg(id)}`, body }, opts)).server;
  }

  async delete(id: string, opts?: CallOptions): Promise<Action> {
    return (await this.#r.call('servers.delete', ActionResponse, { method: 'DELETE', path: `/v1/servers/${seg(id)}` }, opts)).action;
  }

  async poweron(id: string, opts?: CallOptions): Promise<Action> {
    return this.#action({ op: 'servers.poweron', id, name: 'poweron' }, opts);
  }

  async poweroff(id: string, opts?: CallOptions): Promise<Action> {
    return this.#action({ op: 'servers.poweroff', id, name: 'poweroff' }, opts);
  }

  async shutdown(id: string, opts?: CallOptions): Promise<Action> {
    return this.#action({ op: 'servers.shutdown', id, name: 'shutdown' }, opts);
  }

  async reboot(id: string, opts?: CallOptions): Promise<Action> {
    return this.#action({ op: 'servers.reboot', id, name: 'reboot' }, opts);
  }

  async attachToNetwork(id: string, body: AttachServerToNetworkRequest, opts?: CallOptions): Promise<Action> {
    return this.#action({ op: 'servers.attachToNetwork', id, name: 'attach_to_network', body }, opts);
  }

  async detachFromNetwork(id: string, body: { network_id: string }, opts?: CallOptions): Promise<Action> {
    return this.#action({ op: 'servers.detachFromNetwork', id, name: 'detach_from_network', body }, opts);
  }

  async #action(a: { op: string; id: string; name: string; body?: unknown }, opts?: CallOptions): Promise<Action> {
    const { op, id, name, body } = a;
    const path = `/v1/servers/${seg(id)}/actions/${name}`;
    return (await this.#r.call(op, ActionResponse, { method: 'POST', path, body: body ?? {} }, opts)).action;
  }
}
