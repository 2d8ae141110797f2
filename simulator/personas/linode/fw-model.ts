/**
 * A Linode firewall is a simcloud firewall policy: its ACCEPT rules are the policy's rules, one per port or
 * range, the rule's label as description (simcloud rules allow); its DROP rules (a deny list, as the Linode
 * CCM's ACL annotation builds under inbound_policy ACCEPT) and its policies and status live in
 * `dialect_attrs.linode`. A NodeBalancer device is enforced through the load balancer's source ranges, which
 * the data plane applies on the VIP: the addresses its inbound TCP rules and policy let in, rules read first
 * match first (ACCEPT rules, then DROP rules), so a deny list becomes every address outside it.
 */
import { z } from 'zod';
import type { FirewallRule, FirewallRuleInput } from '../../api/schema/firewall-policies.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { commitPlans, ownedRecords, type Plan } from '../../server/resources/common.ts';
import * as lbs from '../../server/resources/load-balancers/service.ts';
import type { FirewallPolicyRec, LoadBalancerRec } from '../../server/store/state.ts';
import { isIPv4, subtractCidrs } from '../../../lib/ip.ts';
import { numericIdOf } from '../numeric-ids.ts';
import type { Loopback, Presented } from './addresses.ts';
import { firewallAttrs, type LinodeDropRule, type LinodeFirewallAttrs } from './attrs.ts';
import { NAME } from './common.ts';
import { attrsOf } from './nb-model.ts';
import type { FirewallRules } from './responses.ts';

const Protocol = z.enum(['TCP', 'UDP', 'ICMP', 'IPENCAP']);
// Linode's limits, which its CCM splits an ACL by (services/firewalls.go): 255 addresses a rule, 25 rules a direction.
const MAX_ADDRESSES = 255;
const Addresses = z
  .object({ ipv4: z.array(z.string()).optional(), ipv6: z.array(z.string()).optional() })
  .refine((a) => (a.ipv4?.length ?? 0) + (a.ipv6?.length ?? 0) <= MAX_ADDRESSES, `at most ${MAX_ADDRESSES} addresses (ipv4 and ipv6 together) in a rule`);
const Rule = z.object({
  action: z.enum(['ACCEPT', 'DROP']),
  label: z.string().max(32).optional(),
  description: z.string().max(100).optional(),
  ports: z
    .string()
    .regex(/^\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/, 'must be ports or ranges separated by commas, like 80,443,8000-9000')
    .optional(),
  protocol: Protocol,
  addresses: Addresses.optional(),
});
type Rule = z.infer<typeof Rule>;
export const RulesBody = z.object({
  inbound: z.array(Rule).max(25).nullable().optional(),
  inbound_policy: z.enum(['ACCEPT', 'DROP']),
  outbound: z.array(Rule).max(25).nullable().optional(),
  outbound_policy: z.enum(['ACCEPT', 'DROP']),
});
export type RulesBody = z.infer<typeof RulesBody>;

const PROTOCOLS = { TCP: 'tcp', UDP: 'udp', ICMP: 'icmp', IPENCAP: 'any' } as const;
/** Linode's normalisation: a bare address is a /32, and a presented private one is taken back to loopback. */
const cidr = (a: string, back: Loopback): string => back.cidr(a.includes('/') ? a : `${a}/32`);
/** simcloud keeps at most this many CIDRs in a rule: a Linode rule's addresses become several simcloud rules. */
const SIM_CIDRS = 64;
const chunks = <T>(xs: readonly T[]): T[][] =>
  xs.length === 0 ? [[]] : Array.from({ length: Math.ceil(xs.length / SIM_CIDRS) }, (_, i) => xs.slice(i * SIM_CIDRS, (i + 1) * SIM_CIDRS));

type Direction = 'inbound' | 'outbound';

/** A rule's IPv4 addresses as loopback CIDRs, each checked (`at` is the rule's field path). */
function cidrsOf(r: Rule, at: string, back: Loopback): string[] {
  return (r.addresses?.ipv4 ?? []).map((a, k) => {
    if (!isIPv4(a.split('/')[0] ?? '')) throw invalidField(`${at}.addresses.ipv4.${k}`, `${a} is not an IPv4 address or range`);
    return cidr(a, back);
  });
}

/** Linode's rules must follow their ACCEPT rules with their DROP rules: the one order simcloud's rules and the attributes keep. */
function checkOrder(direction: Direction, rules: readonly Rule[]): void {
  const i = rules.findIndex((r, k) => r.action === 'ACCEPT' && rules.slice(0, k).some((x) => x.action === 'DROP'));
  if (i >= 0) throw invalidField(`rules.${direction}.${i}.action`, 'an ACCEPT rule after a DROP rule is not emulated: list the ACCEPT rules first');
}

