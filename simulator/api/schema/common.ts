/**
 * Wire primitives shared by every simcloud resource: ids, labels and label selectors, timestamps,
 * list parameters and the pagination meta. snake_case JSON, as on the wire.
 */
import { z } from 'zod';

/** Resource ids: a short type prefix and a random or sequential part, e.g. `srv-0001a2`. */
export const Id = z.string().regex(/^[a-z]{2,5}-[A-Za-z0-9]{1,40}$/, 'must be a simcloud id like srv-0a1b2c');

export const Name = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be 1-63 letters, digits, dots, dashes or underscores, starting and ending alphanumeric');

const LABEL_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const LABEL_PREFIX = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

/** Kubernetes-style label key: optional DNS prefix and `/`, then a name of at most 63 characters. */
export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return LABEL_NAME.test(key);
  return LABEL_PREFIX.test(key.slice(0, slash)) && LABEL_NAME.test(key.slice(slash + 1));
}

export const LabelKey = z.string().refine(isLabelKey, 'must be a label key: [prefix/]name, name at most 63 characters');
export const LabelValue = z
  .string()
  .max(63)
  .regex(/^([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?$/, 'must be at most 63 letters, digits, dots, dashes or underscores');
export const Labels = z.record(LabelKey, LabelValue);
export type Labels = z.infer<typeof Labels>;

export const Timestamp = z.iso.datetime();
export const Ipv4 = z.ipv4();
/** An IPv6 address (simcloud's are data only, from the documentation prefix 2001:db8::/32; none carries traffic). */
export const Ipv6 = z.ipv6();
export const Cidr = z.cidrv4();

/** Sort keys accepted by every list: a field and an optional `:asc` / `:desc`. */
export const SortField = { id: 'id', name: 'name', created: 'created' } as const;
export type SortField = (typeof SortField)[keyof typeof SortField];
export const Sort = z.string().regex(/^(id|name|created)(:(asc|desc))?$/, 'must be id, name or created, optionally with :asc or :desc');

export const PER_PAGE_MAX = 500;
export const PER_PAGE_DEFAULT = 50;

/** Query parameters every list accepts. Values arrive as strings, so numbers are coerced. */
export const ListParams = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  per_page: z.coerce.number().int().min(1).max(PER_PAGE_MAX).optional(),
  sort: Sort.optional(),
  label_selector: z.string().max(1024).optional(),
  name: z.string().max(63).optional(),
});
export type ListParams = z.infer<typeof ListParams>;

export const Pagination = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  previous_page: z.number().int().nullable(),
  next_page: z.number().int().nullable(),
  last_page: z.number().int(),
  total_entries: z.number().int(),
});
export type Pagination = z.infer<typeof Pagination>;

export const ListMeta = z.object({ pagination: Pagination });
export type ListMeta = z.infer<typeof ListMeta>;

/** A reference from an action or an assignment to one resource. */
export const ResourceType = {
  server: 'server',
  network: 'network',
  load_balancer: 'load_balancer',
  server_group: 'server_group',
  firewall_policy: 'firewall_policy',
  ip_block: 'ip_block',
  project: 'project',
  token: 'token',
  action: 'action',
  certificate: 'certificate',
  tombstone: 'tombstone',
  tag: 'tag',
} as const;
export type ResourceType = (typeof ResourceType)[keyof typeof ResourceType];
export const ResourceTypeSchema = z.enum(ResourceType);

export const ResourceRef = z.object({ id: z.string(), type: ResourceTypeSchema });
export type ResourceRef = z.infer<typeof ResourceRef>;
