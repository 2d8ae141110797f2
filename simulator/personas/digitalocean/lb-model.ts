/**
 * A DigitalOcean load balancer is a simcloud load balancer. Each forwarding rule is a simcloud service on its
 * entry port (protocol, target port, PROXY protocol v1 when enable_proxy_protocol, the one health check: what
 * the data plane acts on); droplet_ids are server targets and `tag` one label_selector target; the firewall's
 * allow rules are the VIP's source ranges. The type is simcloud's forwarding mode: REGIONAL a proxy,
 * REGIONAL_NETWORK passthrough (the droplets serve the VIP's traffic on the target port themselves, as a
 * Kubernetes node does for a Service's ingress IP). An https or http2 rule with a certificate is an https service
 * terminating TLS with that stored certificate (`certificate_id`), one with tls_passthrough an https service
 * forwarded at TCP level; redirect_http_to_https makes the http rules answer 301 to the https one. What
 * simcloud has no place for (size, sticky sessions, target protocols, thresholds, keepalive, the network stack) is kept in the record's
 * `dialect_attrs.digitalocean`. Type and network stack are fixed at creation, as on DigitalOcean.
 */
import type { HealthCheck, LoadBalancerService, LoadBalancerTarget, UpdateLoadBalancerRequest } from '../../api/schema/load-balancers.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { commitPlans } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/load-balancers/service.ts';
import type { LoadBalancerRec } from '../../server/store/state.ts';
import { lbAttrs, type DoLbAttrs, type DoRuleAttrs } from './attrs.ts';
import { NAME, defined, dropletSid, ownedDroplet, selectorOf } from './common.ts';
import type { ForwardingRuleBody, HealthCheckBody, LbType, LoadBalancerBody, NetworkStack } from './lb-schemas.ts';
import { digitaloceanAddresses } from './addresses.ts';
import { findCertificate } from './certificates.ts';

type Carried = 'tcp' | 'http' | 'https' | 'udp';
const CARRIED: readonly string[] = ['tcp', 'http', 'https', 'udp'];

export const DEFAULT_ATTRS: DoLbAttrs = {
  size_slug: 'lb-small',
  size_unit: 1,
  tag: '',
  health_check_protocol: 'http',
  healthy_threshold: 5,
  sticky_sessions: { type: 'none', cookie_name: '', cookie_ttl_seconds: 0 },
  redirect_http_to_https: false,
  enable_backend_keepalive: false,
  http_idle_timeout_seconds: 60,
  disable_lets_encrypt_dns_records: false,
  rules: [],
  network_stack: 'IPV4',
};

export const attrsOf = (lb: LoadBalancerRec): DoLbAttrs => lbAttrs(lb) ?? DEFAULT_ATTRS;

/** What a load balancer is, fixed when it is created: its type and its network stack. */
export interface LbKind {
  type: LbType;
  network_stack: NetworkStack;
}

/** DigitalOcean's defaults when a create gives neither. */
const DEFAULT_KIND: LbKind = { type: 'REGIONAL', network_stack: 'IPV4' };

export const kindOf = (lb: LoadBalancerRec): LbKind => ({
  type: lb.forwarding === 'passthrough' ? 'REGIONAL_NETWORK' : 'REGIONAL',
  network_stack: attrsOf(lb).network_stack ?? 'IPV4',
});

/**
 * The kind a body asks for: on create, given or the defaults; on update the current one. An update may repeat
 * the type but not change it (422). A different network_stack on update is ignored and the created one kept:
 * DigitalOcean documents the stack as fixed at creation without saying how a change is answered, and its own
 * CCM (since v0.1.63) sends DUALSTACK on every update of a REGIONAL load balancer, including those that
 * earlier releases made IPV4, an upgrade DigitalOcean's managed clusters have run; a refusal would stop them all.
 */
function kind(b: LoadBalancerBody, current: LoadBalancerRec | undefined): LbKind {
  if (current === undefined) return { type: b.type ?? DEFAULT_KIND.type, network_stack: b.network_stack ?? DEFAULT_KIND.network_stack };
  const was = kindOf(current);
  if (b.type !== undefined && b.type !== was.type) throw invalidField('type', `cannot be changed after the load balancer is created (it is ${was.type})`);
  return was;
}

