/**
 * IP blocks (phoenixNAP style): a CIDR of `size` (prefix length) allocated in a location, with
 * key=value tags, an explicit gateway and usable addresses, assignable to one LB, network or server.
 */
import { z } from 'zod';
import { Cidr, Id, Ipv4, ListMeta, Timestamp } from './common.ts';

export const IpBlockStatus = { unassigned: 'unassigned', assigned: 'assigned' } as const;
export type IpBlockStatus = (typeof IpBlockStatus)[keyof typeof IpBlockStatus];

export const AssignmentKind = { load_balancer: 'load_balancer', network: 'network', server: 'server' } as const;
export type AssignmentKind = (typeof AssignmentKind)[keyof typeof AssignmentKind];

const TagKey = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'must be letters, digits, dots, dashes, underscores or slashes');
const TagValue = z
  .string()
  .max(255)
  .regex(/^[^,=]*$/, 'must not contain , or =');
export const Tags = z.record(TagKey, TagValue);
export type Tags = z.infer<typeof Tags>;

export const Assignment = z.object({ kind: z.enum(AssignmentKind), id: Id });
export type Assignment = z.infer<typeof Assignment>;

export const IpBlock = z.object({
  id: Id,
  cidr: Cidr,
  /** Prefix length, e.g. 29 for a /29. */
  size: z.number().int(),
  location: z.string(),
  description: z.string(),
  tags: Tags,
  status: z.enum(IpBlockStatus),
  /** The network address's first host: reserved as gateway. */
  gateway: Ipv4,
  /** Addresses a user may take: everything but network, gateway and broadcast. */
  usable_addresses: z.array(Ipv4),
  assigned_to: Assignment.nullable(),
  created: Timestamp,
});
export type IpBlock = z.infer<typeof IpBlock>;

export const AllocateIpBlockRequest = z.strictObject({
  location: z.string().min(1).max(63),
  /** Prefix length 24..30; the server's default (29) when absent. */
  size: z.number().int().min(24).max(30).optional(),
  description: z.string().max(255).optional(),
  tags: Tags.optional(),
});
export type AllocateIpBlockRequest = z.infer<typeof AllocateIpBlockRequest>;

export const UpdateIpBlockRequest = z.strictObject({ description: z.string().max(255).optional(), tags: Tags.optional() });
export type UpdateIpBlockRequest = z.infer<typeof UpdateIpBlockRequest>;

export const AssignIpBlockRequest = z.strictObject({ kind: z.enum(AssignmentKind), id: Id });
export type AssignIpBlockRequest = z.infer<typeof AssignIpBlockRequest>;

/** List filter: `tags=k=v,k2=v2` (all must match) and `location`. */
export const IpBlockListParams = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  per_page: z.coerce.number().int().min(1).max(500).optional(),
  sort: z
    .string()
    .regex(/^(id|created|cidr)(:(asc|desc))?$/)
    .optional(),
  location: z.string().max(63).optional(),
  tags: z
    .string()
    .max(1024)
    .regex(/^([^,=]+=[^,=]*)(,[^,=]+=[^,=]*)*$/, 'must be k=v pairs separated by commas')
    .optional(),
});
export type IpBlockListParams = z.infer<typeof IpBlockListParams>;

export const IpBlockResponse = z.object({ ip_block: IpBlock });
export const IpBlockListResponse = z.object({ ip_blocks: z.array(IpBlock), meta: ListMeta });
