/** Request bodies of the Linode NodeBalancer endpoints (the fields linodego sends; unknown fields rejected). */
import { z } from 'zod';
import { Ipv4 } from '../../api/schema/common.ts';
import { NODE_MODES } from './attrs.ts';

const Label = z
  .string()
  .min(3)
  .max(32)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be 3-32 letters, digits, dots, dashes or underscores');
const Tags = z.array(z.string().min(1).max(50)).max(50);
/** The IP becomes a simcloud LB target's, which /v1 shows: a valid IPv4 address and port, not only their shape. */
const Address = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/, 'must be an IPv4 address and a port, like 192.168.1.5:30080')
  .refine((a) => {
    const colon = a.lastIndexOf(':');
    const port = Number(a.slice(colon + 1));
    return Ipv4.safeParse(a.slice(0, colon)).success && port >= 1 && port <= 65535;
  }, 'must be an IPv4 address and a port, like 192.168.1.5:30080');

export const NodeBody = z.strictObject({
  address: Address,
  label: z.string().min(3).max(32),
  weight: z.number().int().min(1).max(255).optional(),
  mode: z.enum(NODE_MODES).optional(),
  subnet_id: z.number().int().optional(),
});
export type NodeBody = z.infer<typeof NodeBody>;
export const NodeUpdateBody = NodeBody.partial();
export const RebuildNode = NodeBody.extend({ id: z.number().int().min(1).optional() });

export const ConfigFields = {
  port: z.number().int().min(1).max(65535),
  protocol: z.enum(['http', 'https', 'tcp', 'udp']).optional(),
  proxy_protocol: z.enum(['none', 'v1', 'v2']).optional(),
  algorithm: z.enum(['roundrobin', 'leastconn', 'source', 'ring_hash']).optional(),
  stickiness: z.enum(['none', 'session', 'table', 'http_cookie', 'source_ip']).optional(),
  check: z.enum(['none', 'connection', 'http', 'http_body']).optional(),
  check_interval: z.number().int().min(2).max(3600).optional(),
  check_attempts: z.number().int().min(1).max(30).optional(),
  check_path: z.string().max(255).optional(),
  check_body: z.string().max(255).optional(),
  check_passive: z.boolean().optional(),
  check_timeout: z.number().int().min(1).max(30).optional(),
  udp_check_port: z.number().int().min(1).max(65535).optional(),
  cipher_suite: z.enum(['recommended', 'legacy', 'none']).optional(),
  ssl_cert: z.string().optional(),
  ssl_key: z.string().optional(),
};

export const ConfigBody = z.strictObject({ ...ConfigFields, nodes: z.array(NodeBody).max(256).optional() });
export type ConfigBody = z.infer<typeof ConfigBody>;
export const ConfigUpdateBody = z.strictObject({ ...ConfigFields, port: ConfigFields.port.optional() });
export type ConfigUpdateBody = z.infer<typeof ConfigUpdateBody>;
export const RebuildBody = z.strictObject({ ...ConfigFields, nodes: z.array(RebuildNode).max(256) });
export type RebuildBody = z.infer<typeof RebuildBody>;

const BackendVPC = z.strictObject({
  subnet_id: z.number().int(),
  ipv4_range: z.string().optional(),
  ipv6_range: z.string().optional(),
  ipv4_range_auto_assign: z.boolean().optional(),
});

export const CreateNodeBalancerBody = z.strictObject({
  label: Label.optional(),
  region: z.string().min(1).max(63),
  client_conn_throttle: z.number().int().min(0).max(20).optional(),
  client_udp_sess_throttle: z.number().int().min(0).max(20).optional(),
  configs: z.array(ConfigBody).max(32).optional(),
  tags: Tags.nullable().optional(),
  firewall_id: z.number().int().optional(),
  type: z.enum(['common', 'premium', 'premium_40gb']).optional(),
  /** `vpcs` is the older name of `backend_vpcs` (Linode's /v4beta still takes it; the e2e scripts send it). */
  vpcs: z.array(BackendVPC).max(1).optional(),
  /** Sent by Linode's CCM in VPC mode: the subnet its backends are in (nodes then give their VPC addresses). */
  backend_vpcs: z.array(BackendVPC).max(1).optional(),
  frontend_vpcs: z.array(z.unknown()).max(0, 'a VPC frontend is not emulated: the VIP is public').optional(),
  ipv4: z.string().optional(),
});
export type CreateNodeBalancerBody = z.infer<typeof CreateNodeBalancerBody>;

export const UpdateNodeBalancerBody = z.strictObject({
  label: Label.optional(),
  client_conn_throttle: z.number().int().min(0).max(20).optional(),
  client_udp_sess_throttle: z.number().int().min(0).max(20).optional(),
  tags: Tags.optional(),
});
