/**
 * The Hetzner Cloud dialect under /hcloud/v1 (HCLOUD_ENDPOINT=http://127.0.0.1:<port>/hcloud/v1): its routes
 * and how the shared middleware treats it. Importing this module registers it.
 */
import type { RouteDef } from '../../server/http.ts';
import { registerDialect } from '../dialects.ts';
import { actionRoutes } from './actions.ts';
import { catalogueRoutes } from './catalogue-routes.ts';
import { COLLECTIONS, PREFIX } from './common.ts';
import { hcloudError } from './errors.ts';
import { loadBalancerActionRoutes } from './lb-actions.ts';
import { loadBalancerRoutes } from './load-balancers.ts';
import { networkRoutes } from './networks.ts';
import { serverRoutes } from './servers.ts';

registerDialect({ name: 'hcloud', prefix: PREFIX, collections: COLLECTIONS, error: hcloudError, rateLimitReset: 'epoch' });

/** Action routes come first: `/servers/actions` must not be taken for the server with id `actions`. */
export const HCLOUD_ROUTES: readonly RouteDef[] = [
  ...actionRoutes, ...catalogueRoutes, ...serverRoutes, ...networkRoutes, ...loadBalancerRoutes, ...loadBalancerActionRoutes,
];
