/**
 * Brightbox persona: server groups (membership through add_servers and remove_servers), firewall policies (applied
 * to a server group at creation) and firewall rules, over simcloud's server groups and firewall policies. A
 * Brightbox rule is kept as given on its policy (attrs.ts) and becomes simcloud rules, one per destination port
 * entry, which is what simcloud's data plane acts on.
 */
import { z } from 'zod';
import { Cidr, Name } from '../../api/schema/common.ts';
import { PortRange, type FirewallRuleInput } from '../../api/schema/firewall-policies.ts';
import type { ServerGroup as SimServerGroup } from '../../api/schema/server-groups.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { nowIso } from '../../server/context.ts';
import { commitPlans, findOwned, ownedRecords } from '../../server/resources/common.ts';
import * as fw from '../../server/resources/firewall-policies/service.ts';
import * as groups from '../../server/resources/server-groups/service.ts';
import type { FirewallPolicyRec, ServerGroupRec } from '../../server/store/state.ts';
import { policyAttrsOf, type BbPolicyAttrs, type BbRule } from './attrs.ts';
import { API, bbTime, IdParams, NAME, numberOfBbId, ownedBy, simIdOf } from './common.ts';
import { FirewallPolicy, FirewallRule, ServerGroup } from './responses.ts';
import { groupView, policyView, ruleView } from './views.ts';

/** A group as a write committed it (the service's answer), for answers that must not read it back. */
const committedGroup = (caller: Caller, { firewall_policy_id: _p, ...g }: SimServerGroup): ServerGroupRec => ({ ...g, project_id: caller.projectId });

const groupOut = (sim: Sim, caller: Caller, g: ServerGroupRec): ServerGroup =>
  groupView(
    g,
    ownedRecords(sim, caller, 'servers'),
    ownedRecords(sim, caller, 'firewall_policies').find((p) => p.server_group_id === g.id),
  );
const policyOut = (sim: Sim, caller: Caller, p: FirewallPolicyRec): FirewallPolicy =>
  policyView(p, p.server_group_id === null ? undefined : findOwned(sim, caller, 'server_groups', p.server_group_id));

// Names are simcloud names (free text on Brightbox): a name /v1 cannot show would make its list answer 500.
const GroupBody = z.strictObject({ name: Name, description: z.string().max(255).optional() });
const Members = z.strictObject({
  servers: z
    .array(z.strictObject({ server: z.string().min(1).max(64) }))
    .min(1)
    .max(256),
});

const memberIds = (sim: Sim, caller: Caller, body: z.infer<typeof Members>): string[] =>
  body.servers.map((m, i) => ownedBy(sim, caller, 'servers', { id: m.server, field: `servers.${i}.server` }).id);

/** Destroying a group takes its firewall policy off it first, as Brightbox does (simcloud refuses a group with a policy). */
async function destroyGroup(sim: Sim, caller: Caller, g: ServerGroupRec): Promise<void> {
  const policy = ownedRecords(sim, caller, 'firewall_policies').find((p) => p.server_group_id === g.id);
  if (policy !== undefined) await fw.removePolicy(sim, caller, policy.id);
  await groups.deleteServerGroup(sim, caller, g.id);
}

const groupRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${API}/server_groups`,
    operation: 'brightbox.server_groups.list',
    summary: 'List server groups',
    response: z.array(ServerGroup),
    handle: (sim, { caller }) => ownedRecords(sim, caller, 'server_groups').map((g) => groupOut(sim, caller, g)),
  }),
  defineRoute({
    method: 'post',
    path: `${API}/server_groups`,
    operation: 'brightbox.server_groups.create',
    summary: 'Create a server group',
    body: GroupBody,
    response: ServerGroup,
    status: 202,
    handle: async (sim, { caller, body }) => {
      const g = await groups.createServerGroup(sim, caller, { name: body.name, ...(body.description === undefined ? {} : { description: body.description }) });
      return groupOut(sim, caller, committedGroup(caller, g));
    },
  }),
  defineRoute({
    method: 'get',
    path: `${API}/server_groups/:id`,
    operation: 'brightbox.server_groups.get',
    summary: 'Get a server group',
    params: IdParams,
    response: ServerGroup,
    handle: (sim, { caller, params }) => groupOut(sim, caller, ownedBy(sim, caller, 'server_groups', params.id)),
  }),
  defineRoute({
    method: 'post',
    path: `${API}/server_groups/:id/add_servers`,
    operation: 'brightbox.server_groups.add_servers',
    summary: 'Add servers to a group',
    params: IdParams,
    body: Members,
    response: ServerGroup,
    status: 202,
    handle: async (sim, { caller, params, body }) => {
      const g = ownedBy(sim, caller, 'server_groups', params.id);
      return groupOut(sim, caller, committedGroup(caller, await groups.addServerGroupServers(sim, caller, g.id, memberIds(sim, caller, body))));
    },
  }),
  defineRoute({
    method: 'post',
    path: `${API}/server_groups/:id/remove_servers`,
    operation: 'brightbox.server_groups.remove_servers',
    summary: 'Remove servers from a group',
    params: IdParams,
    body: Members,
    response: ServerGroup,
    status: 202,
    handle: async (sim, { caller, params, body }) => {
      const g = ownedBy(sim, caller, 'server_groups', params.id);
      const ids = body.servers.map((m) => simIdOf('srv', m.server));
      return groupOut(sim, caller, committedGroup(caller, await groups.removeServerGroupServers(sim, caller, g.id, ids)));
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${API}/server_groups/:id`,
    operation: 'brightbox.server_groups.delete',
    summary: 'Destroy a server group',
    params: IdParams,
    response: ServerGroup,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const g = ownedBy(sim, caller, 'server_groups', params.id);
      const out = groupOut(sim, caller, g);
      await destroyGroup(sim, caller, g);
      return { ...out, firewall_policy: null };
    },
  }),
];

