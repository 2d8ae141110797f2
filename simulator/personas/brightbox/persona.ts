/**
 * The Brightbox persona under /brightbox: Brightbox's API v1.0 (/brightbox/1.0) and the OAuth2 token endpoint
 * gobrightbox uses (/brightbox/token), as one value for the registration list (../registry.ts). It authenticates
 * its own paths (auth.ts): an API client's credentials for an access token, then that token, as Brightbox does.
 */
import type { RouteDef } from '../../server/route-definitions.ts';
import type { Persona } from '../../server/persona.ts';
import { BbLbAttrs, BbPolicyAttrs } from './attrs.ts';
import { authRoutes, brightboxAuth } from './auth.ts';
import { COLLECTIONS, NAME, numberOfBbId, PREFIX } from './common.ts';
import { bbErrorBody, bbStatus } from './errors.ts';
import { groupAndPolicyRoutes } from './groups.ts';
import { lbAndCloudIpRoutes } from './load-balancers.ts';
import { serverRoutes } from './servers.ts';
import { serverTypeView, zoneCatalogueView } from './views.ts';

export const BRIGHTBOX_ROUTES: readonly RouteDef[] = [...authRoutes, ...serverRoutes, ...groupAndPolicyRoutes, ...lbAndCloudIpRoutes];

export const brightbox: Persona = {
  name: NAME,
  prefix: PREFIX,
  routes: BRIGHTBOX_ROUTES,
  errors: { status: bbStatus, body: bbErrorBody },
  rateLimitReset: 'epoch',
  // Ids are a type prefix and base-36 digits spelled from the store number.
  paths: { collections: COLLECTIONS, numberOf: numberOfBbId },
  attrs: { load_balancers: BbLbAttrs, firewall_policies: BbPolicyAttrs },
  catalogue: { region: zoneCatalogueView, serverType: serverTypeView },
  auth: brightboxAuth,
};
