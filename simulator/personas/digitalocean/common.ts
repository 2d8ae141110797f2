/**
 * What the DigitalOcean persona's routes share: its mount point, the ids it shows (droplets, actions and
 * VPCs by their store number; load balancers as UUIDs spelled from that same number, so no id is kept per
 * persona), tags as simcloud labels, and DigitalOcean's paging (`page`, `per_page` 1-200, default 20;
 * `links.pages` and `meta.total`).
 */
import { z } from 'zod';
import { isLabelKey } from '../../api/schema/common.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { dict, hasOwnKey } from '../../../lib/keyed.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { findOwned, getOwned } from '../../server/resources/common.ts';
import type { LoadBalancerRec, ServerRec } from '../../server/store/state.ts';
import { numericIdOf, simcloudId } from '../numeric-ids.ts';

/** godo joins some paths to its BaseURL (`v2/droplets`) and puts others at the root (`/v2/load_balancers`), so the persona lives at /v2 on the root and DO_OVERRIDE_URL is the bare server URL. */
export const PREFIX = '/v2';

/** The persona's name: its key in a record's `dialect_attrs`. */
export const NAME = 'digitalocean';

export const COLLECTIONS = {
  droplets: { coll: 'servers', idPrefix: 'srv' },
  load_balancers: { coll: 'load_balancers', idPrefix: 'lb' },
  actions: { coll: 'actions', idPrefix: 'act' },
  firewalls: { coll: 'firewall_policies', idPrefix: 'fwp' },
  certificates: { coll: 'certificates', idPrefix: 'crt' },
} as const;

const UUID_HEAD = '00000000-0000-4000-8000-';
const UUID = /^00000000-0000-4000-8000-(\d{12})$/;

/** The UUID DigitalOcean shows for a load balancer or VPC: the store's number in its last group. */
export const uuidOf = (simId: string): string => `${UUID_HEAD}${String(numericIdOf(simId)).padStart(12, '0')}`;

/** The store number behind a UUID this persona made, else null. */
export function numberOfUuid(uuid: string): number | null {
  const m = UUID.exec(uuid);
  return m === null ? null : Number(m[1]);
}

export const dropletSid = (n: number): string => simcloudId('srv', n);

/** A DigitalOcean LB is gone once deleted; simcloud's stays `deleting` until its action ends. */
export const visible = (lb: LoadBalancerRec): boolean => lb.status !== 'deleting';

export function ownedDroplet(sim: Sim, caller: Caller, n: number, field?: string): ServerRec {
  const id = dropletSid(n);
  return getOwned(sim, caller, 'servers', field === undefined ? id : { id, field });
}

export function ownedLb(sim: Sim, caller: Caller, uuid: string): LoadBalancerRec {
  const n = numberOfUuid(uuid);
  const lb = n === null ? undefined : findOwned(sim, caller, 'load_balancers', simcloudId('lb', n));
  if (lb === undefined || !visible(lb)) throw notFound('load balancer', uuid);
  return lb;
}

/** A path id that is a UUID (load balancers, firewalls); any other spelling is a 404. */
export const UuidParams = z.object({ id: z.string().min(1).max(64) });

/** DigitalOcean tags are plain strings; `key:value` becomes the label key=value, any other tag a key with an empty value. */
export function labelsOf(tags: readonly string[], field = 'tags'): Record<string, string> {
  const labels = dict<string>();
  tags.forEach((t, i) => {
    if (!/^[A-Za-z0-9:_.-]{1,255}$/.test(t)) throw invalidField(`${field}.${i}`, 'must be letters, digits, colons, dashes, dots or underscores');
    const colon = t.indexOf(':');
    const [key, value] = colon < 0 ? [t, ''] : [t.slice(0, colon), t.slice(colon + 1)];
    if (!isLabelKey(key)) throw invalidField(`${field}.${i}`, "the part before ':' must start and end with a letter or digit");
    // One label per key: `k8s` and `k8s:x` would be the same label.
    if (hasOwnKey(labels, key)) throw invalidField(`${field}.${i}`, `another tag already uses ${key}; simcloud keeps one tag per part before ':'`);
    labels[key] = value;
  });
  return { ...labels };
}

export const tagsOf = (labels: Record<string, string>): string[] => Object.entries(labels).map(([k, v]) => (v === '' ? k : `${k}:${v}`));

/** A tag as a simcloud label selector (the LB's `tag` target). */
export function selectorOf(tag: string): string {
  const [key, value] = Object.entries(labelsOf([tag], 'tag'))[0]!;
  return value === '' ? key : `${key}=${value}`;
}

export const ListQuery = z.object({
  page: z.coerce.number().int().min(1).optional(),
  per_page: z.coerce.number().int().min(1).max(200).optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

interface Pages {
  first?: string;
  prev?: string;
  next?: string;
  last?: string;
}

/** Where a list lives: its key in the body, its path under the prefix and the filters its links repeat. */
export interface ListOf<K extends string> {
  key: K;
  extra?: Record<string, string>;
}

/** One page of DigitalOcean's list envelope: the items under their key, links and meta (responses.ts `list`). */
export type Page<K extends string, T> = { [P in K]: T[] } & { links: { pages?: Pages }; meta: { total: number } };

/** One page of `items` under `key` (also the path), with DigitalOcean's links (absent on a single page) and meta. */
export function pageOf<K extends string, T>({ key, extra = {} }: ListOf<K>, items: readonly T[], q: ListQuery): Page<K, T> {
  const perPage = q.per_page ?? 20;
  const page = q.page ?? 1;
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const url = (p: number): string => `${PREFIX}/${key}?${new URLSearchParams({ ...extra, page: String(p), per_page: String(perPage) }).toString()}`;
  const pages: Pages = {};
  if (page > 1) Object.assign(pages, { first: url(1), prev: url(Math.min(page - 1, last)) });
  if (page < last) Object.assign(pages, { next: url(page + 1), last: url(last) });
  const slice = { [key]: items.slice((page - 1) * perPage, page * perPage) } as { [P in K]: T[] };
  return { ...slice, links: Object.keys(pages).length === 0 ? {} : { pages }, meta: { total: items.length } };
}

/** The object without its undefined fields, to spread over defaults. */
export const defined = <T extends object>(o: T | undefined): Partial<T> =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;

/** DigitalOcean's timestamps: UTC, seconds, `Z`. */
export const doTime = (iso: string): string => `${iso.slice(0, 19)}Z`;