const PolicyBody = z.strictObject({
  name: Name,
  description: z.string().max(255).optional(),
  server_group: z.string().min(1).max(64).optional(),
});

const CIDR = /^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/;
const asCidr = (v: string): string => (v.includes('/') ? v : `${v}/32`);
/** A source or destination: an address or CIDR (a valid one: simcloud's rule keeps it), or anything else Brightbox names. */
const Endpoint = z
  .string()
  .max(64)
  .refine((v) => !CIDR.test(v) || Cidr.safeParse(asCidr(v)).success, 'must be a valid IPv4 address or CIDR')
  .nullish();
const RuleFields = {
  protocol: z.string().max(16).nullish(),
  source: Endpoint,
  source_port: z.string().max(255).nullish(),
  destination: Endpoint,
  // Each comma-separated entry becomes a simcloud rule's ports, so each is a port or a range.
  destination_port: z
    .string()
    .max(255)
    .refine((v) => v === '' || v.split(',').every((p) => PortRange.safeParse(p.trim()).success), 'must be ports or ranges like 80,8000-9000')
    .nullish(),
  icmp_type_name: z.string().max(64).nullish(),
  description: z.string().max(255).nullish(),
};
const RuleBody = z.strictObject({ firewall_policy: z.string().min(1).max(64), ...RuleFields });
const RuleUpdate = z.strictObject({ firewall_policy: z.string().min(1).max(64).optional(), ...RuleFields });
type RuleFields = Omit<z.infer<typeof RuleUpdate>, 'firewall_policy'>;

const PROTOCOLS: Readonly<Record<string, FirewallRuleInput['protocol']>> = { tcp: 'tcp', udp: 'udp', icmp: 'icmp' };
const cidrsOf = (v: string | null): string[] => (v !== null && CIDR.test(v) ? [asCidr(v)] : []);

/** simcloud's rules for one Brightbox rule: inbound when it names a source, one rule per destination port entry. */
function simRules(r: BbRule): FirewallRuleInput[] {
  const direction = r.source !== null || r.destination === null ? 'inbound' : 'outbound';
  const protocol = PROTOCOLS[r.protocol ?? ''] ?? 'any';
  const ports =
    r.destination_port === null || r.destination_port === '' || protocol === 'icmp' || protocol === 'any'
      ? [null]
      : r.destination_port.split(',').map((p) => p.trim());
  const base = { direction, protocol, source_cidrs: cidrsOf(r.source), destination_cidrs: cidrsOf(r.destination), description: r.description ?? '' } as const;
  return ports.map((p) => ({ ...base, ports: p }));
}

function bbRule(n: number, body: RuleFields, created: string): BbRule {
  const v = (x: string | null | undefined): string | null => x ?? null;
  return {
    n,
    source: v(body.source),
    source_port: v(body.source_port),
    destination: v(body.destination),
    destination_port: v(body.destination_port),
    protocol: v(body.protocol),
    icmp_type_name: v(body.icmp_type_name),
    description: v(body.description),
    created_at: created,
  };
}

/** The policy's rules replaced by `rules` (Brightbox's on the slice, simcloud's derived), in one commit; the policy as committed. */
async function saveRules(sim: Sim, caller: Caller, p: FirewallPolicyRec, slice: BbPolicyAttrs): Promise<FirewallPolicyRec> {
  const fields = { rules: slice.rules.flatMap(simRules) };
  const plan = fw.planFirewallPolicyUpdate(sim, caller, p.id, { fields, attrs: { [NAME]: slice } });
  await commitPlans(sim, [plan]);
  return plan.doc;
}

/** The policy and rule serial behind a rule id (`fwr-` + five digits of the policy + the serial). */
function ruleOf(sim: Sim, caller: Caller, id: string): { p: FirewallPolicyRec; slice: BbPolicyAttrs; index: number } {
  const m = /^fwr-([0-9a-z]{5})([0-9a-z]+)$/.exec(id);
  const p = m === null ? undefined : findOwned(sim, caller, 'firewall_policies', simIdOf('fwp', `fwp-${m[1]}`));
  const slice = p === undefined ? undefined : policyAttrsOf(p);
  const index = slice === undefined ? -1 : slice.rules.findIndex((r) => r.n === parseInt(m![2]!, 36));
  if (p === undefined || slice === undefined || index < 0) throw notFound('firewall rule', id);
  return { p, slice, index };
}