function carried(p: string, field: string): Carried {
  if (!CARRIED.includes(p)) throw invalidField(field, `${p} is not emulated: simcloud load balancers carry tcp, http, https and udp`);
  return p as Carried;
}

const HC_DEFAULTS = {
  protocol: 'http',
  port: 80,
  path: '/',
  check_interval_seconds: 10,
  response_timeout_seconds: 5,
  healthy_threshold: 5,
  unhealthy_threshold: 3,
} as const satisfies HealthCheckBody;

/** DigitalOcean's default health check (http on port 80, path /) with the given fields over it. */
function healthCheck(b: HealthCheckBody | undefined): { hc: HealthCheck; protocol: Exclude<Carried, 'udp'>; healthy: number } {
  const h = { ...HC_DEFAULTS, ...defined(b) };
  if (h.protocol !== 'tcp' && !h.path.startsWith('/')) throw invalidField('health_check.path', 'must start with /');
  return {
    protocol: h.protocol,
    healthy: h.healthy_threshold,
    hc: {
      protocol: h.protocol === 'tcp' ? 'tcp' : 'http',
      port: h.port,
      path: h.path.startsWith('/') ? h.path : '/',
      interval_seconds: h.check_interval_seconds,
      timeout_seconds: h.response_timeout_seconds,
      retries: h.unhealthy_threshold,
    },
  };
}

/** What every rule of one load balancer shares: the health check, the PROXY setting and the type. */
interface RuleContext {
  hc: HealthCheck;
  proxy: boolean;
  type: LbType;
}

/** What a rule's protocols may be: a network load balancer forwards TCP and UDP as they are; UDP goes to UDP only. */
function checkProtocols(r: ForwardingRuleBody, field: string, type: LbType): void {
  // A network load balancer forwards TCP and UDP, not HTTP (simcloud carries the TCP).
  if (type === 'REGIONAL_NETWORK' && r.entry_protocol !== r.target_protocol)
    throw invalidField(`${field}.target_protocol`, 'must equal entry_protocol on a REGIONAL_NETWORK load balancer');
  if (type === 'REGIONAL_NETWORK' && r.entry_protocol !== 'tcp' && r.entry_protocol !== 'udp') {
    throw invalidField(`${field}.entry_protocol`, `${r.entry_protocol} is not forwarded by a REGIONAL_NETWORK load balancer: tcp or udp`);
  }
  // UDP is forwarded as UDP only, and a UDP rule takes no PROXY header.
  if ((r.entry_protocol === 'udp') !== (r.target_protocol === 'udp'))
    throw invalidField(`${field}.target_protocol`, 'a udp rule forwards to udp, and only a udp rule does');
}

/**
 * The TLS of an https or http2 rule: terminated on the VIP with its certificate (the droplets get plain http), or
 * passed through to https droplets; one of the two, as DigitalOcean requires. Other rules take neither.
 */
function ruleTls({ sim, caller }: Asker, r: ForwardingRuleBody, field: string): { certificate_id: string | null } {
  const cert = r.certificate_id ?? '';
  const passthrough = r.tls_passthrough === true;
  if (r.entry_protocol !== 'https' && r.entry_protocol !== 'http2') {
    if (cert !== '' || passthrough) throw invalidField(`${field}.${cert !== '' ? 'certificate_id' : 'tls_passthrough'}`, 'only an https or http2 rule has TLS');
    return { certificate_id: null };
  }
  if (passthrough) {
    if (cert !== '') throw invalidField(`${field}.tls_passthrough`, 'give certificate_id or tls_passthrough, not both');
    if (r.target_protocol !== r.entry_protocol)
      throw invalidField(`${field}.target_protocol`, `must equal entry_protocol (${r.entry_protocol}) with tls_passthrough`);
    return { certificate_id: null };
  }
  return { certificate_id: terminating({ sim, caller }, r, field) };
}

