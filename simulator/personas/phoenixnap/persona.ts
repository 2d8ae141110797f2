/**
 * The phoenixNAP persona under /pnap: the BMC API (/pnap/bmc/v1), the IP API (/pnap/ips/v1), the networks API
 * (/pnap/networks/v1: private and public networks), the tag API (/pnap/tag-manager/v1) and the OAuth2 token endpoint the SDK's clients use (/pnap/auth/realms/BMC/...), as one
 * value for the registration list (../registry.ts). It authenticates its own paths (auth.ts): client
 * credentials for an access token, then that token, as phoenixNAP does.
 */
import type { RouteDef } from '../../server/route-definitions.ts';
import type { Persona } from '../../server/persona.ts';
import { authRoutes, phoenixnapAuth } from './auth.ts';
import { COLLECTIONS, NAME, PREFIX, numberOfPnapId } from './common.ts';
import { pnapErrorBody, pnapStatus } from './errors.ts';
import { ipBlockRoutes } from './ip-blocks.ts';
import { networkRoutes } from './networks.ts';
import { publicNetworkRoutes } from './public-networks.ts';
import { serverRoutes } from './servers.ts';
import { tagRoutes } from './tags.ts';
import { locationView, serverTypeView } from './views.ts';

export const PHOENIXNAP_ROUTES: readonly RouteDef[] = [
  ...authRoutes,
  ...serverRoutes,
  ...ipBlockRoutes,
  ...networkRoutes,
  ...publicNetworkRoutes,
  ...tagRoutes,
];

export const phoenixnap: Persona = {
  name: NAME,
  prefix: PREFIX,
  routes: PHOENIXNAP_ROUTES,
  errors: { status: pnapStatus, body: pnapErrorBody },
  rateLimitReset: 'delta',
  // Ids are 24 hex digits spelled from the store number.
  paths: { collections: COLLECTIONS, numberOf: numberOfPnapId },
  attrs: {},
  catalogue: { region: locationView, serverType: serverTypeView },
  auth: phoenixnapAuth,
};
