/** Firewall policies: `client.firewallPolicies.*`. */
import type { ListMeta, ListParams } from '../schema/common.ts';
import {
  FirewallPolicyListResponse,
  FirewallPolicyResponse,
  type CreateFirewallPolicyRequest,
  type FirewallPolicy,
  type FirewallRuleInput,
  type UpdateFirewallPolicyRequest,
} from '../schema/firewall-policies.ts';
import { collectPages, seg, type CallOptions, type Requester } from './requester.ts';

export class FirewallPoliciesClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async list(params: ListParams = {}, opts?: CallOptions): Promise<{ firewall_policies: FirewallPolicy[]; meta: ListMeta }> {
    return this.#r.call('firewallPolicies.list', FirewallPolicyListResponse, { method: 'GET', path: '/v1/firewall_policies', query: params }, opts);
  }

  async listAll(params: Omit<ListParams, 'page'> = {}, opts?: CallOptions): Promise<FirewallPolicy[]> {
    return collectPages(async (page) => {
      const r = await this.list({ per_page: 500, ...params, page }, opts);
      return { items: r.firewall_policies, meta: r.meta };
    });
  }

  async get(id: string, opts?: CallOptions): Promise<FirewallPolicy> {
    const path = `/v1/firewall_policies/${seg(id)}`;
    return (await this.#r.call('firewallPolicies.get', FirewallPolicyResponse, { method: 'GET', path }, opts)).firewall_policy;
  }

  async create(body: CreateFirewallPolicyRequest, opts?: CallOptions): Promise<FirewallPolicy> {
    const path = '/v1/firewall_policies';
    return (await this.#r.call('firewallPolicies.create', FirewallPolicyResponse, { method: 'POST', path, body }, opts)).firewall_policy;
  }

  async update(id: string, body: UpdateFirewallPolicyRequest, opts?: CallOptions): Promise<FirewallPolicy> {
    const path = `/v1/firewall_policies/${seg(id)}`;
    return (await this.#r.call('firewallPolicies.update', FirewallPolicyResponse, { method: 'PATCH', path, body }, opts)).firewall_policy;
  }

  async delete(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('firewallPolicies.delete', { method: 'DELETE', path: `/v1/firewall_policies/${seg(id)}` }, opts);
  }

  /** Replaces all rules. */
  async setRules(id: string, rules: FirewallRuleInput[], opts?: CallOptions): Promise<FirewallPolicy> {
    const path = `/v1/firewall_policies/${seg(id)}/rules`;
    return (await this.#r.call('firewallPolicies.setRules', FirewallPolicyResponse, { method: 'PUT', path, body: { rules } }, opts)).firewall_policy;
  }

  /** Applies the policy to a server group (a group has at most one policy: conflict otherwise). */
  async apply(id: string, serverGroupId: string, opts?: CallOptions): Promise<FirewallPolicy> {
    const path = `/v1/firewall_policies/${seg(id)}/actions/apply`;
    const body = { server_group_id: serverGroupId };
    return (await this.#r.call('firewallPolicies.apply', FirewallPolicyResponse, { method: 'POST', path, body }, opts)).firewall_policy;
  }

  async remove(id: string, opts?: CallOptions): Promise<FirewallPolicy> {
    const path = `/v1/firewall_policies/${seg(id)}/actions/remove`;
    return (await this.#r.call('firewallPolicies.remove', FirewallPolicyResponse, { method: 'POST', path, body: {} }, opts)).firewall_policy;
  }
}
