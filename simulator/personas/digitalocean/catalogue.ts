/** DigitalOcean persona: regions, sizes and the account (a token check), read-only. */
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { REGIONS, SERVER_TYPES } from '../../server/resources/catalogue/data.ts';
import { ListQuery, PREFIX, pageOf } from './common.ts';
import { Account, Region, Size, list, one } from './responses.ts';
import { regionView, sizeView } from './views.ts';

export const catalogueRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/regions`,
    operation: 'digitalocean.regions.list',
    summary: 'List regions',
    query: ListQuery,
    response: list('regions', Region),
    handle: (_sim, { query }) => pageOf({ key: 'regions' }, REGIONS.map(regionView), query),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/sizes`,
    operation: 'digitalocean.sizes.list',
    summary: 'List sizes',
    query: ListQuery,
    response: list('sizes', Size),
    handle: (_sim, { query }) => pageOf({ key: 'sizes' }, SERVER_TYPES.map(sizeView), query),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/account`,
    operation: 'digitalocean.account.get',
    summary: 'The token owner (the project)',
    response: one('account', Account),
    handle: (_sim, { caller }): { account: Account } => ({
      account: {
        droplet_limit: 1000,
        floating_ip_limit: 0,
        volume_limit: 0,
        email: `${caller.projectId}@simcloud.invalid`,
        uuid: caller.projectId,
        email_verified: true,
        status: 'active',
        status_message: '',
      },
    }),
  }),
];
