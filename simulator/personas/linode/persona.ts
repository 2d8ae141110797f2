/**
 * The Linode API v4 persona under /v4 (LINODE_URL=http://127.0.0.1:<port>/v4, the override the Linode CCM
 * reads): its routes and everything else the server asks of it, as one value for the registration list
 * (../registry.ts).
 */
import type { RouteDef } from '../../server/http.ts';
import type { Persona } from '../../server/persona.ts';
import { LinodeFirewallAttrs, LinodeLbAttrs } from './attrs.ts';
import { catalogueRoutes } from './catalogue.ts';
import { COLLECTIONS, NAME, PREFIX } from './common.ts';
import { linodeErrorBody, linodeErrorStatus } from './errors.ts';
import { firewallAllRoutes } from './firewalls.ts';
import { instanceRoutes } from './instances.ts';
import { nodeBalancerConfigRoutes } from './nb-configs.ts';
import { nodeBalancerRoutes } from './nodebalancers.ts';
import { regionView, typeView } from './views.ts';
import { vpcRoutes } from './vpcs.ts';

export const LINODE_ROUTES: readonly RouteDef[] = [...catalogueRoutes, ...instanceRoutes, ...nodeBalancerRoutes, ...nodeBalancerConfigRoutes, ...firewallAllRoutes, ...vpcRoutes];

export const linode: Persona = {
  name: NAME, prefix: PREFIX, routes: LINODE_ROUTES,
  errors: { status: linodeErrorStatus, body: linodeErrorBody },
  rateLimitReset: 'epoch',
  rateLimitHeaders: 'X-RateLimit',
  paths: { collections: COLLECTIONS },
  attrs: { load_balancers: LinodeLbAttrs, firewall_policies: LinodeFirewallAttrs },
  catalogue: { region: regionView, serverType: typeView },
};
