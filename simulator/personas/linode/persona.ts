/**
 * The Linode API v4 persona under /v4 (LINODE_URL=http://127.0.0.1:<port>/v4, the override the Linode CCM
 * reads): its routes and everything else the server asks of it, as one value for the registration list
 * (../registry.ts). Every route is served at /v4beta too, as Linode serves its v4 API there with the beta
 * endpoints (reserved IPs, NodeBalancer VPC configs) that scripts call by that path.
 */
import type { RouteDef } from '../../server/route-definitions.ts';
import type { Persona } from '../../server/persona.ts';
import { LinodeFirewallAttrs, LinodeLbAttrs } from './attrs.ts';
import { catalogueRoutes } from './catalogue.ts';
import { BETA_PREFIX, COLLECTIONS, NAME, PREFIX } from './common.ts';
import { linodeErrorBody, linodeErrorStatus } from './errors.ts';
import { firewallAllRoutes } from './firewalls.ts';
import { instanceRoutes } from './instances.ts';
import { nodeBalancerConfigRoutes } from './nb-configs.ts';
import { nodeBalancerRoutes } from './nodebalancers.ts';
import { reservedIpRoutes } from './reserved-ips.ts';
import { regionView, typeView } from './views.ts';
import { vpcRoutes } from './vpcs.ts';

export const LINODE_ROUTES: readonly RouteDef[] = [
  ...catalogueRoutes,
  ...instanceRoutes,
  ...nodeBalancerRoutes,
  ...nodeBalancerConfigRoutes,
  ...firewallAllRoutes,
  ...vpcRoutes,
  ...reservedIpRoutes,
];

export const linode: Persona = {
  name: NAME,
  prefix: PREFIX,
  aliases: [BETA_PREFIX],
  routes: LINODE_ROUTES,
  errors: { status: linodeErrorStatus, body: linodeErrorBody },
  rateLimitReset: 'epoch',
  rateLimitHeaders: 'X-RateLimit',
  paths: { collections: COLLECTIONS },
  attrs: { load_balancers: LinodeLbAttrs, firewall_policies: LinodeFirewallAttrs },
  catalogue: { region: regionView, serverType: typeView },
};
