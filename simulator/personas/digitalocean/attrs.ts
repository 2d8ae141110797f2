/**
 * The DigitalOcean persona's slice of simcloud's records (`dialect_attrs.digitalocean`): the settings of a
 * load balancer and a firewall that simcloud's own fields have no place for. Schemas and readers.
 */
import { z } from 'zod';
import { sliceReader } from '../attrs.ts';
import { NAME } from './common.ts';

const Int = z.number().int().min(0);

/** A DigitalOcean forwarding rule's settings beyond simcloud's service (keyed by its entry port). */
export const DoRuleAttrs = z.object({
  entry_port: Int,
  target_protocol: z.enum(['tcp', 'http', 'https', 'http2', 'udp']),
  tls_passthrough: z.boolean(),
  /** http2 when the rule asked for it (simcloud's service is https); absent: the service's protocol. */
  entry_protocol: z.literal('http2').optional(),
  /** Unused since the certificate is simcloud's service `certificate_id`; kept in records written before. */
  certificate_id: z.string().optional(),
});
export type DoRuleAttrs = z.infer<typeof DoRuleAttrs>;

/** A DigitalOcean load balancer's settings simcloud's record has no place for. */
export const DoLbAttrs = z.object({
  size_slug: z.string(),
  size_unit: Int,
  /** The tag its droplets are chosen by (its one label_selector target), else ''. */
  tag: z.string(),
  health_check_protocol: z.enum(['tcp', 'http', 'https']),
  healthy_threshold: Int,
  sticky_sessions: z.object({ type: z.enum(['none', 'cookies']), cookie_name: z.string(), cookie_ttl_seconds: Int }),
  redirect_http_to_https: z.boolean(),
  enable_backend_keepalive: z.boolean(),
  http_idle_timeout_seconds: Int,
  disable_lets_encrypt_dns_records: z.boolean(),
  rules: z.array(DoRuleAttrs),
  /** Fixed at creation; absent on records written before it was kept: IPV4. (The type is simcloud's `forwarding`.) */
  network_stack: z.enum(['IPV4', 'DUALSTACK']).optional(),
});
export type DoLbAttrs = z.infer<typeof DoLbAttrs>;

/**
 * Load balancers named as a rule's sources (or destinations): simcloud's rule carries each one's VIP (`cidrs`,
 * those the request did not also give as addresses), the persona shows them as `load_balancer_uids` again.
 */
export const DoRuleLbs = z.object({
  /** The rule's `direction protocol ports`, checked on read so that rules changed through /v1 are not misread. */
  key: z.string(),
  load_balancer_uids: z.array(z.string()),
  cidrs: z.array(z.string()),
});
export type DoRuleLbs = z.infer<typeof DoRuleLbs>;

/** What a DigitalOcean firewall applies to: droplets by number and by tag (kept, not enforced on servers). */
export const DoFirewallAttrs = z.object({
  droplet_ids: z.array(Int),
  tags: z.array(z.string()),
  /** IPv6 addresses of each rule, by `direction protocol ports`: simcloud's rules carry IPv4 only. */
  ipv6: z.record(z.string(), z.array(z.string())).optional(),
  /** Load balancer sources and destinations, by the rule's position in simcloud's rules. */
  load_balancers: z.record(z.string(), DoRuleLbs).optional(),
});
export type DoFirewallAttrs = z.infer<typeof DoFirewallAttrs>;

export const lbAttrs = sliceReader(NAME, DoLbAttrs);
export const firewallAttrs = sliceReader(NAME, DoFirewallAttrs);