/** The certificate a terminating https or http2 rule names (the caller's), its target plain http. */
function terminating({ sim, caller }: Asker, r: ForwardingRuleBody, field: string): string {
  const cert = r.certificate_id ?? '';
  if (cert === '')
    throw invalidField(`${field}.certificate_id`, `an ${r.entry_protocol} rule needs certificate_id (TLS terminated on the load balancer) or tls_passthrough`);
  const found = findCertificate(sim, caller, cert);
  if (found === null) throw invalidField(`${field}.certificate_id`, `no certificate ${cert}`);
  if (r.target_protocol !== 'http')
    throw invalidField(
      `${field}.target_protocol`,
      'http: simcloud terminates TLS on the VIP and forwards plain http (re-encrypting to the droplets is not emulated)',
    );
  return found.id;
}

/** Who asks: the certificates a rule names must be the caller's. */
interface Asker {
  sim: Sim;
  caller: Caller;
}

function service(asker: Asker, r: ForwardingRuleBody, i: number, { hc, proxy, type }: RuleContext): { service: LoadBalancerService; rule: DoRuleAttrs } {
  const field = `forwarding_rules.${i}`;
  checkProtocols(r, field, type);
  const udp = r.entry_protocol === 'udp';
  const { certificate_id } = ruleTls(asker, r, field);
  const http2 = r.entry_protocol === 'http2';
  return {
    service: {
      protocol: http2 ? 'https' : carried(r.entry_protocol, `${field}.entry_protocol`),
      listen_port: r.entry_port,
      destination_port: r.target_port,
      proxy_protocol: proxy && !udp ? 'v1' : 'none',
      health_check: hc,
      ...(certificate_id === null ? {} : { certificate_id }),
    },
    rule: {
      entry_port: r.entry_port,
      target_protocol: http2 ? (r.target_protocol === 'http' ? 'http' : 'http2') : carried(r.target_protocol, `${field}.target_protocol`),
      tls_passthrough: r.tls_passthrough ?? false,
      ...(http2 ? { entry_protocol: 'http2' as const } : {}),
    },
  };
}

/**
 * With redirect_http_to_https, every http rule answers a 301 to the first https (or http2) rule's port; without,
 * none does. Applied whenever the rules or the switch change, so the redirect follows the rules.
 */
export function withRedirects(services: readonly LoadBalancerService[], redirect: boolean): LoadBalancerService[] {
  const https = services.find((s) => s.protocol === 'https')?.listen_port;
  return services.map((s) => {
    if (s.protocol !== 'http') return s;
    const { redirect_https_port: _was, ...rest } = s;
    return redirect && https !== undefined ? { ...rest, redirect_https_port: https } : rest;
  });
}

function targets(sim: Sim, caller: Caller, b: LoadBalancerBody): LoadBalancerTarget[] {
  if (b.tag !== undefined && (b.droplet_ids ?? []).length > 0) throw invalidField('tag', 'droplet_ids and tag are mutually exclusive');
  if (b.tag !== undefined) return [{ kind: 'label_selector', label_selector: selectorOf(b.tag) }];
  return (b.droplet_ids ?? []).map((n, i) => ({ kind: 'server', server_id: ownedDroplet(sim, caller, n, `droplet_ids.${i}`).id }));
}

/** The firewall's allow list as CIDRs, a presented private address taken back to loopback (addresses.ts). */
function sourceRanges(sim: Sim, f: LoadBalancerBody['firewall']): string[] {
  if ((f?.deny ?? []).length > 0) throw invalidField('firewall.deny', 'deny rules are not emulated; list what to allow');
  const back = digitaloceanAddresses(sim).back;
  return (f?.allow ?? []).map((r) => back.cidr(r.startsWith('ip:') ? `${r.slice(3)}/32` : r.slice(5)));
}

export type SimFields = Required<Pick<UpdateLoadBalancerRequest, 'services' | 'targets' | 'algorithm' | 'source_ranges' | 'forwarding'>>;

