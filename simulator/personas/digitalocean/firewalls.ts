/**
 * DigitalOcean persona: firewalls (list, create, get, update by PUT of the whole object, delete), as the
 * DigitalOcean CCM's firewall controller keeps its public-access firewall, over simcloud's firewall
 * policies. Each inbound or outbound rule is one simcloud rule (protocol, ports, IPv4 addresses); a load
 * balancer named in `load_balancer_uids` (the CCM opens kube-proxy's health port to a REGIONAL_NETWORK load
 * balancer that way) adds its VIP to the rule's addresses. Its IPv6 addresses and load balancer UUIDs (kept
 * so that the CCM, which compares addresses and load balancer UUIDs, sees its firewall as written) and the
 * droplets and tags it applies to are kept in `dialect_attrs.digitalocean`, not enforced.
 */
import { z } from 'zod';
import type { FirewallRule, FirewallRuleInput } from '../../api/schema/firewall-policies.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { commitPlans, findOwned, ownedRecords } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/firewall-policies/service.ts';
import type { FirewallPolicyRec } from '../../server/store/state.ts';
import { numericIdOf, simcloudId } from '../numeric-ids.ts';
import { firewallAttrs, type DoFirewallAttrs, type DoRuleLbs } from './attrs.ts';
import { NAME, UuidParams, ListQuery, PREFIX, doTime, labelsOf, numberOfUuid, ownedDroplet, pageOf, uuidOf, visible } from './common.ts';
import { Firewall, NoContent, list, one, type RuleBase } from './responses.ts';
import { digitaloceanAddresses } from './addresses.ts';

const Targets = z.strictObject({
  addresses: z.array(z.string().max(64)).max(64).optional(),
  tags: z.array(z.string().max(255)).max(16).optional(),
  droplet_ids: z.array(z.number().int()).max(16).optional(),
  load_balancer_uids: z.array(z.string().max(64)).max(16).optional(),
  kubernetes_ids: z.array(z.string().max(64)).max(16).optional(),
});
type Targets = z.infer<typeof Targets>;
const Protocol = z.enum(['tcp', 'udp', 'icmp']);
const Ports = z
  .string()
  .regex(/^(all|0|\d{1,5}(-\d{1,5})?)$/, 'must be a port, a range like 8000-9000, or all')
  .optional();
const Action = z.enum(['allow']).optional();
const Inbound = z.strictObject({ protocol: Protocol, ports: Ports, sources: Targets.nullish(), action: Action });
const Outbound = z.strictObject({ protocol: Protocol, ports: Ports, destinations: Targets.nullish(), action: Action });

const FirewallBody = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be letters, digits, dots, dashes or underscores'),
  inbound_rules: z.array(Inbound).max(50).nullish(),
  outbound_rules: z.array(Outbound).max(50).nullish(),
  droplet_ids: z.array(z.number().int().min(1)).max(10).nullish(),
  tags: z.array(z.string().max(255)).max(5).nullish(),
});
type FirewallBody = z.infer<typeof FirewallBody>;

interface Split {
  v4: string[];
  v6: string[];
  /** Load balancer UUIDs and the VIPs they add to `v4`. */
  lbs: Omit<DoRuleLbs, 'key'>;
}

/** The VIP of the caller's load balancer `uuid` as a /32, else a 422 naming `field`. */
function vipOf(sim: Sim, caller: Caller, uuid: string, field: string): string {
  const n = numberOfUuid(uuid);
  const lb = n === null ? undefined : findOwned(sim, caller, 'load_balancers', simcloudId('lb', n));
  if (lb === undefined || !visible(lb)) throw invalidField(field, `no load balancer ${uuid}`);
  return `${lb.public_ipv4}/32`;
}

