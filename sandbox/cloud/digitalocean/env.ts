// How a CCM is pointed at simcloud's DigitalOcean persona (/v2): the override URL, the environment
// DigitalOcean's CCM and the upstream Go CCM's digitalocean provider read alike, and the command line of
// DigitalOcean's own CCM.
import type { CcmEnvInput } from '../descriptor.ts';
import { linodeRegionOf, routelessCcmCommand } from '../linode/env.ts';

/** DigitalOcean's region of a simcloud zone: the persona names regions by simcloud's region id, as Linode's does. */
export const digitaloceanRegionOf = linodeRegionOf;

/**
 * DO_OVERRIDE_URL for a simcloud at `simcloudUrl`: its bare root, since godo starts some paths at the
 * root (/v2/load_balancers) and joins others to the base URL.
 */
export function digitaloceanUrl(simcloudUrl: string): string {
  return `${simcloudUrl.replace(/\/+$/, '')}/`;
}

/**
 * Where DigitalOcean's CCM serves its Prometheus metrics: loopback, on a port the kernel picks. Unset, it
 * listens on port 80 of every interface; its only other listener of its own (DEBUG_ADDR) stays off unless
 * set, and the cloud-provider framework's serving port is the command line's (--bind-address, --secure-port).
 */
export const DIGITALOCEAN_METRICS_ADDR = '127.0.0.1:0';

/** The environment DigitalOcean's CCM reads, and our Go CCM's digitalocean provider with it (which ignores METRICS_ADDR). */
export function digitaloceanCcmEnv(i: Pick<CcmEnvInput, 'simcloudUrl' | 'token' | 'zone'>): Record<string, string> {
  return {
    DO_ACCESS_TOKEN: i.token,
    DO_OVERRIDE_URL: digitaloceanUrl(i.simcloudUrl),
    REGION: digitaloceanRegionOf(i.zone),
    METRICS_ADDR: DIGITALOCEAN_METRICS_ADDR,
  };
}

/** DigitalOcean's CCM binary, as its releases name it. */
export const DIGITALOCEAN_CCM_BINARY = 'digitalocean-cloud-controller-manager';

/**
 * The `--ccm-command` that runs DigitalOcean's CCM in the slot: the kubeconfig from the slot's
 * environment, serving on loopback only, and no routes (DigitalOcean's CCM has no route controller).
 */
export function digitaloceanCcmCommand(binary = DIGITALOCEAN_CCM_BINARY): string {
  return routelessCcmCommand(binary, 'digitalocean');
}