function toDropRules(direction: Direction, rules: readonly Rule[], back: Loopback): LinodeDropRule[] {
  return rules.flatMap((r, i) =>
    r.action === 'DROP'
      ? [{ direction, label: r.label ?? '', protocol: r.protocol, ports: r.ports ?? '', cidrs: cidrsOf(r, `rules.${direction}.${i}`, back) }]
      : [],
  );
}

function toSimRules(direction: Direction, rules: readonly Rule[], back: Loopback): FirewallRuleInput[] {
  checkOrder(direction, rules);
  return rules.flatMap((r, i) => {
    if (r.action !== 'ACCEPT') return [];
    const all = cidrsOf(r, `rules.${direction}.${i}`, back);
    return chunks(all).flatMap((cidrs) => {
      const where = direction === 'inbound' ? { source_cidrs: cidrs } : { destination_cidrs: cidrs };
      return (r.ports?.split(',') ?? [null]).map((ports) => ({ direction, protocol: PROTOCOLS[r.protocol], ports, description: r.label ?? '', ...where }));
    });
  });
}

/** The simcloud rules and Linode attributes of a rules body (IPv6 addresses are dropped: the VIPs are IPv4). */
export function simRules(
  body: RulesBody,
  back: Loopback,
): { rules: FirewallRuleInput[]; policies: Pick<LinodeFirewallAttrs, 'inbound_policy' | 'outbound_policy' | 'drop_rules'> } {
  const inbound = body.inbound ?? [];
  const outbound = body.outbound ?? [];
  return {
    rules: [...toSimRules('inbound', inbound, back), ...toSimRules('outbound', outbound, back)],
    policies: {
      inbound_policy: body.inbound_policy,
      outbound_policy: body.outbound_policy,
      drop_rules: [...toDropRules('inbound', inbound, back), ...toDropRules('outbound', outbound, back)],
    },
  };
}

const LINODE_PROTOCOL: Record<FirewallRule['protocol'], FirewallRules['inbound'][number]['protocol']> = {
  tcp: 'TCP',
  udp: 'UDP',
  icmp: 'ICMP',
  any: 'IPENCAP',
};

/**
 * simcloud rules back as Linode rules: those of one label, protocol and addresses make one rule with their
 * ports; then those of one label, protocol and ports make one rule with their addresses (a Linode rule of
 * more than 64 addresses was stored as several; a Linode rule never holds more than 255).
 */
function linodeRules(rules: readonly FirewallRule[], direction: 'inbound' | 'outbound', shown: Presented): FirewallRules['inbound'] {
  const byCidrs = new Map<string, { rule: FirewallRule; cidrs: string[]; ports: string[] }>();
  for (const r of rules.filter((x) => x.direction === direction)) {
    const cidrs = direction === 'inbound' ? r.source_cidrs : r.destination_cidrs;
    const key = JSON.stringify([r.description, r.protocol, cidrs]);
    const g = byCidrs.get(key) ?? { rule: r, cidrs, ports: [] };
    if (r.ports !== null) g.ports.push(r.ports);
    byCidrs.set(key, g);
  }
  const merged: Array<{ rule: FirewallRule; cidrs: string[]; ports: string[] }> = [];
  const open = new Map<string, { rule: FirewallRule; cidrs: string[]; ports: string[] }>();
  for (const g of byCidrs.values()) {
    const key = JSON.stringify([g.rule.description, g.rule.protocol, g.ports]);
    const into = open.get(key);
    if (into !== undefined && into.cidrs.length + g.cidrs.length <= MAX_ADDRESSES) {
      into.cidrs.push(...g.cidrs);
      continue;
    }
    const fresh = { ...g, cidrs: [...g.cidrs] };
    open.set(key, fresh);
    merged.push(fresh);
  }
  return merged.map(({ rule, cidrs, ports }) => ({
    action: 'ACCEPT',
    label: rule.description,
    description: '',
    protocol: LINODE_PROTOCOL[rule.protocol],
    ports: ports.join(','),
    addresses: { ipv4: cidrs.map((c) => shown.cidr(c)), ipv6: [] },
  }));
}

