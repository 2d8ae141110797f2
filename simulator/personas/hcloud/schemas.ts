/**
 * zod schemas of every request body and query the Hetzner persona accepts, shaped as hcloud-go sends them
 * (snake_case, ids as integers, IDOrName fields as an integer or a name). Unknown fields are refused
 * (strict objects), so a field the persona does not emulate fails with invalid_input naming it.
 */
import { z } from 'zod';
import { Cidr, Ipv4, Labels, Name } from '../../api/schema/common.ts';
import { NumericId } from '../numeric-ids.ts';

/** A query value hcloud-go may repeat (`?status=running&status=off`). */
const Many = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));

export const ListQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  per_page: z.coerce.number().int().min(1).max(50).optional(),
  label_selector: z.string().max(1024).optional(),
  name: z.string().max(63).optional(),
  sort: Many.optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

export const ServerListQuery = ListQuery.extend({ status: Many.optional() });
export const ActionListQuery = ListQuery.extend({ id: Many.optional(), status: Many.optional() });
export const NameQuery = z.strictObject({
  name: z.string().max(63).optional(),
  page: z.coerce.number().int().min(1).optional(),
  per_page: z.coerce.number().int().min(1).max(50).optional(),
});

export const IdOrName = z.union([z.number().int().min(1), z.string().min(1).max(63)]);

export const CreateServerBody = z.strictObject({
  name: Name,
  server_type: IdOrName,
  image: IdOrName,
  location: z.string().min(1).max(63).optional(),
  datacenter: z.string().min(1).max(63).optional(),
  labels: Labels.optional(),
  networks: z.array(NumericId).max(8).optional(),
  start_after_create: z.boolean().optional(),
  automount: z.boolean().optional(),
  ssh_keys: z
    .array(z.union([z.number(), z.string()]))
    .max(0, 'SSH keys are not emulated')
    .optional(),
  user_data: z.string().max(32_768).optional(),
  public_net: z.strictObject({ enable_ipv4: z.boolean(), enable_ipv6: z.boolean(), ipv4: z.number().optional(), ipv6: z.number().optional() }).optional(),
});
export type CreateServerBody = z.infer<typeof CreateServerBody>;

export const UpdateBody = z.strictObject({ name: Name.optional(), labels: Labels.optional() });
export const Empty = z.strictObject({});
export const NetworkRef = z.strictObject({ network: NumericId, ip: Ipv4.optional(), alias_ips: z.array(Ipv4).max(0).optional(), ip_range: Cidr.optional() });
export const NetworkOnly = z.strictObject({ network: NumericId });

const SubnetBody = z.strictObject({
  type: z.enum(['cloud', 'server']),
  ip_range: Cidr,
  network_zone: z.string().min(1).max(63),
  gateway: Ipv4.optional(),
});
export const RouteBody = z.strictObject({ destination: Cidr, gateway: Ipv4 });
export const CreateNetworkBody = z.strictObject({
  name: Name,
  ip_range: Cidr,
  subnets: z.array(SubnetBody).max(16).optional(),
  routes: z.array(RouteBody).max(100).optional(),
  labels: Labels.optional(),
  expose_routes_to_vswitch: z.literal(false).optional(),
});
export type CreateNetworkBody = z.infer<typeof CreateNetworkBody>;
