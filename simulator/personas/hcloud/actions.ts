/**
 * Hetzner persona: actions (GET /actions?id=..., GET /actions/{id}, and each resource's /{type}/{id}/actions),
 * read from simcloud's one actions collection. hcloud-go's WaitFor polls the list with `sort=status&sort=id`.
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { ownedRecords } from '../../server/resources/common.ts';
import type { ActionRec } from '../../server/store/state.ts';
import type { ListMeta } from '../../api/schema/common.ts';
import { numericIdOf, NumericIdParams } from '../numeric-ids.ts';
import { COLLECTIONS, PREFIX, owned, pageOf } from './common.ts';
import { ActionListQuery } from './schemas.ts';
import { Action, ActionAnswer, list } from './responses.ts';
import { actionView } from './views.ts';

const SORT_KEYS = ['id', 'command', 'status', 'progress', 'started', 'finished'] as const;
type SortKey = (typeof SORT_KEYS)[number];

function comparator(sorts: readonly string[]): (a: ActionRec, b: ActionRec) => number {
  const keys = sorts.map((s, i) => {
    const [key = '', dir = 'asc'] = s.split(':');
    if (!(SORT_KEYS as readonly string[]).includes(key) || !['asc', 'desc'].includes(dir)) {
      throw invalidField(`sort.${i}`, `must be one of ${SORT_KEYS.join(', ')}, optionally with :asc or :desc`);
    }
    return { key: key as SortKey, sign: dir === 'desc' ? -1 : 1 };
  });
  const value = (a: ActionRec, key: SortKey): string | number => (key === 'id' ? numericIdOf(a.id) : key === 'progress' ? a.progress : String(a[key] ?? ''));
  return (a, b) => {
    for (const { key, sign } of keys) {
      const [x, y] = [value(a, key), value(b, key)];
      if (x !== y) return sign * (x < y ? -1 : 1);
    }
    return 0;
  };
}

type Query = z.infer<typeof ActionListQuery>;

/** Which actions a list shows: of one resource, of one resource type, or any (by id). */
interface Scope {
  resourceId?: string;
  type?: string;
}

function listActions(sim: Sim, caller: Caller, q: Query, scope: Scope = {}): { actions: Action[]; meta: ListMeta } {
  const { resourceId, type } = scope;
  const ids = q.id?.map((v, i) => {
    if (!/^\d{1,15}$/.test(v)) throw invalidField(`id.${i}`, 'must be a numeric action id');
    return Number(v);
  });
  if (ids === undefined && resourceId === undefined && type === undefined) throw invalidField('id', 'list actions by id (id=1&id=2)');
  const wanted = ids === undefined ? null : new Set(ids);
  const matches = (a: ActionRec): boolean =>
    (wanted === null || wanted.has(numericIdOf(a.id))) &&
    (q.status === undefined || q.status.includes(a.status)) &&
    (resourceId === undefined || a.resources.some((r) => r.id === resourceId)) &&
    (type === undefined || a.resources[0]?.type === type);
  const all = ownedRecords(sim, caller, 'actions')
    .filter(matches)
    .sort(comparator(q.sort ?? ['id']));
  const { items, meta } = pageOf(all, q);
  return { actions: items.map((a) => actionView(a)), meta };
}

const ActionParams = z.object({
  id: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
  action: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
});

const ActionList = list('actions', Action);

const TYPE_OF = { servers: 'server', networks: 'network', load_balancers: 'load_balancer' } as const;

/** The actions of one resource type (`/servers/actions`, hcloud-go's Server.Action) and of one resource. */
function resourceActions(kind: 'servers' | 'networks' | 'load_balancers'): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${kind}/actions`,
      operation: `hcloud.${kind}.typeActions`,
      summary: `List ${TYPE_OF[kind]} actions by id`,
      query: ActionListQuery,
      response: ActionList,
      handle: (sim, { caller, query }) => listActions(sim, caller, query, { type: TYPE_OF[kind] }),
    }),
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${kind}/actions/:id`,
      operation: `hcloud.${kind}.typeAction`,
      summary: `Get a ${TYPE_OF[kind]} action`,
      params: NumericIdParams,
      response: ActionAnswer,
      handle: (sim, { caller, params }) => {
        const action = owned(sim, caller, 'actions', params.id);
        if (action.resources[0]?.type !== TYPE_OF[kind]) throw notFound('action', String(params.id));
        return { action: actionView(action) };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${kind}/:id/actions`,
      operation: `hcloud.${kind}.actions`,
      summary: `List a resource's actions`,
      params: NumericIdParams,
      query: ActionListQuery,
      response: ActionList,
      handle: (sim, { caller, params, query }) => listActions(sim, caller, query, { resourceId: owned(sim, caller, kind, params.id).id }),
    }),
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${kind}/:id/actions/:action`,
      operation: `hcloud.${kind}.action`,
      summary: `Get a resource's action`,
      params: ActionParams,
      response: ActionAnswer,
      handle: (sim, { caller, params }) => {
        const resource = owned(sim, caller, kind, params.id);
        const action = owned(sim, caller, 'actions', params.action);
        if (!action.resources.some((r) => r.id === resource.id)) throw notFound('action', String(params.action));
        return { action: actionView(action) };
      },
    }),
  ];
}

export const actionRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/actions`,
    operation: 'hcloud.actions.list',
    summary: 'List actions by id',
    query: ActionListQuery,
    response: ActionList,
    handle: (sim, { caller, query }) => listActions(sim, caller, query),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/actions/:id`,
    operation: 'hcloud.actions.get',
    summary: 'Get an action',
    params: NumericIdParams,
    response: ActionAnswer,
    handle: (sim, { caller, params }) => ({ action: actionView(owned(sim, caller, 'actions', params.id)) }),
  }),
  // Uploaded certificates (the only kind here) have no actions.
  ...(Object.keys(COLLECTIONS).filter((k) => k !== 'actions' && k !== 'certificates') as ('servers' | 'networks' | 'load_balancers')[]).flatMap(
    resourceActions,
  ),
];
