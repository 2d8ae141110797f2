/** Linode persona: regions, linode types and the profile (the Linode CCM's token check), read-only. */
import { notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { REGIONS, SERVER_TYPES } from '../../server/resources/catalogue/data.ts';
import { z } from 'zod';
import { ListQuery, PREFIX, pageOf } from './common.ts';
import { LinodeType, Profile, Region, page } from './responses.ts';
import { regionView, typeView } from './views.ts';

const NameParams = z.object({ id: z.string().min(1).max(63) });

/** What a catalogue entry looks like in Linode's JSON: the view and the response schema it follows. */
interface Shown<T, V> {
  view: (t: T) => V;
  schema: z.ZodType<V>;
}

function readOnly<T extends { id: string }, V extends Record<string, unknown>>(
  path: string,
  what: string,
  list: readonly T[],
  { view, schema }: Shown<T, V>,
): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${path}`,
      operation: `linode.${what}s.list`,
      summary: `List ${what}s`,
      query: ListQuery,
      queryHeaders: ['X-Filter'],
      response: page(schema),
      handle: (_sim, { query }) => pageOf(list.map(view), query),
    }),
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${path}/:id`,
      operation: `linode.${what}s.get`,
      summary: `Get a ${what}`,
      params: NameParams,
      response: schema,
      handle: (_sim, { params }) => {
        const found = list.find((x) => x.id === params.id);
        if (found === undefined) throw notFound(what, params.id);
        return view(found);
      },
    }),
  ];
}

export const catalogueRoutes: RouteDef[] = [
  ...readOnly('regions', 'region', REGIONS, { view: regionView, schema: Region }),
  ...readOnly('linode/types', 'type', SERVER_TYPES, { view: typeView, schema: LinodeType }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/profile`,
    operation: 'linode.profile.get',
    summary: 'The token owner (the project)',
    response: Profile,
    handle: (_sim, { caller }): Profile => ({
      uid: 1,
      username: caller.projectId,
      email: `${caller.projectId}@simcloud.invalid`,
      timezone: 'UTC',
      email_notifications: false,
      ip_whitelist_enabled: false,
      lish_auth_method: 'keys_only',
      authorized_keys: [],
      two_factor_auth: false,
      restricted: false,
      referrals: { code: '', url: '', total: 0, completed: 0, pending: 0, credit: 0 },
      authentication_type: 'password',
      verified_phone_number: null,
    }),
  }),
];
