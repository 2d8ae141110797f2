// How a CCM is pointed at simcloud's Hetzner persona (/hcloud/v1): the endpoint, the environment Hetzner's
// CCM and the upstream Go CCM's hcloud provider read alike, and the command line of Hetzner's own CCM.
import { regionById, zoneById } from '../../../simulator/server/resources/catalogue/data.ts';
import { bareUrl, type CcmEnvInput } from '../descriptor.ts';

/** Where simcloud mounts its Hetzner persona. */
export const HCLOUD_API_PREFIX = '/hcloud/v1';

/** HCLOUD_ENDPOINT for a simcloud at `simcloudUrl` (hcloud-go appends resource paths to it). */
export function hcloudEndpoint(simcloudUrl: string): string {
  return `${bareUrl(simcloudUrl)}${HCLOUD_API_PREFIX}`;
}

/** The Hetzner location of a simcloud zone: its region (the persona shows zones as datacenters). */
export function hcloudLocationOf(zone: string): string {
  const region = zoneById(zone)?.region;
  const location = region === undefined ? undefined : regionById(region)?.name;
  if (location === undefined) throw new Error(`simcloud has no zone ${zone}`);
  return location;
}

/**
 * The environment of a CCM for the Hetzner persona. The load balancer type is the default a Service's
 * `load-balancer.hetzner.cloud/type` annotation overrides: Hetzner's CCM warns on every Service without one
 * (LoadBalancerTypeUnconfigured: "this will be required in the future"). The last two settings keep Hetzner's
 * CCM on loopback: its network check would ask the metadata service (a link-local address), and its metrics
 * would listen on every interface.
 */
export function hcloudCcmEnv(i: Pick<CcmEnvInput, 'simcloudUrl' | 'token' | 'network' | 'zone'>): Record<string, string> {
  return {
    HCLOUD_ENDPOINT: hcloudEndpoint(i.simcloudUrl),
    HCLOUD_TOKEN: i.token,
    HCLOUD_NETWORK: i.network,
    HCLOUD_LOAD_BALANCERS_LOCATION: hcloudLocationOf(i.zone),
    HCLOUD_LOAD_BALANCERS_TYPE: 'lb11',
    HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK: 'true',
    HCLOUD_METRICS_ENABLED: 'false',
  };
}

/** Hetzner's CCM binary, as its releases name it. */
export const HCLOUD_CCM_BINARY = 'hcloud-cloud-controller-manager';

/**
 * The `--ccm-command` that runs Hetzner's CCM in the sandbox's slot: the flags its deployment manifests
 * pass (deploy/ccm-networks.yaml: routes reconciled on Node changes, as the feature gate turns on, and every
 * 30 s), plus the sandbox's kubeconfig and pod network from the environment the slot gives a command
 * (KUBECONFIG, CCM_SANDBOX_CLUSTER_CIDR), serving on loopback only. Without the feature gate its route
 * controller tries before the Nodes have addresses, fails, and leaves them NetworkUnavailable (pods
 * unschedulable) until its next period.
 */
export function hcloudCcmCommand(binary = HCLOUD_CCM_BINARY): string {
  return [
    binary,
    '--cloud-provider=hcloud',
    '--allow-untagged-cloud',
    '--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true',
    '--route-reconciliation-period=30s',
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
