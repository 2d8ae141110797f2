// The phoenixNAP persona as the sandbox presents it: servers made through the BMC API, phoenixNAP's CCM
// environment (client credentials), and the IP-block strategy's load balancer read back: the IP block holding
// the Service's address as phoenixNAP's IP API shows it, and what carries its traffic (phoenixNAP has no load
// balancers: simcloud's load balancer on the block, as the native ip-block strategy has it) through /v1.
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import { LoadBalancer } from '../../../simulator/api/schema/load-balancers.ts';
import { cidrContains, nthAddress } from '../../../lib/ip.ts';
import { IPS, pnapIdOf, simIdOf } from '../../../simulator/personas/phoenixnap/common.ts';
import { simcloudCloud } from '../simcloud/cloud.ts';
import { defineCloud, type CloudLoadBalancerView, type CloudReadContext } from '../descriptor.ts';
import { PHOENIXNAP_CCM_BINARY, phoenixnapAccessToken, phoenixnapCcmCommand, phoenixnapCcmEnv, phoenixnapUrl } from './env.ts';
import { preparePhoenixnapCcm } from './ccm-config.ts';
import { PhoenixnapMachines } from './machines.ts';

const IpBlocks = z.array(
  z.looseObject({
    id: z.string(),
    cidr: z.string(),
    cidrBlockSize: z.string(),
    location: z.string(),
    status: z.string(),
    assignedResourceId: z.string().optional(),
    assignedResourceType: z.string().optional(),
    tags: z.array(z.object({ name: z.string(), value: z.string().optional() })).optional(),
  }),
);
type PnapBlock = z.infer<typeof IpBlocks>[number];
const LbAnswer = z.object({ load_balancer: LoadBalancer });

/** The tag phoenixNAP's CCM puts on the blocks it makes (and our provider with it). */
export const PNAP_USAGE = { name: 'usage', value: 'cloud-provider-phoenixnap-auto' } as const;

async function findBlock(ctx: CloudReadContext, vip: string): Promise<PnapBlock | undefined> {
  const bearer = await phoenixnapAccessToken(ctx.simcloud.url, ctx.simcloud.token);
  const api = buildRequester({ endpoint: ctx.simcloud.url, token: bearer, caller: 'ccm-sandbox conformance' });
  const blocks = await api.call('conformance.phoenixnap.ipBlocks.list', IpBlocks, { method: 'GET', path: `${IPS}/ip-blocks` });
  return blocks.find((b) => cidrContains(b.cidr, vip));
}

async function readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  const block = await findBlock(ctx, vip);
  if (block === undefined) return undefined;
  // phoenixNAP's own CCM: the block on the cluster's public network, its address announced by a node (kube-vip).
  if (block.assignedResourceType === 'PUBLIC_NETWORK') return { id: block.id, ports: [], serverIds: [], announced: true };
  if (block.assignedResourceType !== 'load-balancer' || block.assignedResourceId === undefined) return { id: block.id, ports: [], serverIds: [], raw: block };
  const { load_balancer: lb } = await ctx.api.call('conformance.loadBalancers.get', LbAnswer, {
    method: 'GET',
    path: `/v1/load_balancers/${simIdOf('lb', block.assignedResourceId)}`,
  });
  return {
    id: block.id,
    ports: lb.services.map((s) => s.listen_port),
    serverIds: lb.resolved_targets.flatMap((t) => (t.server_id === null ? [] : [t.server_id])),
    raw: { ...block, load_balancer: lb },
  };
}

/** What phoenixNAP's IP API shows of the Service's block: a /29 in the location, tagged by the CCM, the address its third. */
async function checkAnnotated(ctx: CloudReadContext, vip: string): Promise<string[]> {
  const b = await findBlock(ctx, vip);
  if (b === undefined) return [`no IP block holding ${vip} in GET ${IPS}/ip-blocks`];
  const problems: string[] = [];
  if (b.cidrBlockSize !== '/29') problems.push(`the block is ${b.cidrBlockSize}, not /29`);
  if (b.location !== 'sim-1') problems.push(`the block is in ${b.location}, not sim-1`);
  if (nthAddress(b.cidr, 2) !== vip) problems.push(`${vip} is not the third address of ${b.cidr}`);
  if (!(b.tags ?? []).some((t) => t.name === PNAP_USAGE.name && t.value === PNAP_USAGE.value))
    problems.push(`the block has no tag ${PNAP_USAGE.name}=${PNAP_USAGE.value}`);
  return problems;
}

