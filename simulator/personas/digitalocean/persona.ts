/**
 * The DigitalOcean API v2 persona under /v2 (DO_OVERRIDE_URL=http://127.0.0.1:<port>/, the override the
 * DigitalOcean CCM hands godo): its routes and everything else the server asks of it, as one value for the
 * registration list (../registry.ts).
 */
import type { RouteDef } from '../../server/route-definitions.ts';
import type { Persona } from '../../server/persona.ts';
import { DoFirewallAttrs, DoLbAttrs } from './attrs.ts';
import { catalogueRoutes } from './catalogue.ts';
import { certificateRoutes } from './certificates.ts';
import { COLLECTIONS, NAME, PREFIX, numberOfUuid } from './common.ts';
import { dropletRoutes } from './droplets.ts';
import { doErrorBody, doStatus } from './errors.ts';
import { firewallRoutes } from './firewalls.ts';
import { loadBalancerRoutes } from './load-balancers.ts';
import { regionView, sizeView } from './views.ts';

export const DIGITALOCEAN_ROUTES: readonly RouteDef[] = [...catalogueRoutes, ...dropletRoutes, ...loadBalancerRoutes, ...firewallRoutes, ...certificateRoutes];

export const digitalocean: Persona = {
  name: NAME,
  prefix: PREFIX,
  routes: DIGITALOCEAN_ROUTES,
  errors: { status: doStatus, body: doErrorBody },
  rateLimitReset: 'epoch',
  // Load balancers and firewalls are addressed by UUIDs spelled from the store number.
  paths: { collections: COLLECTIONS, numberOf: numberOfUuid },
  attrs: { load_balancers: DoLbAttrs, firewall_policies: DoFirewallAttrs },
  catalogue: { region: regionView, serverType: sizeView },
};
