// How a CCM is pointed at simcloud's Linode persona (/v4): the URL, the environment Linode's CCM and the
// upstream Go CCM's linode provider read alike, and the command line of Linode's own CCM.
import { zoneById } from '../../../simulator/server/resources/catalogue/data.ts';
import { bareUrl, type CcmEnvInput } from '../descriptor.ts';

/** Where simcloud mounts its Linode persona: linodego keeps only the scheme, host and version of LINODE_URL. */
export const LINODE_API_PREFIX = '/v4';

/** LINODE_URL for a simcloud at `simcloudUrl`. */
export function linodeUrl(simcloudUrl: string): string {
  return `${bareUrl(simcloudUrl)}${LINODE_API_PREFIX}`;
}

/** The Linode region of a simcloud zone: the persona shows simcloud's regions by id. */
export function linodeRegionOf(zone: string): string {
  const region = zoneById(zone)?.region;
  if (region === undefined) throw new Error(`simcloud has no zone ${zone}`);
  return region;
}

/** The environment Linode's CCM reads, and our Go CCM's linode provider with it. */
export function linodeCcmEnv(i: Pick<CcmEnvInput, 'simcloudUrl' | 'token' | 'zone'>): Record<string, string> {
  return { LINODE_API_TOKEN: i.token, LINODE_URL: linodeUrl(i.simcloudUrl), LINODE_REGION: linodeRegionOf(i.zone) };
}

/** Linode's CCM binary, as its releases name it. */
export const LINODE_CCM_BINARY = 'linode-cloud-controller-manager';

/** A cloud's own CCM in the slot without routes: the slot's kubeconfig, serving on loopback only. */
export function routelessCcmCommand(binary: string, provider: string): string {
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

/**
 * The `--ccm-command` that runs Linode's CCM in the slot: the kubeconfig from the slot's environment,
 * serving on loopback only, NodeBalancers tagged with the cluster's name, and its route controller on the
 * cluster's VPC (the network is a VPC labelled with the cluster's name; its first subnet is `default`, the
 * CCM's `--subnet-names` default): pod CIDRs become the nodes' VPC `ip_ranges`.
 */
export function linodeCcmCommand(binary = LINODE_CCM_BINARY): string {
  return routelessCcmCommand(binary, 'linode')
    .replace('--configure-cloud-routes=false', '--configure-cloud-routes=true --cluster-cidr="$CCM_SANDBOX_CLUSTER_CIDR"')
    .concat(' --cluster-name="$CCM_SANDBOX_CLUSTER_NAME" --enable-route-controller --vpc-names="$CCM_SANDBOX_CLUSTER_NAME"');
}
