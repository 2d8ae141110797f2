/**
 * Request bodies of DigitalOcean's load balancer calls, as godo sends them (every field omitted when empty).
 * A field outside this list is refused naming it (DigitalOcean ignores it), as is what simcloud cannot carry
 * (http3, deny rules: lb-model.ts); tags, project and VPC are accepted and have no effect.
 */
import { z } from 'zod';

const Port = z.number().int().min(1).max(65535);

/** A load balancer's type: REGIONAL proxies (simcloud's proxy forwarding), REGIONAL_NETWORK passes connections through. */
export const LbType = z.enum(['REGIONAL', 'REGIONAL_NETWORK']);
export type LbType = z.infer<typeof LbType>;
/** DUALSTACK gives the load balancer an IPv6 address too. */
export const NetworkStack = z.enum(['IPV4', 'DUALSTACK']);
export type NetworkStack = z.infer<typeof NetworkStack>;
export const RuleProtocol = z.enum(['http', 'https', 'http2', 'http3', 'tcp', 'udp']);

export const ForwardingRuleBody = z.strictObject({
  entry_protocol: RuleProtocol,
  entry_port: Port,
  target_protocol: RuleProtocol,
  target_port: Port,
  certificate_id: z.string().max(64).optional(),
  tls_passthrough: z.boolean().optional(),
});
export type ForwardingRuleBody = z.infer<typeof ForwardingRuleBody>;

export const HealthCheckBody = z.strictObject({
  protocol: z.enum(['tcp', 'http', 'https']).optional(),
  port: Port.optional(),
  path: z.string().max(255).optional(),
  check_interval_seconds: z.number().int().min(3).max(300).optional(),
  response_timeout_seconds: z.number().int().min(3).max(300).optional(),
  healthy_threshold: z.number().int().min(2).max(10).optional(),
  unhealthy_threshold: z.number().int().min(2).max(10).optional(),
  proxy_protocol: z.boolean().optional(),
});
export type HealthCheckBody = z.infer<typeof HealthCheckBody>;

const StickyBody = z.strictObject({
  type: z.enum(['none', 'cookies']).optional(),
  cookie_name: z.string().max(40).optional(),
  cookie_ttl_seconds: z.number().int().min(0).optional(),
});

const Rule = z.string().regex(/^(ip|cidr):\S+$/, 'must be ip:<address> or cidr:<range>');

/** POST and PUT (a PUT replaces the whole load balancer). */
export const LoadBalancerBody = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be letters, digits, dots and dashes')
    .optional(),
  algorithm: z.enum(['round_robin', 'least_connections']).optional(),
  region: z.string().min(1).max(63).optional(),
  size: z.string().max(32).optional(),
  size_unit: z.number().int().min(1).max(200).optional(),
  type: LbType.optional(),
  forwarding_rules: z.array(ForwardingRuleBody).max(32).optional(),
  health_check: HealthCheckBody.optional(),
  sticky_sessions: StickyBody.optional(),
  droplet_ids: z.array(z.number().int().min(1)).max(256).optional(),
  tag: z.string().min(1).max(255).optional(),
  redirect_http_to_https: z.boolean().optional(),
  enable_proxy_protocol: z.boolean().optional(),
  enable_backend_keepalive: z.boolean().optional(),
  http_idle_timeout_seconds: z.number().int().min(30).max(600).optional(),
  disable_lets_encrypt_dns_records: z.boolean().optional(),
  vpc_uuid: z.string().max(64).optional(),
  project_id: z.string().max(64).optional(),
  tags: z.array(z.string().max(255)).max(50).optional(),
  network: z.literal('EXTERNAL').optional(),
  network_stack: NetworkStack.optional(),
  tls_cipher_policy: z.enum(['DEFAULT', 'STRONG']).optional(),
  firewall: z.strictObject({ allow: z.array(Rule).max(64).optional(), deny: z.array(Rule).max(64).optional() }).optional(),
});
export type LoadBalancerBody = z.infer<typeof LoadBalancerBody>;

export const RulesBody = z.strictObject({ forwarding_rules: z.array(ForwardingRuleBody).min(1).max(32) });
export const DropletsBody = z.strictObject({ droplet_ids: z.array(z.number().int().min(1)).min(1).max(256) });
