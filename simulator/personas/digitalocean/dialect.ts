/**
 * The DigitalOcean API v2 dialect under /v2 (DO_OVERRIDE_URL=http://127.0.0.1:<port>/, the override the
 * DigitalOcean CCM hands godo): its routes and how the shared middleware treats it. Importing this module
 * registers it.
 */
import type { RouteDef } from '../../server/http.ts';
import { registerDialect } from '../dialects.ts';
import { catalogueRoutes } from './catalogue.ts';
import { COLLECTIONS, PREFIX, numberOfUuid } from './common.ts';
import { dropletRoutes } from './droplets.ts';
import { doError, doErrorBody, doStatus } from './errors.ts';
import { firewallRoutes } from './firewalls.ts';
import { loadBalancerRoutes } from './load-balancers.ts';

registerDialect({
  name: 'digitalocean', prefix: PREFIX, collections: COLLECTIONS, error: doError, errorBody: doErrorBody, status: doStatus, numberOf: numberOfUuid,
  rateLimitReset: 'epoch',
});

export const DIGITALOCEAN_ROUTES: readonly RouteDef[] = [...catalogueRoutes, ...dropletRoutes, ...loadBalancerRoutes, ...firewallRoutes];