/** The rule's addresses, IPv4 as CIDRs and IPv6 as given, and its load balancers; tags, droplets and clusters are refused. */
function split(sim: Sim, caller: Caller, t: Targets | null | undefined, field: string): Split {
  for (const k of ['tags', 'droplet_ids', 'kubernetes_ids'] as const) {
    if ((t?.[k] ?? []).length > 0) throw invalidField(`${field}.${k}`, 'only addresses and load balancers are emulated as rule sources and destinations');
  }
  const all = t?.addresses ?? [];
  const back = digitaloceanAddresses(sim).back;
  const v4 = all.filter((a) => !a.includes(':')).map((a) => back.cidr(a.includes('/') ? a : `${a}/32`));
  const uids = t?.load_balancer_uids ?? [];
  const cidrs = [...new Set(uids.map((u, i) => vipOf(sim, caller, u, `${field}.load_balancer_uids.${i}`)))].filter((c) => !v4.includes(c));
  return { v4: [...v4, ...cidrs], v6: all.filter((a) => a.includes(':')), lbs: { load_balancer_uids: uids, cidrs } };
}

/** DigitalOcean answers "0" for all ports, however the request said it. */
const ports = (p: string | undefined): string | null => (p === undefined || p === 'all' || p === '0' ? null : p);
const keyOf = (r: Pick<FirewallRule, 'direction' | 'protocol' | 'ports'>): string => `${r.direction} ${r.protocol} ${r.ports ?? '0'}`;

interface Parsed {
  rules: FirewallRuleInput[];
  ipv6: Record<string, string[]>;
  load_balancers: Record<string, DoRuleLbs>;
}

function parseRules(sim: Sim, caller: Caller, b: FirewallBody): Parsed {
  const out: Parsed = { rules: [], ipv6: {}, load_balancers: {} };
  const add = (rule: FirewallRuleInput, { v6, lbs }: Split): void => {
    const key = keyOf({ ...rule, ports: rule.ports ?? null });
    if (lbs.load_balancer_uids.length > 0) out.load_balancers[String(out.rules.length)] = { key, ...lbs };
    out.rules.push(rule);
    if (v6.length > 0) out.ipv6[key] = v6;
  };
  (b.inbound_rules ?? []).forEach((r, i) => {
    const s = split(sim, caller, r.sources, `inbound_rules.${i}.sources`);
    add({ direction: 'inbound', protocol: r.protocol, ports: ports(r.ports), source_cidrs: s.v4 }, s);
  });
  (b.outbound_rules ?? []).forEach((r, i) => {
    const s = split(sim, caller, r.destinations, `outbound_rules.${i}.destinations`);
    add({ direction: 'outbound', protocol: r.protocol, ports: ports(r.ports), destination_cidrs: s.v4 }, s);
  });
  return out;
}

function attrs(sim: Sim, caller: Caller, b: FirewallBody, { ipv6, load_balancers }: Pick<Parsed, 'ipv6' | 'load_balancers'>): DoFirewallAttrs {
  (b.droplet_ids ?? []).forEach((n, i) => ownedDroplet(sim, caller, n, `droplet_ids.${i}`));
  labelsOf(b.tags ?? []);
  return { droplet_ids: b.droplet_ids ?? [], tags: b.tags ?? [], ipv6, load_balancers };
}

/** A rule's sources or destinations as written: its addresses (without the VIPs its load balancers added) and its load balancers. */
function targetsOf(r: FirewallRule, index: number, a: DoFirewallAttrs, show: (cidr: string) => string): { addresses: string[]; load_balancer_uids?: string[] } {
  const lbs = a.load_balancers?.[String(index)];
  const mine = lbs?.key === keyOf(r) ? lbs : undefined;
  const v4 = (r.direction === 'inbound' ? r.source_cidrs : r.destination_cidrs).filter((c) => !(mine?.cidrs ?? []).includes(c));
  const addresses = [...v4.map(show).map((c) => (c.endsWith('/32') ? c.slice(0, -3) : c)), ...(a.ipv6?.[keyOf(r)] ?? [])];
  return mine === undefined ? { addresses } : { addresses, load_balancer_uids: mine.load_balancer_uids };
}

