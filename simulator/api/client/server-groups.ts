/** Server groups: `client.serverGroups.*`. */
import type { ListMeta, ListParams } from '../schema/common.ts';
import {
  ServerGroupListResponse,
  ServerGroupResponse,
  type CreateServerGroupRequest,
  type ServerGroup,
  type UpdateServerGroupRequest,
} from '../schema/server-groups.ts';
import { collectPages, seg, type CallOptions, type Requester } from './requester.ts';

export class ServerGroupsClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async list(params: ListParams = {}, opts?: CallOptions): Promise<{ server_groups: ServerGroup[]; meta: ListMeta }> {
    return this.#r.call('serverGroups.list', ServerGroupListResponse, { method: 'GET', path: '/v1/server_groups', query: params }, opts);
  }

  async listAll(params: Omit<ListParams, 'page'> = {}, opts?: CallOptions): Promise<ServerGroup[]> {
    return collectPages(async (page) => {
      const r = await this.list({ per_page: 500, ...params, page }, opts);
      return { items: r.server_groups, meta: r.meta };
    });
  }

  async get(id: string, opts?: CallOptions): Promise<ServerGroup> {
    return (await this.#r.call('serverGroups.get', ServerGroupResponse, { method: 'GET', path: `/v1/server_groups/${seg(id)}` }, opts)).server_group;
  }

  async create(body: CreateServerGroupRequest, opts?: CallOptions): Promise<ServerGroup> {
    return (await this.#r.call('serverGroups.create', ServerGroupResponse, { method: 'POST', path: '/v1/server_groups', body }, opts)).server_group;
  }

  async update(id: string, body: UpdateServerGroupRequest, opts?: CallOptions): Promise<ServerGroup> {
    const path = `/v1/server_groups/${seg(id)}`;
    return (await this.#r.call('serverGroups.update', ServerGroupResponse, { method: 'PATCH', path, body }, opts)).server_group;
  }

  async delete(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('serverGroups.delete', { method: 'DELETE', path: `/v1/server_groups/${seg(id)}` }, opts);
  }

  /** Adds members (at most `MaxServersPerRequest` per call; present ones are kept). */
  async addServers(id: string, servers: string[], opts?: CallOptions): Promise<ServerGroup> {
    const path = `/v1/server_groups/${seg(id)}/actions/add_servers`;
    return (await this.#r.call('serverGroups.addServers', ServerGroupResponse, { method: 'POST', path, body: { servers } }, opts)).server_group;
  }

  /** Removes members (at most `MaxServersPerRequest` per call; absent ones are skipped). */
  async removeServers(id: string, servers: string[], opts?: CallOptions): Promise<ServerGroup> {
    const path = `/v1/server_groups/${seg(id)}/actions/remove_servers`;
    return (await this.#r.call('serverGroups.removeServers', ServerGroupResponse, { method: 'POST', path, body: { servers } }, opts)).server_group;
  }

  /** Replaces the member list (at most `MaxServersPerRequest`; larger groups grow with `addServers`). */
  async setServers(id: string, servers: string[], opts?: CallOptions): Promise<ServerGroup> {
    const path = `/v1/server_groups/${seg(id)}/servers`;
    return (await this.#r.call('serverGroups.setServers', ServerGroupResponse, { method: 'PUT', path, body: { servers } }, opts)).server_group;
  }
}
