// The cloud a sandbox presents (`sandbox:up --cloud`): simcloud's own /v1 API, or the Hetzner Cloud
// persona simcloud serves under /hcloud/v1, the Linode persona under /v4, or the DigitalOcean persona under
// /v2, over the same store. This
// module owns what differs per cloud for the sandbox: the endpoint a CCM is given, its environment, and
// the command line of the cloud's own CCM.
import { regionById, zoneById } from '../../simulator/server/resources/catalogue/data.ts';

export const CLOUDS = ['simcloud', 'hcloud', 'linode', 'digitalocean'] as const;
export type CloudKind = (typeof CLOUDS)[number];
export const DEFAULT_CLOUD: CloudKind = 'simcloud';

export function isCloudKind(value: string): value is CloudKind {
  return (CLOUDS as readonly string[]).includes(value);
}

/** Where simcloud mounts its Hetzner dialect. */
export const HCLOUD_API_PREFIX = '/hcloud/v1';

/** HCLOUD_ENDPOINT for a simcloud at `simcloudUrl` (hcloud-go appends resource paths to it). */
export function hcloudEndpoint(simcloudUrl: string): string {
  return `${simcloudUrl.replace(/\/+$/, '')}${HCLOUD_API_PREFIX}`;
}

/** The Hetzner location of a simcloud zone: its region (the dialect shows zones as datacenters). */
export function hcloudLocationOf(zone: string): string {
  const region = zoneById(zone)?.region;
  const location = region === undefined ? undefined : regionById(region)?.name;
  if (location === undefined) throw new Error(`simcloud has no zone ${zone}`);
  return location;
}

export interface HcloudEnvOptions {
  readonly simcloudUrl: string;
  readonly token: string;
  /** The cluster network's name: nodes' InternalIPs and pod routes. */
  readonly network: string;
  /** Where load balancers are created (HCLOUD_LOAD_BALANCERS_LOCATION). */
  readonly location: string;
}

/**
 * The environment of a CCM for the Hetzner persona, read alike by our Go CCM's hcloud provider and by
 * Hetzner's own CCM. The last two settings keep Hetzner's CCM on loopback: its network check would ask
 * the metadata service (a link-local address), and its metrics would listen on every interface.
 */
export function hcloudCcmEnv(o: HcloudEnvOptions): Record<string, string> {
  return {
    HCLOUD_ENDPOINT: hcloudEndpoint(o.simcloudUrl),
    HCLOUD_TOKEN: o.token,
    HCLOUD_NETWORK: o.network,
    HCLOUD_LOAD_BALANCERS_LOCATION: o.location,
    HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK: 'true',
    HCLOUD_METRICS_ENABLED: 'false',
  };
}

/** Hetzner's CCM binary, as its releases name it. */
export const HCLOUD_CCM_BINARY = 'hcloud-cloud-controller-manager';

/**
 * The `--ccm-command` that runs Hetzner's CCM in the sandbox's slot: the flags its deployment manifests
 * pass, plus the sandbox's kubeconfig and pod network from the environment the slot gives a command
 * (KUBECONFIG, CCM_SANDBOX_CLUSTER_CIDR), serving on loopback only.
 */
export function hcloudCcmCommand(binary = HCLOUD_CCM_BINARY): string {
  return [
    binary,
    '--cloud-provider=hcloud',
    '--allow-untagged-cloud',
    '--kubeconfig="$KUBECONFIG"',
    '--authentication-kubeconfig="$KUBECONFIG"',
    '--authorization-kubeconfig="$KUBECONFIG"',
    '--cluster-cidr="$CCM_SANDBOX_CLUSTER_CIDR"',
    '--allocate-node-cidrs=false',
    '--configure-cloud-routes=true',
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    '--webhook-secure-port=0',
  ].join(' ');
}

/** Where simcloud mounts its Linode dialect: linodego keeps only the scheme, host and version of LINODE_URL. */
export const LINODE_API_PREFIX = '/v4';

/** LINODE_URL for a simcloud at `simcloudUrl`. */
export function linodeUrl(simcloudUrl: string): string {
  return `${simcloudUrl.replace(/\/+$/, '')}${LINODE_API_PREFIX}`;
}

/** The Linode region of a simcloud zone: the dialect shows simcloud's regions by id. */
export function linodeRegionOf(zone: string): string {
  const region = zoneById(zone)?.region;
  if (region === undefined) throw new Error(`simcloud has no zone ${zone}`);
  return region;
}

/** The environment Linode's CCM reads, and our Go CCM's linode provider with it. */
export function linodeCcmEnv(o: { readonly simcloudUrl: string; readonly token: string; readonly region: string }): Record<string, string> {
  return { LINODE_API_TOKEN: o.token, LINODE_URL: linodeUrl(o.simcloudUrl), LINODE_REGION: o.region };
}

/** Linode's CCM binary, as its releases name it. */
export const LINODE_CCM_BINARY = 'linode-cloud-controller-manager';

/**
 * The `--ccm-command` that runs Linode's CCM in the sandbox's slot: the kubeconfig from the slot's
 * environment, serving on loopback only, and no route controller (off unless --enable-route-controller;
 * docs/personas.md has the flags for the dialect's VPCs).
 */
export function linodeCcmCommand(binary = LINODE_CCM_BINARY): string {
  return routelessCcmCommand(binary, 'linode');
}

/** A cloud's own CCM in the slot without routes: the slot's kubeconfig, serving on loopback only. */
function routelessCcmCommand(binary: string, provider: string): string {
  return [
    binary,
    `--cloud-provider=${provider}`,
    '--kubeconfig="$KUBECONFIG"',
    '--authentication-kubeconfig="$KUBECONFIG"',
    '--authorization-kubeconfig="$KUBECONFIG"',
    '--allocate-node-cidrs=false',
    '--configure-cloud-routes=false',
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    '--secure-port=0',
  ].join(' ');
}

/** DigitalOcean's region of a simcloud zone: the dialect names regions by simcloud's region id, as Linode's does. */
export const digitaloceanRegionOf = linodeRegionOf;

/**
 * DO_OVERRIDE_URL for a simcloud at `simcloudUrl`: its bare root, since godo starts some paths at the
 * root (/v2/load_balancers) and joins others to the base URL.
 */
export function digitaloceanUrl(simcloudUrl: string): string {
  return `${simcloudUrl.replace(/\/+$/, '')}/`;
}

/** The environment DigitalOcean's CCM reads, and our Go CCM's digitalocean provider with it. */
export function digitaloceanCcmEnv(o: { readonly simcloudUrl: string; readonly token: string; readonly region: string }): Record<string, string> {
  return { DO_ACCESS_TOKEN: o.token, DO_OVERRIDE_URL: digitaloceanUrl(o.simcloudUrl), REGION: o.region };
}

/** DigitalOcean's CCM binary, as its releases name it. */
export const DIGITALOCEAN_CCM_BINARY = 'digitalocean-cloud-controller-manager';

/**
 * The `--ccm-command` that runs DigitalOcean's CCM in the sandbox's slot: the kubeconfig from the slot's
 * environment, serving on loopback only, and no routes (DigitalOcean's CCM has no route controller).
 */
export function digitaloceanCcmCommand(binary = DIGITALOCEAN_CCM_BINARY): string {
  return routelessCcmCommand(binary, 'digitalocean');
}
