/**
 * The Linode API v4 dialect under /v4 (LINODE_URL=http://127.0.0.1:<port>/v4, the override the Linode CCM
 * reads): its routes and how the shared middleware treats it. Importing this module registers it.
 */
import type { RouteDef } from '../../server/http.ts';
import { registerDialect } from '../dialects.ts';
import { catalogueRoutes } from './catalogue.ts';
import { COLLECTIONS, PREFIX } from './common.ts';
import { linodeError, linodeErrorBody, linodeErrorStatus } from './errors.ts';
import { firewallAllRoutes } from './firewalls.ts';
import { instanceRoutes } from './instances.ts';
import { nodeBalancerConfigRoutes } from './nb-configs.ts';
import { nodeBalancerRoutes } from './nodebalancers.ts';
import { vpcRoutes } from './vpcs.ts';

registerDialect({ name: 'linode', prefix: PREFIX, collections: COLLECTIONS, error: linodeError, errorBody: linodeErrorBody, status: linodeErrorStatus, rateLimitReset: 'epoch' });

export const LINODE_ROUTES: readonly RouteDef[] = [...catalogueRoutes, ...instanceRoutes, ...nodeBalancerRoutes, ...nodeBalancerConfigRoutes, ...firewallAllRoutes, ...vpcRoutes];
