/** Firewall-policy routes: HTTP only. */
import { z } from 'zod';
import { ListParams } from '../../../api/schema/common.ts';
import {
  ApplyFirewallPolicyRequest,
  CreateFirewallPolicyRequest,
  FirewallPolicyListResponse,
  FirewallPolicyResponse,
  SetFirewallRulesRequest,
  UpdateFirewallPolicyRequest,
} from '../../../api/schema/firewall-policies.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import * as svc from './service.ts';

const base = '/v1/firewall_policies';

export const firewallPolicyRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: base,
    operation: 'firewallPolicies.list',
    summary: 'List firewall policies',
    query: ListParams,
    response: FirewallPolicyListResponse,
    handle: (sim, { caller, query }) => svc.listFirewallPolicies(sim, caller, query),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operation: 'firewallPolicies.create',
    summary: 'Create a firewall policy',
    body: CreateFirewallPolicyRequest,
    response: FirewallPolicyResponse,
    status: 201,
    handle: async (sim, { caller, body }) => ({ firewall_policy: await svc.createFirewallPolicy(sim, caller, body) }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:id`,
    operation: 'firewallPolicies.get',
    summary: 'Get a firewall policy',
    params: idParams,
    response: FirewallPolicyResponse,
    handle: (sim, { caller, params }) => ({ firewall_policy: svc.getFirewallPolicy(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:id`,
    operation: 'firewallPolicies.update',
    summary: 'Update a firewall policy',
    params: idParams,
    body: UpdateFirewallPolicyRequest,
    response: FirewallPolicyResponse,
    handle: async (sim, { caller, params, body }) => ({ firewall_policy: await svc.updateFirewallPolicy(sim, caller, params.id, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:id`,
    operation: 'firewallPolicies.delete',
    summary: 'Delete a firewall policy',
    params: idParams,
    status: 204,
    handle: (sim, { caller, params }) => svc.deleteFirewallPolicy(sim, caller, params.id),
  }),
  defineRoute({
    method: 'put',
    path: `${base}/:id/rules`,
    operation: 'firewallPolicies.setRules',
    summary: 'Replace all rules',
    params: idParams,
    body: SetFirewallRulesRequest,
    response: FirewallPolicyResponse,
    handle: async (sim, { caller, params, body }) => ({ firewall_policy: await svc.setRules(sim, caller, params.id, body.rules) }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/apply`,
    operation: 'firewallPolicies.apply',
    summary: 'Apply to a server group',
    params: idParams,
    body: ApplyFirewallPolicyRequest,
    response: FirewallPolicyResponse,
    handle: async (sim, { caller, params, body }) => ({ firewall_policy: await svc.applyPolicy(sim, caller, params.id, body.server_group_id) }),
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:id/actions/remove`,
    operation: 'firewallPolicies.remove',
    summary: 'Remove from its server group',
    params: idParams,
    body: z.strictObject({}),
    response: FirewallPolicyResponse,
    handle: async (sim, { caller, params }) => ({ firewall_policy: await svc.removePolicy(sim, caller, params.id) }),
  }),
];
