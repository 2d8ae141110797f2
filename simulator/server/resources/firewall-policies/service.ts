/** Firewall-policy rules: rule defaults, one policy per server group. */
import type {
  CreateFirewallPolicyRequest,
  FirewallPolicy,
  FirewallRule,
  FirewallRuleInput,
  UpdateFirewallPolicyRequest,
} from '../../../api/schema/firewall-policies.ts';
import { newIds, nowIso, type Caller, type Sim } from '../../context.ts';
import { conflict } from '../../errors.ts';
import type { FirewallPolicyRec } from '../../store/state.ts';
import { commitPlans, getOwned, listOwned, owned, publicView, withAttrs, type AttrSlices, type ListQuery, type Plan } from '../common.ts';

export function toFirewallPolicy(p: FirewallPolicyRec): FirewallPolicy {
  const { dialect_attrs: _dialects, ...rest } = publicView(p);
  return rest;
}

const toRule = (r: FirewallRuleInput): FirewallRule => ({
  direction: r.direction,
  protocol: r.protocol,
  ports: r.ports ?? null,
  source_cidrs: r.source_cidrs ?? [],
  destination_cidrs: r.destination_cidrs ?? [],
  description: r.description ?? '',
});

function checkName(sim: Sim, caller: Caller, name: string, selfId?: string): void {
  if (owned<FirewallPolicyRec>(sim, caller, 'firewall_policies').some((p) => p.name === name && p.id !== selfId)) {
    throw conflict(`a firewall policy named ${name} exists`, 'name');
  }
}

function checkGroup(sim: Sim, caller: Caller, groupId: string, selfId: string | undefined): void {
  getOwned(sim, caller, 'server_groups', { id: groupId, field: 'server_group_id' });
  const other = sim.store.all('firewall_policies').find((p) => p.server_group_id === groupId && p.id !== selfId);
  if (other !== undefined) throw conflict(`server group ${groupId} already has firewall policy ${other.id}`, 'server_group_id');
}

/** createFirewallPolicy's checks and record, not yet committed (see Plan). */
export function planFirewallPolicyCreate(
  sim: Sim,
  caller: Caller,
  body: CreateFirewallPolicyRequest,
  attrs: Pick<FirewallPolicyRec, 'dialect_attrs'> = {},
): Plan<FirewallPolicyRec> {
  checkName(sim, caller, body.name);
  if (body.server_group_id !== undefined) checkGroup(sim, caller, body.server_group_id, undefined);
  const { ids, change } = newIds(sim, 'fwp');
  const doc: FirewallPolicyRec = {
    id: ids[0]!,
    project_id: caller.projectId,
    name: body.name,
    description: body.description ?? '',
    labels: body.labels ?? {},
    server_group_id: body.server_group_id ?? null,
    rules: (body.rules ?? []).map(toRule),
    created: nowIso(sim),
    ...attrs,
  };
  return { doc, changes: [change, { op: 'put', coll: 'firewall_policies', doc }] };
}

/** `attrs`: a persona's own attributes, stored on the record from its first commit. */
export async function createFirewallPolicy(
  sim: Sim,
  caller: Caller,
  body: CreateFirewallPolicyRequest,
  attrs: Pick<FirewallPolicyRec, 'dialect_attrs'> = {},
): Promise<FirewallPolicy> {
  const plan = planFirewallPolicyCreate(sim, caller, body, attrs);
  await commitPlans(sim, [plan]);
  return toFirewallPolicy(plan.doc);
}

export function listFirewallPolicies(sim: Sim, caller: Caller, q: ListQuery): { firewall_policies: FirewallPolicy[]; meta: unknown } {
  const { items, meta } = listOwned<FirewallPolicyRec>(sim, caller, { coll: 'firewall_policies', type: 'firewall_policy', q });
  return { firewall_policies: items.map(toFirewallPolicy), meta };
}

export const getFirewallPolicy = (sim: Sim, caller: Caller, id: string): FirewallPolicy => toFirewallPolicy(getOwned(sim, caller, 'firewall_policies', id));

async function save(sim: Sim, doc: FirewallPolicyRec): Promise<FirewallPolicy> {
  await sim.store.commit([{ op: 'put', coll: 'firewall_policies', doc }]);
  return toFirewallPolicy(doc);
}

/** What one operation changes on a policy: its fields, its rules (replaced whole) and persona attribute slices. */
export interface FirewallPolicyUpdate {
  fields: UpdateFirewallPolicyRequest & { rules?: FirewallRuleInput[] };
  attrs?: AttrSlices;
}

/** The update's checks and record, not yet committed (see Plan). */
export function planFirewallPolicyUpdate(sim: Sim, caller: Caller, id: string, { fields, attrs = {} }: FirewallPolicyUpdate): Plan<FirewallPolicyRec> {
  const p = getOwned(sim, caller, 'firewall_policies', id);
  if (fields.name !== undefined) checkName(sim, caller, fields.name, id);
  const doc = withAttrs({ ...p }, attrs);
  if (fields.name !== undefined) doc.name = fields.name;
  if (fields.description !== undefined) doc.description = fields.description;
  if (fields.labels !== undefined) doc.labels = fields.labels;
  if (fields.rules !== undefined) doc.rules = fields.rules.map(toRule);
  return { doc, changes: [{ op: 'put', coll: 'firewall_policies', doc }] };
}

export async function updateFirewallPolicy(sim: Sim, caller: Caller, id: string, body: UpdateFirewallPolicyRequest): Promise<FirewallPolicy> {
  const plan = planFirewallPolicyUpdate(sim, caller, id, { fields: body });
  await commitPlans(sim, [plan]);
  return toFirewallPolicy(plan.doc);
}

export async function setRules(sim: Sim, caller: Caller, id: string, rules: FirewallRuleInput[]): Promise<FirewallPolicy> {
  return save(sim, { ...getOwned(sim, caller, 'firewall_policies', id), rules: rules.map(toRule) });
}

export async function applyPolicy(sim: Sim, caller: Caller, id: string, groupId: string): Promise<FirewallPolicy> {
  const p = getOwned(sim, caller, 'firewall_policies', id);
  checkGroup(sim, caller, groupId, id);
  return save(sim, { ...p, server_group_id: groupId });
}

export async function removePolicy(sim: Sim, caller: Caller, id: string): Promise<FirewallPolicy> {
  return save(sim, { ...getOwned(sim, caller, 'firewall_policies', id), server_group_id: null });
}

/** deleteFirewallPolicy's check and change, not yet committed (see Plan). */
export function planFirewallPolicyDelete(sim: Sim, caller: Caller, id: string): Plan<FirewallPolicyRec> {
  const doc = getOwned(sim, caller, 'firewall_policies', id);
  return { doc, changes: [{ op: 'del', coll: 'firewall_policies', id }] };
}

export async function deleteFirewallPolicy(sim: Sim, caller: Caller, id: string): Promise<void> {
  await commitPlans(sim, [planFirewallPolicyDelete(sim, caller, id)]);
}