export function firewallView(sim: Sim, p: FirewallPolicyRec): Firewall {
  const show = digitaloceanAddresses(sim).show.cidr;
  const a = firewallAttrs(p) ?? { droplet_ids: [], tags: [] };
  const carried = p.rules.flatMap((r, index) => (r.protocol === 'any' ? [] : [{ r, index, protocol: r.protocol }]));
  const rule = (r: FirewallRule, protocol: RuleBase['protocol']): RuleBase => ({ protocol, ports: protocol === 'icmp' ? '' : (r.ports ?? '0') });
  return {
    id: uuidOf(p.id),
    name: p.name,
    status: 'succeeded',
    created_at: doTime(p.created),
    pending_changes: [],
    droplet_ids: a.droplet_ids,
    tags: a.tags,
    inbound_rules: carried
      .filter(({ r }) => r.direction === 'inbound')
      .map(({ r, index, protocol }) => ({ ...rule(r, protocol), sources: targetsOf(r, index, a, show) })),
    outbound_rules: carried
      .filter(({ r }) => r.direction === 'outbound')
      .map(({ r, index, protocol }) => ({ ...rule(r, protocol), destinations: targetsOf(r, index, a, show) })),
  };
}

function ownedFirewall(sim: Sim, caller: Caller, uuid: string): FirewallPolicyRec {
  const n = numberOfUuid(uuid);
  const p = n === null ? undefined : findOwned(sim, caller, 'firewall_policies', simcloudId('fwp', n));
  if (p === undefined) throw notFound('firewall', uuid);
  return p;
}

async function create(sim: Sim, caller: Caller, b: FirewallBody): Promise<{ firewall: Firewall }> {
  const { rules, ...kept } = parseRules(sim, caller, b);
  const digitalocean = attrs(sim, caller, b, kept);
  const plan = svc.planFirewallPolicyCreate(sim, caller, { name: b.name, rules }, { dialect_attrs: { [NAME]: digitalocean } });
  await commitPlans(sim, [plan]);
  return { firewall: firewallView(sim, plan.doc) };
}

async function update(sim: Sim, caller: Caller, p: FirewallPolicyRec, b: FirewallBody): Promise<{ firewall: Firewall }> {
  const { rules, ...kept } = parseRules(sim, caller, b);
  const digitalocean = attrs(sim, caller, b, kept);
  // Name, rules and the DigitalOcean attributes in one commit: a crash keeps all of the PUT or none of it.
  const plan = svc.planFirewallPolicyUpdate(sim, caller, p.id, { fields: { name: b.name, rules }, attrs: { [NAME]: digitalocean } });
  await commitPlans(sim, [plan]);
  return { firewall: firewallView(sim, plan.doc) };
}

export const firewallRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/firewalls`,
    operation: 'digitalocean.firewalls.list',
    summary: 'List firewalls',
    query: ListQuery,
    response: list('firewalls', Firewall),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'firewall_policies').sort((a, b) => numericIdOf(a.id) - numericIdOf(b.id));
      return pageOf(
        { key: 'firewalls' },
        mine.map((p) => firewallView(sim, p)),
        query,
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/firewalls`,
    operation: 'digitalocean.firewalls.create',
    summary: 'Create a firewall',
    body: FirewallBody,
    status: 202,
    response: one('firewall', Firewall),
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/firewalls/:id`,
    operation: 'digitalocean.firewalls.get',
    summary: 'Get a firewall',
    params: UuidParams,
    response: one('firewall', Firewall),
    handle: (sim, { caller, params }) => ({ firewall: firewallView(sim, ownedFirewall(sim, caller, params.id)) }),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/firewalls/:id`,
    operation: 'digitalocean.firewalls.update',
    summary: 'Replace a firewall',
    params: UuidParams,
    body: FirewallBody,
    response: one('firewall', Firewall),
    handle: (sim, { caller, params, body }) => update(sim, caller, ownedFirewall(sim, caller, params.id), body),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/firewalls/:id`,
    operation: 'digitalocean.firewalls.delete',
    summary: 'Delete a firewall',
    params: UuidParams,
    status: 204,
    response: NoContent,
    handle: async (sim, { caller, params }) => {
      await svc.deleteFirewallPolicy(sim, caller, ownedFirewall(sim, caller, params.id).id);
    },
  }),
];
