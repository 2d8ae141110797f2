// How a CCM is pointed at simcloud's Brightbox persona (/brightbox): the base URL gobrightbox takes
// (BRIGHTBOX_API_URL, with its trailing slash: the API is `1.0/` and the token endpoint `token/` below it), an API
// client's credentials derived from the sandbox's project token; the command line of Brightbox's own CCM; and an
// access token for the sandbox's own calls through the persona.
import { z } from 'zod';
import { clientIdOf } from '../../../simulator/personas/brightbox/auth.ts';
import { PREFIX, TOKEN_PATH } from '../../../simulator/personas/brightbox/common.ts';
import { bareUrl, type CcmEnvInput } from '../descriptor.ts';
import { routelessCcmCommand } from '../linode/env.ts';

/** BRIGHTBOX_API_URL: the persona's root, ending in `/` (gobrightbox resolves `1.0/` and `token/` against it). */
export const brightboxUrl = (simcloudUrl: string): string => `${bareUrl(simcloudUrl)}${PREFIX}/`;

/** The environment Brightbox's CCM (k8ssdk) reads: the API URL and an API client; the client secret is the project token. */
export function brightboxCcmEnv(i: Pick<CcmEnvInput, 'simcloudUrl' | 'token'>): Record<string, string> {
  return { BRIGHTBOX_API_URL: brightboxUrl(i.simcloudUrl), BRIGHTBOX_CLIENT: clientIdOf(i.token), BRIGHTBOX_CLIENT_SECRET: i.token };
}

/** Brightbox's CCM binary (github.com/brightbox/brightbox-cloud-controller-manager). */
export const BRIGHTBOX_CCM_BINARY = 'brightbox-cloud-controller-manager';

/**
 * The `--ccm-command` that runs Brightbox's CCM in the slot: loopback only (its webhook port off), no routes (it
 * has no route controller), and the sandbox's cluster name, as its manifest passes one: it names a Service's load
 * balancer `name.namespace.cluster-name`, so with the default (`kubernetes`) a second cluster on the account would
 * take the first one's load balancers by name.
 */
export function brightboxCcmCommand(binary = BRIGHTBOX_CCM_BINARY): string {
  return `${routelessCcmCommand(binary, 'brightbox')} --webhook-secure-port=0 --webhook-bind-address=127.0.0.1 --cluster-name="$CCM_SANDBOX_CLUSTER_NAME"`;
}

const TokenAnswer = z.object({ access_token: z.string().min(1) });

/** An access token from the persona's token endpoint, for the project token `token` as client secret. */
export async function brightboxAccessToken(simcloudUrl: string, token: string): Promise<string> {
  const res = await fetch(`${bareUrl(simcloudUrl)}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientIdOf(token)}:${token}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
  });
  if (!res.ok) throw new Error(`Brightbox token endpoint: HTTP ${res.status}`);
  return TokenAnswer.parse(await res.json()).access_token;
}
