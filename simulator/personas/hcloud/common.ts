/** Helpers shared by the Hetzner persona's routes: ids to store records, list queries, the route prefix. */
import { Sort, type ListMeta } from '../../api/schema/common.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField } from '../../server/errors.ts';
import { getOwned, paginate, type ListQuery as SimListQuery } from '../../server/resources/common.ts';
import type { Collections } from '../../server/store/state.ts';
import { simcloudId } from '../numeric-ids.ts';
import type { ListQuery } from './schemas.ts';

export const PREFIX = '/hcloud/v1';

/** The persona's name: its key in a record's `dialect_attrs`. */
export const NAME = 'hcloud';

/** Persona collection -> simcloud collection and id prefix (also used to canonicalise paths for faults). */
export const COLLECTIONS = {
  servers: { coll: 'servers', idPrefix: 'srv' },
  networks: { coll: 'networks', idPrefix: 'net' },
  load_balancers: { coll: 'load_balancers', idPrefix: 'lb' },
  actions: { coll: 'actions', idPrefix: 'act' },
  certificates: { coll: 'certificates', idPrefix: 'crt' },
} as const;

type Mapped = keyof typeof COLLECTIONS;
type CollOf<K extends Mapped> = (typeof COLLECTIONS)[K]['coll'];

export const sid = (kind: Mapped, n: number): string => simcloudId(COLLECTIONS[kind].idPrefix, n);

/** The caller's record behind a numeric id, else not_found (naming `field` when the id came in a body). */
export function owned<K extends Mapped>(sim: Sim, caller: Caller, kind: K, ref: number | { n: number; field: string }): Collections[CollOf<K>] {
  const id = sid(kind, typeof ref === 'number' ? ref : ref.n);
  return getOwned(sim, caller, COLLECTIONS[kind].coll, typeof ref === 'number' ? id : { id, field: ref.field }) as Collections[CollOf<K>];
}

/** A Hetzner list query as simcloud's (the first sort key; Hetzner allows several, simcloud one). */
export function simListQuery(q: ListQuery): SimListQuery {
  const sort = q.sort?.[0];
  if (sort !== undefined && !Sort.safeParse(sort).success) throw invalidField('sort', 'must be id, name or created, optionally with :asc or :desc');
  return { page: q.page, per_page: q.per_page ?? 25, label_selector: q.label_selector, name: q.name, sort };
}

/** Pages a list the Hetzner way (25 per page unless asked), with simcloud's pagination meta. */
export const pageOf = <T>(all: readonly T[], q: { page?: number; per_page?: number }): { items: T[]; meta: ListMeta } =>
  paginate([...all], { page: q.page, per_page: q.per_page ?? 25 });
