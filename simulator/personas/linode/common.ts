/**
 * What the Linode persona's routes share: the mount point, ids to store records, Linode's paging
 * (`page`, `page_size` 25-500, default 100; `{data, page, pages, results}`) and its timestamps (UTC without
 * zone or fraction, the only form linodego parses).
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { notFound } from '../../server/errors.ts';
import { getOwned } from '../../server/resources/common.ts';
import type { Collections } from '../../server/store/state.ts';
import { simcloudId } from '../numeric-ids.ts';
import { applyFilter, FilterHeader } from './filter.ts';

/** linodego's UseURL keeps only scheme, host and version, so LINODE_URL=http://127.0.0.1:<port>/v4 reaches this. */
export const PREFIX = '/v4';

/** Linode's beta mount: the same API with its beta endpoints; the persona serves every route there too. */
export const BETA_PREFIX = '/v4beta';

/** The persona's name: its key in a record's `dialect_attrs`. */
export const NAME = 'linode';

export const COLLECTIONS = {
  'linode/instances': { coll: 'servers', idPrefix: 'srv' },
  nodebalancers: { coll: 'load_balancers', idPrefix: 'lb' },
  'networking/firewalls': { coll: 'firewall_policies', idPrefix: 'fwp' },
  vpcs: { coll: 'networks', idPrefix: 'net' },
  'networking/reserved/ips': { coll: 'ip_blocks', idPrefix: 'ipb' },
} as const;

type Mapped = keyof typeof COLLECTIONS;
type CollOf<K extends Mapped> = (typeof COLLECTIONS)[K]['coll'];

export const sid = (kind: Mapped, n: number): string => simcloudId(COLLECTIONS[kind].idPrefix, n);

/**
 * Linode deletes a NodeBalancer at once, while simcloud's LB stays `deleting` until its action ends; the
 * persona shows such an LB as gone already.
 */
export const visible = (r: { status: string }): boolean => r.status !== 'deleting';

/** The caller's record behind a numeric id, else 404 (naming `field` when the id came in a body). */
export function owned<K extends Mapped>(sim: Sim, caller: Caller, kind: K, ref: number | { n: number; field: string }): Collections[CollOf<K>] {
  const id = sid(kind, typeof ref === 'number' ? ref : ref.n);
  const rec = getOwned(sim, caller, COLLECTIONS[kind].coll, typeof ref === 'number' ? id : { id, field: ref.field }) as Collections[CollOf<K>];
  if (kind === 'nodebalancers' && !visible(rec as { status: string })) throw notFound('nodebalancer', String(typeof ref === 'number' ? ref : ref.n));
  return rec;
}

export const ListQuery = z.object({
  page: z.coerce.number().int().min(1).optional(),
  page_size: z.coerce.number().int().min(25).max(500).optional(),
  'X-Filter': FilterHeader.optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

export interface Page<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

/** Filters (X-Filter) and pages views the Linode way. */
export function pageOf<T extends Record<string, unknown>>(all: readonly T[], q: ListQuery): Page<T> {
  const matched = applyFilter(all, q['X-Filter']);
  const size = q.page_size ?? 100;
  const pages = Math.max(1, Math.ceil(matched.length / size));
  const page = q.page ?? 1;
  return { data: matched.slice((page - 1) * size, page * size), page, pages, results: matched.length };
}

/** `2026-11-25T01:02:03.456Z` -> `2026-11-25T01:02:03`. */
export const linodeTime = (iso: string): string => iso.slice(0, 19);