/** A whole request body (a create, or a PUT replacing `current`) as simcloud's fields and the DigitalOcean attributes. */
export function fromBody(sim: Sim, caller: Caller, b: LoadBalancerBody, current?: LoadBalancerRec): { fields: SimFields; attrs: DoLbAttrs } {
  const { hc, protocol, healthy } = healthCheck(b.health_check);
  const { type, network_stack } = kind(b, current);
  const ports = new Set<number>();
  const made = (b.forwarding_rules ?? []).map((r, i) => {
    if (ports.has(r.entry_port)) throw invalidField(`forwarding_rules.${i}.entry_port`, `entry port ${r.entry_port} is used by another rule`);
    ports.add(r.entry_port);
    return service({ sim, caller }, r, i, { hc, proxy: b.enable_proxy_protocol ?? false, type });
  });
  const { size, size_unit, tag, redirect_http_to_https, enable_backend_keepalive, http_idle_timeout_seconds, disable_lets_encrypt_dns_records } = b;
  const given = defined({
    size_slug: size,
    size_unit,
    tag,
    redirect_http_to_https,
    enable_backend_keepalive,
    http_idle_timeout_seconds,
    disable_lets_encrypt_dns_records,
  });
  return {
    fields: {
      services: withRedirects(
        made.map((m) => m.service),
        b.redirect_http_to_https ?? false,
      ),
      targets: targets(sim, caller, b),
      algorithm: b.algorithm ?? 'round_robin',
      source_ranges: sourceRanges(sim, b.firewall),
      forwarding: type === 'REGIONAL_NETWORK' ? 'passthrough' : 'proxy',
    },
    attrs: {
      ...DEFAULT_ATTRS,
      ...given,
      network_stack,
      health_check_protocol: protocol,
      healthy_threshold: healthy,
      sticky_sessions: { ...DEFAULT_ATTRS.sticky_sessions, ...defined(b.sticky_sessions) },
      rules: made.map((m) => m.rule),
    },
  };
}

/** Commits simcloud's fields and the DigitalOcean attributes together through simcloud's LB service (its checks). */
export async function commit(
  sim: Sim,
  caller: Caller,
  lb: LoadBalancerRec,
  { fields, attrs }: { fields: UpdateLoadBalancerRequest; attrs: DoLbAttrs },
): Promise<LoadBalancerRec> {
  const services = fields.services === undefined ? undefined : withRedirects(fields.services, attrs.redirect_http_to_https);
  const plan = svc.planLoadBalancerUpdate(sim, caller, lb.id, { fields: { ...fields, services }, attrs: { [NAME]: attrs } });
  await commitPlans(sim, [plan]);
  return plan.doc;
}

/** The LB's rules with `add` added (an entry port already used is refused) and the health check and proxy setting it has. */
export function withRules(
  sim: Sim,
  caller: Caller,
  lb: LoadBalancerRec,
  add: readonly ForwardingRuleBody[],
): { services: LoadBalancerService[]; rules: DoRuleAttrs[] } {
  const first = lb.services[0];
  const hc = first?.health_check ?? healthCheck(undefined).hc;
  const made = add.map((r, i) => {
    if (lb.services.some((s) => s.listen_port === r.entry_port))
      throw invalidField(`forwarding_rules.${i}.entry_port`, `entry port ${r.entry_port} is already forwarded`);
    return service({ sim, caller }, r, i, { hc, proxy: first?.proxy_protocol === 'v1', type: kindOf(lb).type });
  });
  return { services: [...lb.services, ...made.map((m) => m.service)], rules: [...attrsOf(lb).rules, ...made.map((m) => m.rule)] };
}

/** The LB's server targets with droplets `ids` added or removed; a tag-based LB takes no droplet ids. */
export function withDroplets(sim: Sim, caller: Caller, lb: LoadBalancerRec, { ids, add }: { ids: readonly number[]; add: boolean }): LoadBalancerTarget[] {
  if (attrsOf(lb).tag !== '') throw invalidField('droplet_ids', 'this load balancer selects its droplets by tag');
  const sids = ids.map((n, i) => (add ? ownedDroplet(sim, caller, n, `droplet_ids.${i}`).id : dropletSid(n)));
  const kept = lb.targets.filter((t) => t.kind !== 'server' || !sids.includes(t.server_id));
  return add ? [...kept, ...sids.map((id) => ({ kind: 'server' as const, server_id: id }))] : kept;
}
