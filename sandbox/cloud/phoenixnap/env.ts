// How a CCM is pointed at simcloud's phoenixNAP persona (/pnap): client credentials derived from the sandbox's
// project token, the location, and where the persona's APIs and token endpoint live; the command line of
// phoenixNAP's own CCM; and an access token for the sandbox's own calls through the persona.
import { z } from 'zod';
import { clientIdOf } from '../../../simulator/personas/phoenixnap/auth.ts';
import { BMC, IPS, NETWORKS, PREFIX, TOKEN_PATH } from '../../../simulator/personas/phoenixnap/common.ts';
import { bareUrl, type CcmEnvInput } from '../descriptor.ts';
import { linodeRegionOf, routelessCcmCommand } from '../linode/env.ts';

/** phoenixNAP's location of a simcloud zone: the persona names locations by simcloud's region id. */
export const phoenixnapLocationOf = linodeRegionOf;

/** The persona's root (its three APIs and the token endpoint are below it). */
export const phoenixnapUrl = (simcloudUrl: string): string => `${bareUrl(simcloudUrl)}${PREFIX}`;

/**
 * The environment phoenixNAP's CCM reads (PNAP_CLIENT_ID, PNAP_CLIENT_SECRET, PNAP_LOCATION) and what a CCM
 * built to be pointed elsewhere needs besides: the token endpoint and the three APIs' base URLs (phoenixNAP's
 * own CCM has them compiled in; our Go CCM's phoenixnap provider reads them), and simcloud's URL and token for that
 * provider's load balancers. The client secret is the project token.
 */
export function phoenixnapCcmEnv(i: Pick<CcmEnvInput, 'simcloudUrl' | 'token' | 'zone'>): Record<string, string> {
  const base = bareUrl(i.simcloudUrl);
  return {
    PNAP_CLIENT_ID: clientIdOf(i.token),
    PNAP_CLIENT_SECRET: i.token,
    PNAP_LOCATION: phoenixnapLocationOf(i.zone),
    PNAP_TOKEN_URL: `${base}${TOKEN_PATH}`,
    PNAP_BMC_API_URL: `${base}${BMC}`,
    PNAP_IP_API_URL: `${base}${IPS}`,
    PNAP_NETWORK_API_URL: `${base}${NETWORKS}`,
    // Our provider's load balancers carrying the blocks' traffic are simcloud's own (phoenixNAP has none).
    SIMCLOUD_ENDPOINT: base,
    SIMCLOUD_TOKEN: i.token,
  };
}

/** phoenixNAP's CCM binary (github.com/phoenixnap/k8s-cloud-provider-bmc). */
export const PHOENIXNAP_CCM_BINARY = 'k8s-cloud-provider-bmc';

/**
 * The `--ccm-command` that runs phoenixNAP's CCM in the slot: loopback only, no routes (it has no route
 * controller), and the cloud config the sandbox writes into the CCM directory (ccm-config.ts).
 */
export function phoenixnapCcmCommand(binary = PHOENIXNAP_CCM_BINARY): string {
  return `${routelessCcmCommand(binary, 'phoenixnap')} --cloud-config="$CCM_SANDBOX_CCM_DIR/cloud-config.json"`;
}

const TokenAnswer = z.object({ access_token: z.string().min(1) });

/** An access token from the persona's token endpoint, for the project token `token` as client secret. */
export async function phoenixnapAccessToken(simcloudUrl: string, token: string): Promise<string> {
  const res = await fetch(`${bareUrl(simcloudUrl)}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientIdOf(token), client_secret: token }).toString(),
  });
  if (!res.ok) throw new Error(`phoenixNAP token endpoint: HTTP ${res.status}`);
  return TokenAnswer.parse(await res.json()).access_token;
}
