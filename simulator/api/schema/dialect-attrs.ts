/**
 * Attributes a provider dialect keeps on simcloud's own records (simulator/personas): settings its API has
 * and simcloud's does not. They live on the record, so they persist, snapshot, travel in resource_change
 * events and vanish with it; simcloud's /v1 view leaves them out. For now: a Hetzner load balancer's type,
 * public interface, reverse DNS, each target's use_private_ip and each service's HTTP and health-check HTTP
 * settings; a Linode NodeBalancer's throttle, firewall and its configs' algorithm, stickiness, check type and
 * nodes; a Linode firewall's policies and status; a DigitalOcean load balancer's size,
 * tag, sticky sessions and forwarding rules' target settings and a DigitalOcean firewall's droplets and tags.
 */
import { z } from 'zod';

/** A Hetzner service's `http` object (also the request schema: every field optional). */
export const HcloudServiceHttp = z.strictObject({
  cookie_name: z.string().max(64).optional(),
  cookie_lifetime: z.number().int().min(1).optional(),
  certificates: z.array(z.number().int().min(1)).max(50).optional(),
  redirect_http: z.boolean().optional(),
  sticky_sessions: z.boolean().optional(),
  timeout_idle: z.number().int().min(1).max(3600).optional(),
});

const HealthHttp = z.object({
  domain: z.string().nullable(), path: z.string(), response: z.string().nullable(), status_codes: z.array(z.string()), tls: z.boolean(),
});

export const HcloudServiceAttrs = z.object({
  http: HcloudServiceHttp.nullable(),
  health_check_protocol: z.enum(['tcp', 'http', 'https']),
  health_check_http: HealthHttp.nullable(),
});
export type HcloudServiceAttrs = z.infer<typeof HcloudServiceAttrs>;

export const HcloudLbAttrs = z.object({
  load_balancer_type: z.string(),
  public_interface: z.boolean(),
  dns_ptr: z.string().nullable(),
  /** Target key (`server:42`, `label_selector:<selector>`, `ip:<address>`) -> use_private_ip. */
  use_private_ip: z.record(z.string(), z.boolean()),
  /** listen_port -> settings. */
  services: z.record(z.string(), HcloudServiceAttrs),
});
export type HcloudLbAttrs = z.infer<typeof HcloudLbAttrs>;

const Int = z.number().int().min(0);

/** A Linode NodeBalancer node: its backend `address` is `ip:port`. */
export const LinodeNode = z.object({
  id: Int, address: z.string(), label: z.string(), weight: Int, mode: z.enum(['accept', 'reject', 'drain', 'backup']),
});
export type LinodeNode = z.infer<typeof LinodeNode>;

/** A Linode NodeBalancer config's settings simcloud's service has no place for (keyed by its port). */
export const LinodeConfigAttrs = z.object({
  id: Int, port: Int,
  algorithm: z.enum(['roundrobin', 'leastconn', 'source', 'ring_hash']),
  stickiness: z.enum(['none', 'session', 'table', 'http_cookie', 'source_ip']),
  check: z.enum(['none', 'connection', 'http', 'http_body']),
  check_body: z.string(), check_passive: z.boolean(), cipher_suite: z.enum(['recommended', 'legacy', 'none']),
  nodes: z.array(LinodeNode),
});
export type LinodeConfigAttrs = z.infer<typeof LinodeConfigAttrs>;

export const LinodeLbAttrs = z.object({
  /** The next config or node id of this NodeBalancer (ids are unique within it). */
  next_id: Int,
  client_conn_throttle: Int,
  configs: z.array(LinodeConfigAttrs),
  /** The Linode firewall (a simcloud firewall policy's number) whose rules set this LB's source ranges. */
  firewall_id: Int.nullable().optional(),
});
export type LinodeLbAttrs = z.infer<typeof LinodeLbAttrs>;

/** A DigitalOcean forwarding rule's settings beyond simcloud's service (keyed by its entry port). */
export const DoRuleAttrs = z.object({
  entry_port: Int, target_protocol: z.enum(['tcp', 'http', 'https']), certificate_id: z.string(), tls_passthrough: z.boolean(),
});
export type DoRuleAttrs = z.infer<typeof DoRuleAttrs>;

/** A DigitalOcean load balancer's settings simcloud's record has no place for. */
export const DoLbAttrs = z.object({
  size_slug: z.string(), size_unit: Int,
  /** The tag its droplets are chosen by (its one label_selector target), else ''. */
  tag: z.string(),
  health_check_protocol: z.enum(['tcp', 'http', 'https']), healthy_threshold: Int,
  sticky_sessions: z.object({ type: z.enum(['none', 'cookies']), cookie_name: z.string(), cookie_ttl_seconds: Int }),
  redirect_http_to_https: z.boolean(), enable_backend_keepalive: z.boolean(), http_idle_timeout_seconds: Int,
  disable_lets_encrypt_dns_records: z.boolean(),
  rules: z.array(DoRuleAttrs),
});
export type DoLbAttrs = z.infer<typeof DoLbAttrs>;

/** `dialect_attrs` of a load balancer record: absent until a dialect sets its own. */
export const LoadBalancerDialectAttrs = z.object({ hcloud: HcloudLbAttrs.optional(), linode: LinodeLbAttrs.optional(), digitalocean: DoLbAttrs.optional() });

/** A Linode firewall's policies and status (its ACCEPT rules are the firewall policy's own rules). */
export const LinodeFirewallAttrs = z.object({
  inbound_policy: z.enum(['ACCEPT', 'DROP']),
  outbound_policy: z.enum(['ACCEPT', 'DROP']),
  status: z.enum(['enabled', 'disabled']),
});
export type LinodeFirewallAttrs = z.infer<typeof LinodeFirewallAttrs>;

/** What a DigitalOcean firewall applies to: droplets by number and by tag (kept, not enforced on servers). */
export const DoFirewallAttrs = z.object({
  droplet_ids: z.array(Int), tags: z.array(z.string()),
  /** IPv6 addresses of each rule, by `direction protocol ports`: simcloud's rules carry IPv4 only. */
  ipv6: z.record(z.string(), z.array(z.string())).optional(),
});
export type DoFirewallAttrs = z.infer<typeof DoFirewallAttrs>;

/** `dialect_attrs` of a firewall policy record. */
export const FirewallPolicyDialectAttrs = z.object({ linode: LinodeFirewallAttrs.optional(), digitalocean: DoFirewallAttrs.optional() });
