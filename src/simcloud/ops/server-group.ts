/**
 * Brightbox-style steps for strategy `lb`: one server group (the LB's target, holding the Service's nodes) and
 * one firewall policy applied to it (one inbound rule per node port, sources = the Service's source ranges).
 */
import type { V1Service } from '@kubernetes/client-node';
import { MaxServersPerRequest, type FirewallPolicy, type FirewallRuleInput, type ServerGroup } from '../../../simulator/api/schema/index.ts';
import { callOptions, deleteIgnoringNotFound } from '../client.ts';
import type { OpsContext, Reconciled } from './load-balancer.ts';
import { ownerLabels, ownerSelector, resourceName, serviceKey } from './naming.ts';
import { writing } from './owned-listing.ts';
import { diffIds, sameJson, type FirewallRulePlan } from './plan.ts';
import { compareStrings } from '../../util/order.ts';

/** Firewall rule inputs for the plan's rules (pure). */
export function firewallRules(service: V1Service, rules: readonly FirewallRulePlan[]): FirewallRuleInput[] {
  return rules.map((r) => ({
    direction: 'inbound',
    protocol: r.protocol,
    ports: String(r.port),
    source_cidrs: [...r.sourceCidrs],
    destination_cidrs: [],
    description: `${serviceKey(service)} node port ${r.port}`,
  }));
}

/** The Service's server group, if any (by owner labels, then by name). */
export async function findServerGroup(ops: OpsContext, service: V1Service): Promise<ServerGroup | undefined> {
  const listed = (await ops.owned?.lookup())?.serverGroup;
  if (listed) return listed;
  const opts = callOptions(ops.ctx);
  const { server_groups: owned } = await ops.client.serverGroups.list({ label_selector: ownerSelector(ops.clusterName, service), sort: 'created:asc' }, opts);
  if (owned[0]) return owned[0];
  const name = resourceName(ops.clusterName, service);
  const { server_groups: named } = await ops.client.serverGroups.list({ name }, opts);
  return named.find((g) => g.name === name);
}

/** Creates the group with `serverIds` (the first request's worth, then additions), or reconciles its members. */
export async function ensureServerGroup(ops: OpsContext, service: V1Service, serverIds: string[]): Promise<Reconciled<ServerGroup>> {
  const opts = callOptions(ops.ctx);
  const existing = await findServerGroup(ops, service);
  if (existing) return reconcileServerGroupMembers(ops, existing, serverIds);
  const [first = [], ...rest] = chunked([...serverIds].sort(), MaxServersPerRequest);
  return writing(ops.owned, async () => {
    let group = await ops.client.serverGroups.create(
      {
        name: resourceName(ops.clusterName, service),
        description: `load balancer targets of ${serviceKey(service)}`,
        labels: ownerLabels(ops.clusterName, service),
        servers: first,
      },
      opts,
    );
    for (const servers of rest) group = await ops.client.serverGroups.addServers(group.id, servers, opts);
    return { resource: group, changed: true };
  });
}

export interface MemberChange {
  readonly op: 'add' | 'remove';
  readonly servers: string[];
}

/**
 * The requests that turn `have` into `want`: additions first (a node swap never leaves the LB with fewer
 * targets than either set), then removals, each at most `max` ids (pure).
 */
export function memberChanges(have: readonly string[], want: readonly string[], max = MaxServersPerRequest): MemberChange[] {
  const { add, remove } = diffIds(have, want);
  return [
    ...chunked(add, max).map((servers) => ({ op: 'add' as const, servers })),
    ...chunked(remove, max).map((servers) => ({ op: 'remove' as const, servers })),
  ];
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Makes the group's members `serverIds` with add/remove requests for the difference only: a node joining
 * costs one small request per LB whatever the cluster size, and groups may exceed one request's 1000 ids.
 */
export async function reconcileServerGroupMembers(ops: OpsContext, group: ServerGroup, serverIds: string[]): Promise<Reconciled<ServerGroup>> {
  const changes = memberChanges(group.servers, serverIds);
  if (changes.length === 0) return { resource: group, changed: false };
  const opts = callOptions(ops.ctx);
  return writing(ops.owned, async () => {
    let updated = group;
    for (const { op, servers } of changes) {
      updated =
        op === 'add' ? await ops.client.serverGroups.addServers(group.id, servers, opts) : await ops.client.serverGroups.removeServers(group.id, servers, opts);
    }
    return { resource: updated, changed: true };
  });
}

/** The Service's firewall policy, if any. */
export async function findFirewallPolicy(ops: OpsContext, service: V1Service): Promise<FirewallPolicy | undefined> {
  const listed = (await ops.owned?.lookup())?.firewallPolicy;
  if (listed) return listed;
  const opts = callOptions(ops.ctx);
  const { firewall_policies: owned } = await ops.client.firewallPolicies.list(
    { label_selector: ownerSelector(ops.clusterName, service), sort: 'created:asc' },
    opts,
  );
  if (owned[0]) return owned[0];
  const name = resourceName(ops.clusterName, service);
  const { firewall_policies: named } = await ops.client.firewallPolicies.list({ name }, opts);
  return named.find((p) => p.name === name);
}

const comparable = (rules: readonly FirewallRuleInput[]): unknown[] =>
  rules.map((r) => ({ ...r, source_cidrs: [...(r.source_cidrs ?? [])].sort() })).sort((a, b) => compareStrings(String(a.ports), String(b.ports)));

/** Creates the policy applied to `group`, or fixes its rules and its group. */
export async function ensureFirewallPolicy(
  ops: OpsContext,
  service: V1Service,
  group: ServerGroup,
  rules: FirewallRuleInput[],
): Promise<Reconciled<FirewallPolicy>> {
  const opts = callOptions(ops.ctx);
  const existing = await findFirewallPolicy(ops, service);
  if (!existing) {
    const name = resourceName(ops.clusterName, service);
    const policy = await writing(ops.owned, () =>
      ops.client.firewallPolicies.create(
        { name, description: `node ports of ${serviceKey(service)}`, labels: ownerLabels(ops.clusterName, service), rules, server_group_id: group.id },
        opts,
      ),
    );
    return { resource: policy, changed: true };
  }
  let policy = existing;
  let changed = false;
  if (!sameJson(comparable(policy.rules), comparable(rules))) {
    const id = policy.id;
    policy = await writing(ops.owned, () => ops.client.firewallPolicies.setRules(id, rules, opts));
    changed = true;
  }
  if (policy.server_group_id !== group.id) {
    const id = policy.id;
    policy = await writing(ops.owned, () => ops.client.firewallPolicies.apply(id, group.id, opts));
    changed = true;
  }
  return { resource: policy, changed };
}

/** Removes the policy (unapplied first) and the group; both tolerate not_found. */
export async function deleteGroupAndPolicy(ops: OpsContext, service: V1Service): Promise<void> {
  await writing(ops.owned, () => deleteBoth(ops, service));
}

async function deleteBoth(ops: OpsContext, service: V1Service): Promise<void> {
  const opts = callOptions(ops.ctx);
  const policy = await findFirewallPolicy(ops, service);
  if (policy) {
    if (policy.server_group_id !== null) await deleteIgnoringNotFound(() => ops.client.firewallPolicies.remove(policy.id, opts));
    await deleteIgnoringNotFound(() => ops.client.firewallPolicies.delete(policy.id, opts).then(() => true));
  }
  const group = await findServerGroup(ops, service);
  if (group) await deleteIgnoringNotFound(() => ops.client.serverGroups.delete(group.id, opts).then(() => true));
}
