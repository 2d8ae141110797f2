/**
 * The Hetzner Cloud persona under /hcloud/v1 (HCLOUD_ENDPOINT=http://127.0.0.1:<port>/hcloud/v1): its routes
 * and everything else the server asks of it, as one value for the registration list (../registry.ts).
 */
import type { RouteDef } from '../../server/route-definitions.ts';
import type { Persona } from '../../server/persona.ts';
import { actionRoutes } from './actions.ts';
import { locationView, serverTypeView } from './catalogue.ts';
import { catalogueRoutes } from './catalogue-routes.ts';
import { certificateRoutes } from './certificates.ts';
import { COLLECTIONS, NAME, PREFIX } from './common.ts';
import { hcloudError } from './errors.ts';
import { loadBalancerActionRoutes } from './lb-actions.ts';
import { HcloudLbAttrs } from './lb-attrs.ts';
import { loadBalancerRoutes } from './load-balancers.ts';
import { networkRoutes } from './networks.ts';
import { HcloudServerAttrs } from './server-attrs.ts';
import { serverRoutes } from './servers.ts';

/** Action routes come first: `/servers/actions` must not be taken for the server with id `actions`. */
export const HCLOUD_ROUTES: readonly RouteDef[] = [
  ...actionRoutes,
  ...catalogueRoutes,
  ...serverRoutes,
  ...networkRoutes,
  ...loadBalancerRoutes,
  ...loadBalancerActionRoutes,
  ...certificateRoutes,
];

export const hcloud: Persona = {
  name: NAME,
  prefix: PREFIX,
  routes: HCLOUD_ROUTES,
  // Hetzner's statuses are simcloud's; its codes and `{"error": ...}` envelope are not.
  errors: { status: (e) => e.status, body: (e) => ({ error: hcloudError(e) }) },
  rateLimitReset: 'epoch',
  paths: { collections: COLLECTIONS },
  attrs: { servers: HcloudServerAttrs, load_balancers: HcloudLbAttrs },
  catalogue: { region: locationView, serverType: serverTypeView },
};
