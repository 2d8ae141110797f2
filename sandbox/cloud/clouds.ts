// The cloud a sandbox presents (`sandbox:up --cloud`): simcloud's own /v1 API, or the Hetzner Cloud
// persona simcloud serves under /hcloud/v1 over the same store. This module owns what differs per cloud
// for the sandbox: the endpoint a CCM is given, its environment, and the command line of Hetzner's own CCM.
import { regionById, zoneById } from '../../simulator/server/resources/catalogue/data.ts';

export const CLOUDS = ['simcloud', 'hcloud'] as const;
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