/** Rule `n` of the policy as a write committed it. */
const ruleOut = (p: FirewallPolicyRec, n: number): FirewallRule =>
  ruleView(
    p,
    policyAttrsOf(p)!.rules.find((r) => r.n === n)!,
  );

const policyRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${API}/firewall_policies`,
    operation: 'brightbox.firewall_policies.list',
    summary: 'List firewall policies',
    response: z.array(FirewallPolicy),
    handle: (sim, { caller }) => ownedRecords(sim, caller, 'firewall_policies').map((p) => policyOut(sim, caller, p)),
  }),
  defineRoute({
    method: 'post',
    path: `${API}/firewall_policies`,
    operation: 'brightbox.firewall_policies.create',
    summary: 'Create a firewall policy, applied to a server group',
    body: PolicyBody,
    response: FirewallPolicy,
    status: 202,
    handle: async (sim, { caller, body }) => {
      const group = body.server_group === undefined ? undefined : ownedBy(sim, caller, 'server_groups', { id: body.server_group, field: 'server_group' });
      const plan = fw.planFirewallPolicyCreate(
        sim,
        caller,
        {
          name: body.name,
          ...(body.description === undefined ? {} : { description: body.description }),
          ...(group === undefined ? {} : { server_group_id: group.id }),
        },
        { dialect_attrs: { [NAME]: { rules: [], next: 1 } } },
      );
      await commitPlans(sim, [plan]);
      return policyOut(sim, caller, plan.doc);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${API}/firewall_policies/:id`,
    operation: 'brightbox.firewall_policies.get',
    summary: 'Get a firewall policy',
    params: IdParams,
    response: FirewallPolicy,
    handle: (sim, { caller, params }) => policyOut(sim, caller, ownedBy(sim, caller, 'firewall_policies', params.id)),
  }),
  defineRoute({
    method: 'delete',
    path: `${API}/firewall_policies/:id`,
    operation: 'brightbox.firewall_policies.delete',
    summary: 'Destroy a firewall policy',
    params: IdParams,
    response: FirewallPolicy,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const p = ownedBy(sim, caller, 'firewall_policies', params.id);
      const out = policyOut(sim, caller, p);
      await fw.deleteFirewallPolicy(sim, caller, p.id);
      return out;
    },
  }),
  defineRoute({
    method: 'post',
    path: `${API}/firewall_rules`,
    operation: 'brightbox.firewall_rules.create',
    summary: 'Create a firewall rule in a policy',
    body: RuleBody,
    response: FirewallRule,
    status: 202,
    handle: async (sim, { caller, body }) => {
      const p = ownedBy(sim, caller, 'firewall_policies', { id: body.firewall_policy, field: 'firewall_policy' });
      const slice = policyAttrsOf(p) ?? { rules: [], next: 1 };
      const { firewall_policy: _p, ...fields } = body;
      return ruleOut(
        await saveRules(sim, caller, p, { rules: [...slice.rules, bbRule(slice.next, fields, bbTime(nowIso(sim)))], next: slice.next + 1 }),
        slice.next,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: `${API}/firewall_rules/:id`,
    operation: 'brightbox.firewall_rules.get',
    summary: 'Get a firewall rule',
    params: IdParams,
    response: FirewallRule,
    handle: (sim, { caller, params }) => {
      const { p, slice, index } = ruleOf(sim, caller, params.id);
      return ruleView(p, slice.rules[index]!);
    },
  }),
  defineRoute({
    method: 'put',
    path: `${API}/firewall_rules/:id`,
    operation: 'brightbox.firewall_rules.update',
    summary: 'Update a firewall rule',
    params: IdParams,
    body: RuleUpdate,
    response: FirewallRule,
    status: 202,
    handle: async (sim, { caller, params, body }) => {
      const { p, slice, index } = ruleOf(sim, caller, params.id);
      const { firewall_policy: policy, ...fields } = body;
      if (policy !== undefined && numberOfBbId(policy) !== numberOfBbId(`fwp-${params.id.slice(4, 9)}`))
        throw invalidField('firewall_policy', 'a rule cannot move to another policy');
      const old = slice.rules[index]!;
      const rules = slice.rules.map((r, i) => (i === index ? bbRule(old.n, { ...old, ...fields }, old.created_at) : r));
      return ruleOut(await saveRules(sim, caller, p, { ...slice, rules }), old.n);
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${API}/firewall_rules/:id`,
    operation: 'brightbox.firewall_rules.delete',
    summary: 'Destroy a firewall rule',
    params: IdParams,
    response: FirewallRule,
    status: 202,
    handle: async (sim, { caller, params }) => {
      const { p, slice, index } = ruleOf(sim, caller, params.id);
      const out = ruleView(p, slice.rules[index]!);
      await saveRules(sim, caller, p, { ...slice, rules: slice.rules.filter((_r, i) => i !== index) });
      return out;
    },
  }),
];

export const groupAndPolicyRoutes: RouteDef[] = [...groupRoutes, ...policyRoutes];
