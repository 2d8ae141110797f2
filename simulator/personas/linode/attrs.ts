/**
 * The Linode persona's slice of simcloud's records (`dialect_attrs.linode`): a NodeBalancer's throttle,
 * firewall and its configs' settings, and a firewall's policies and status. Schemas and readers.
 */
import { z } from 'zod';
import { sliceReader } from '../attrs.ts';
import { NAME } from './common.ts';

const Int = z.number().int().min(0);

/**
 * A node's mode: what a request may set, and `none`, which Linode shows for a node of a udp config made
 * without a mode (its CCM sends none for udp backends); it serves like `accept`.
 */
export const NODE_MODES = ['accept', 'reject', 'drain', 'backup'] as const;
export const NodeMode = z.enum([...NODE_MODES, 'none']);

/**
 * A Linode NodeBalancer node: its backend `address` is `ip:port` (loopback), `presented` how the client gave
 * it (a private IPv4 or a VPC address, addresses.ts), which is how the node shows it back.
 */
export const LinodeNode = z.object({
  id: Int,
  address: z.string(),
  label: z.string(),
  weight: Int,
  mode: NodeMode,
  presented: z.enum(['private', 'vpc']).optional(),
});
export type LinodeNode = z.infer<typeof LinodeNode>;

/** A Linode NodeBalancer config's settings simcloud's service has no place for (keyed by its port). */
export const LinodeConfigAttrs = z.object({
  id: Int,
  port: Int,
  algorithm: z.enum(['roundrobin', 'leastconn', 'source', 'ring_hash']),
  stickiness: z.enum(['none', 'session', 'table', 'http_cookie', 'source_ip']),
  check: z.enum(['none', 'connection', 'http', 'http_body']),
  check_body: z.string(),
  check_passive: z.boolean(),
  cipher_suite: z.enum(['recommended', 'legacy', 'none']),
  /** A UDP config's health-check port (Linode's default 80); absent on configs stored before UDP was carried. */
  udp_check_port: z.number().int().min(1).max(65535).optional(),
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
  /** Its plan: what the CCM asked for, shown back (the data plane serves every plan alike). */
  type: z.enum(['common', 'premium', 'premium_40gb']).optional(),
  /** The VPC subnet of its backend address (the LB is on that subnet's network, with an address there). */
  backend_subnet_id: Int.optional(),
});
export type LinodeLbAttrs = z.infer<typeof LinodeLbAttrs>;

/**
 * A Linode DROP rule, which simcloud's rules (all of them allow rules) cannot hold: its label, protocol, ports
 * and its addresses as loopback CIDRs.
 */
export const LinodeDropRule = z.object({
  direction: z.enum(['inbound', 'outbound']),
  label: z.string(),
  protocol: z.enum(['TCP', 'UDP', 'ICMP', 'IPENCAP']),
  ports: z.string(),
  cidrs: z.array(z.string()),
});
export type LinodeDropRule = z.infer<typeof LinodeDropRule>;

/** A Linode firewall's policies, status and DROP rules (its ACCEPT rules are the firewall policy's own rules). */
export const LinodeFirewallAttrs = z.object({
  inbound_policy: z.enum(['ACCEPT', 'DROP']),
  outbound_policy: z.enum(['ACCEPT', 'DROP']),
  status: z.enum(['enabled', 'disabled']),
  drop_rules: z.array(LinodeDropRule).optional(),
});
export type LinodeFirewallAttrs = z.infer<typeof LinodeFirewallAttrs>;

export const lbAttrs = sliceReader(NAME, LinodeLbAttrs);
export const firewallAttrs = sliceReader(NAME, LinodeFirewallAttrs);
