/** zod schemas of the Hetzner load balancer requests: create, services, targets and the LB actions. */
import { z } from 'zod';
import { Ipv4, Ipv6, Labels, Name } from '../../api/schema/common.ts';
import { NumericId } from '../numeric-ids.ts';
import { HcloudServiceHttp } from './lb-attrs.ts';
import { IdOrName } from './schemas.ts';

const Port = z.number().int().min(1).max(65535);
export const Protocol = z.enum(['tcp', 'http', 'https']);
export const AlgorithmType = z.enum(['round_robin', 'least_connections']);

export const ServiceHttp = HcloudServiceHttp;

const HealthCheckHttp = z.strictObject({
  domain: z.string().max(255).optional(),
  path: z.string().startsWith('/').max(255).optional(),
  response: z.string().max(1024).optional(),
  status_codes: z
    .array(z.string().regex(/^[1-5][0-9?]{2}$/, 'must be a status code like 200 or 2??'))
    .max(16)
    .optional(),
  tls: z.boolean().optional(),
});

const HealthCheckFields = {
  port: Port.optional(),
  interval: z.number().int().min(1).max(3600).optional(),
  timeout: z.number().int().min(1).max(3600).optional(),
  retries: z.number().int().min(0).max(5).optional(),
  http: HealthCheckHttp.optional(),
};
export const HealthCheck = z.strictObject({ protocol: Protocol, ...HealthCheckFields });
export type HealthCheck = z.infer<typeof HealthCheck>;
const HealthCheckPatch = z.strictObject({ protocol: Protocol.optional(), ...HealthCheckFields });

export const ServiceBody = z.strictObject({
  protocol: Protocol,
  listen_port: Port.optional(),
  destination_port: Port.optional(),
  proxyprotocol: z.boolean().optional(),
  http: ServiceHttp.optional(),
  health_check: HealthCheck.optional(),
});
export type ServiceBody = z.infer<typeof ServiceBody>;

export const UpdateServiceBody = z.strictObject({
  listen_port: Port,
  protocol: Protocol.optional(),
  destination_port: Port.optional(),
  proxyprotocol: z.boolean().optional(),
  http: ServiceHttp.optional(),
  health_check: HealthCheckPatch.optional(),
});
export type UpdateServiceBody = z.infer<typeof UpdateServiceBody>;

export const DeleteServiceBody = z.strictObject({ listen_port: Port });

const TargetFields = {
  server: z.strictObject({ id: NumericId }).optional(),
  label_selector: z.strictObject({ selector: z.string().min(1).max(1024) }).optional(),
  ip: z.strictObject({ ip: Ipv4 }).optional(),
};
const namesItsKind = (t: { type: string } & Record<string, unknown>): boolean => t[t.type] !== undefined;
export const TargetBody = z
  .strictObject({ type: z.enum(['server', 'label_selector', 'ip']), ...TargetFields, use_private_ip: z.boolean().optional() })
  .refine(namesItsKind, { message: 'the object named by type (server, label_selector or ip) is required', path: ['type'] });
export type TargetBody = z.infer<typeof TargetBody>;
export const RemoveTargetBody = z
  .strictObject({ type: z.enum(['server', 'label_selector', 'ip']), ...TargetFields })
  .refine(namesItsKind, { message: 'the object named by type (server, label_selector or ip) is required', path: ['type'] });
export type RemoveTargetBody = z.infer<typeof RemoveTargetBody>;

export const CreateLoadBalancerBody = z.strictObject({
  name: Name,
  load_balancer_type: IdOrName,
  algorithm: z.strictObject({ type: AlgorithmType }).optional(),
  location: z.string().min(1).max(63).optional(),
  network_zone: z.string().min(1).max(63).optional(),
  labels: Labels.optional(),
  targets: z.array(TargetBody).max(150).optional(),
  services: z.array(ServiceBody).max(30).optional(),
  public_interface: z.boolean().optional(),
  network: NumericId.optional(),
});
export type CreateLoadBalancerBody = z.infer<typeof CreateLoadBalancerBody>;

export const ChangeAlgorithmBody = z.strictObject({ type: AlgorithmType });
export const ChangeTypeBody = z.strictObject({ load_balancer_type: IdOrName });
/** A load balancer's or server's change_dns_ptr: one of its public addresses, IPv4 or IPv6; dns_ptr null resets it. */
export const ChangeDnsPtrBody = z.strictObject({ ip: z.union([Ipv4, Ipv6]), dns_ptr: z.string().min(1).max(255).nullable() });
export const AttachToNetworkBody = z.strictObject({ network: NumericId, ip: Ipv4.optional(), ip_range: z.string().optional() });