export const phoenixnapCloud = defineCloud({
  kind: 'phoenixnap',
  title: 'phoenixNAP',
  apiUrl: (simcloudUrl) => `${phoenixnapUrl(simcloudUrl)}/bmc/v1`,
  tokenVariable: 'PNAP_CLIENT_SECRET',
  // phoenixNAP's APIs on one host, its identity service (Keycloak) on another.
  realHosts: [
    { name: 'api.phoenixnap.com', mount: '/pnap', paths: ['/bmc/v1', '/ips/v1', '/networks/v1', '/tag-manager/v1'] },
    { name: 'auth.phoenixnap.com', mount: '/pnap', paths: ['/auth/realms/BMC'] },
  ],
  clients: 'any go-sdk-bmc program with an OAuth2 client-credentials client (PNAP_CLIENT_ID, PNAP_CLIENT_SECRET, PNAP_TOKEN_URL)',
  // phoenixNAP's CCM writes phoenixnap://<server id>.
  providerId: (serverId) => `phoenixnap://${pnapIdOf(serverId)}`,
  // The BMC, IP and networks APIs' resources; phoenixNAP has no load balancer of its own.
  nouns: { srv: 'Server', ipb: 'IP Block', net: 'Private Network' },
  personaId: (id) => (/^(srv|ipb|net)-/.test(id) ? pnapIdOf(id) : undefined),
  ccmEnv: phoenixnapCcmEnv,
  // phoenixNAP's CCM has no route controller, nor our provider.
  upstream: { provider: 'phoenixnap', routes: false, extraArgs: [] },
  builtinCcm: false,
  ownCcm: {
    binary: PHOENIXNAP_CCM_BINARY,
    command: phoenixnapCcmCommand,
    note: "it reaches auth.phoenixnap.com and api.phoenixnap.com, compiled in, through the sandbox's interception proxy (HTTPS_PROXY, SSL_CERT_FILE); its load balancers are kube-vip's model on the cluster's public network",
  },
  // Its load balancers read the kube-system namespace's UID (the cluster id in its tags); it exits without.
  ccmRbacRules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
  prepareCcm: async (o) => void (await preparePhoenixnapCcm(o)),
  kubeVip: true,
  machines: (o) => new PhoenixnapMachines(o),
  conformance: {
    notOffered: {
      // Our provider offers simcloud's annotations on the simcloud load balancer it puts on the block (below).
      'lb-annotations': {
        ccms: ['command'],
        reason: "phoenixNAP has no load balancer to configure: its own CCM's one annotation is phoenixnap.com/ip-location, and kube-vip announces the address",
      },
      routes: { ccms: ['command', 'upstream'], reason: "phoenixNAP's networks API has no routes, and its own CCM no route controller" },
    },
    nodeLabels: {},
    lookupSecondary: { none: "phoenixNAP's CCM reads addresses from the server record (phoenixnap/instances.go)" },
    goneStatuses: [
      { status: 404, evidence: "phoenixNAP's CCM reads a 404 on GET /bmc/v1/servers/{id} as the instance not found (phoenixnap/instances.go)" },
      { status: 403, evidence: 'phoenixNAP answers 403 for a deleted server, k8s-cloud-provider-bmc d84a2c5' },
    ],
    zones: false,
    sourceRanges: false,
    healthChecks: { none: 'phoenixNAP has no load balancer: its CCM assigns an IP block whose address a node announces (kube-vip), with no health check' },
    proxyProtocol: {
      none: 'phoenixNAP has no load balancer: its CCM assigns an IP block whose address a node announces (kube-vip), and nothing in between sends a PROXY header',
    },
    // phoenixNAP's CCM has one annotation (phoenixnap.com/ip-location) and no load balancer; the block's traffic is
    // carried by simcloud's load balancer on it, whose settings are simcloud's own annotations.
    annotations: simcloudCloud.conformance.annotations,
    tls: {
      none: 'phoenixNAP has no load balancer: its CCM assigns an IP block whose address a node announces (kube-vip), and nothing in between terminates TLS',
    },
    readLoadBalancer,
    checkAnnotated,
  },
});