export const fwAttrsOf = (p: FirewallPolicyRec): LinodeFirewallAttrs =>
  firewallAttrs(p) ?? { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', status: 'enabled' };

function dropRulesView(a: LinodeFirewallAttrs, direction: Direction, shown: Presented): FirewallRules['inbound'] {
  return (a.drop_rules ?? [])
    .filter((r) => r.direction === direction)
    .map((r) => ({
      action: 'DROP',
      label: r.label,
      description: '',
      protocol: r.protocol,
      ports: r.ports,
      addresses: { ipv4: r.cidrs.map((c) => shown.cidr(c)), ipv6: [] },
    }));
}

export function rulesView(p: FirewallPolicyRec, shown: Presented): FirewallRules {
  const a = fwAttrsOf(p);
  return {
    inbound: [...linodeRules(p.rules, 'inbound', shown), ...dropRulesView(a, 'inbound', shown)],
    inbound_policy: a.inbound_policy,
    outbound: [...linodeRules(p.rules, 'outbound', shown), ...dropRulesView(a, 'outbound', shown)],
    outbound_policy: a.outbound_policy,
    version: 1,
    fingerprint: '',
  };
}

const ALL = '0.0.0.0/0';

/**
 * The VIP's allowed sources under this firewall ([] is simcloud's "all"): nothing filtered when disabled; else
 * the inbound TCP rules first match first, ACCEPT rules before DROP rules, then the policy.
 */
function allowedSources(p: FirewallPolicyRec): string[] {
  const a = fwAttrsOf(p);
  if (a.status === 'disabled') return [];
  const accepted = [
    ...new Set(p.rules.filter((r) => r.direction === 'inbound' && (r.protocol === 'tcp' || r.protocol === 'any')).flatMap((r) => r.source_cidrs)),
  ];
  const dropped = (a.drop_rules ?? []).filter((r) => r.direction === 'inbound' && (r.protocol === 'TCP' || r.protocol === 'IPENCAP')).flatMap((r) => r.cidrs);
  const refused = subtractCidrs(dropped, accepted);
  if (a.inbound_policy === 'ACCEPT' && refused.length === 0) return [];
  const allowed = a.inbound_policy === 'DROP' ? accepted : subtractCidrs([ALL], refused);
  // Empty source ranges mean "allow all" to simcloud; 0.0.0.0/32 is no client's address, so nothing passes.
  return allowed.length === 0 ? ['0.0.0.0/32'] : allowed;
}

/** The NodeBalancers (LBs) a firewall is attached to. */
export function devicesOf(sim: Sim, p: FirewallPolicyRec): LoadBalancerRec[] {
  const n = numericIdOf(p.id);
  return ownedRecords(sim, { projectId: p.project_id }, 'load_balancers').filter((lb) => lb.status !== 'deleting' && attrsOf(lb).firewall_id === n);
}

/** An LB's firewall (null: none) and the source ranges that follow from it, to commit with the rest of an operation. */
export function planFirewall(sim: Sim, caller: Caller, lb: LoadBalancerRec, p: FirewallPolicyRec | null): Plan<LoadBalancerRec> {
  const linode = { ...attrsOf(lb), firewall_id: p === null ? null : numericIdOf(p.id) };
  return lbs.planLoadBalancerUpdate(sim, caller, lb.id, { fields: { source_ranges: p === null ? [] : allowedSources(p) }, attrs: { [NAME]: linode } });
}

/** What a firewall given to a new NodeBalancer sets in its create's one commit: the source ranges and the firewall's id. */
export function guardedBy(p: FirewallPolicyRec | undefined): { fields: { source_ranges?: string[] }; attrs: { firewall_id?: number } } {
  return p === undefined ? { fields: {}, attrs: {} } : { fields: { source_ranges: allowedSources(p) }, attrs: { firewall_id: numericIdOf(p.id) } };
}

/** Sets an LB's firewall (null: none) and the source ranges that follow from it, in one commit. */
export async function setFirewall(sim: Sim, caller: Caller, lb: LoadBalancerRec, p: FirewallPolicyRec | null): Promise<LoadBalancerRec> {
  const plan = planFirewall(sim, caller, lb, p);
  await commitPlans(sim, [plan]);
  return plan.doc;
}

/** Commits a changed firewall with its NodeBalancers' source ranges, which follow from it, at once. */
export async function saveWithDevices(sim: Sim, caller: Caller, plan: Plan<FirewallPolicyRec>): Promise<FirewallPolicyRec> {
  await commitPlans(sim, [plan, ...devicesOf(sim, plan.doc).map((lb) => planFirewall(sim, caller, lb, plan.doc))]);
  return plan.doc;
}
