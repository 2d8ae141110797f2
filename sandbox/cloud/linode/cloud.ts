// The Linode persona as the sandbox presents it: instances made through /v4, Linode's CCM environment,
// and a NodeBalancer read back as Linode's API shows it (its configs and their nodes).
import { z } from 'zod';
import { presentPrivateIp } from '../../../simulator/personas/linode/addresses.ts';
import { numericIdOf } from '../../../simulator/personas/numeric-ids.ts';
import { defineCloud, type CloudLoadBalancerView, type CloudReadContext } from '../descriptor.ts';
import { LINODE_API_PREFIX, LINODE_CCM_BINARY, linodeCcmCommand, linodeCcmEnv, linodeUrl } from './env.ts';
import { LinodeMachines } from './machines.ts';

const NodeBalancers = z.object({
  data: z.array(z.looseObject({ id: z.number(), ipv4: z.string(), client_conn_throttle: z.number(), tags: z.array(z.string()) })),
});
const Config = z.looseObject({
  id: z.number(),
  port: z.number(),
  protocol: z.string(),
  proxy_protocol: z.string(),
  algorithm: z.string(),
  check: z.string(),
  check_path: z.string(),
  check_interval: z.number(),
  check_timeout: z.number(),
  check_attempts: z.number(),
});
const Configs = z.object({ data: z.array(Config) });
const Nodes = z.object({ data: z.array(z.object({ address: z.string() })) });

async function nodeBalancer(ctx: CloudReadContext, vip: string): Promise<z.infer<typeof NodeBalancers>['data'][number] | undefined> {
  const { data } = await ctx.api.call('conformance.linode.nodebalancers.list', NodeBalancers, {
    method: 'GET',
    path: `${LINODE_API_PREFIX}/nodebalancers`,
    query: { page_size: 500 },
  });
  return data.find((x) => x.ipv4 === vip);
}

const configsOf = async (ctx: CloudReadContext, id: number): Promise<z.infer<typeof Config>[]> =>
  (await ctx.api.call('conformance.linode.configs.list', Configs, { method: 'GET', path: `${LINODE_API_PREFIX}/nodebalancers/${id}/configs` })).data;

async function readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  const nb = await nodeBalancer(ctx, vip);
  if (nb === undefined) return undefined;
  const configs = await configsOf(ctx, nb.id);
  const addresses = new Set<string>();
  for (const c of configs) {
    const nodes = await ctx.api.call('conformance.linode.nodes.list', Nodes, {
      method: 'GET',
      path: `${LINODE_API_PREFIX}/nodebalancers/${nb.id}/configs/${c.id}/nodes`,
    });
    for (const n of nodes.data) addresses.add(n.address.slice(0, n.address.lastIndexOf(':')));
  }
  // A NodeBalancer's nodes are addresses: the servers holding them as their private address, as presented
  // (the private IPv4, or the VPC address a CCM in VPC mode gives).
  const holds = (ip: string): boolean => addresses.has(presentPrivateIp(ip)) || addresses.has(presentPrivateIp(ip, ip, 'vpc'));
  const serverIds = ctx.servers.filter((s) => s.private_ipv4 !== null && holds(s.private_ipv4)).map((s) => s.id);
  return { id: String(nb.id), ports: configs.map((c) => c.port), serverIds, raw: { ...nb, configs } };
}

/** The settings traffic cannot show, as Linode's API shows them on the NodeBalancer and its config. */
async function checkAnnotated(ctx: CloudReadContext, vip: string): Promise<string[]> {
  const nb = await nodeBalancer(ctx, vip);
  if (nb === undefined) return [`no NodeBalancer with the address ${vip} in GET /v4/nodebalancers`];
  const problems: string[] = [];
  if (nb.client_conn_throttle !== 0) problems.push(`client_conn_throttle is ${nb.client_conn_throttle}, not 0`);
  if (!nb.tags.includes('conformance')) problems.push(`tags are ${JSON.stringify(nb.tags)}, without "conformance"`);
  const want = {
    protocol: 'tcp',
    proxy_protocol: 'v1',
    algorithm: 'leastconn',
    check: 'http',
    check_path: '/healthz',
    check_interval: 2,
    check_timeout: 1,
    check_attempts: 1,
  };
  for (const c of await configsOf(ctx, nb.id)) {
    for (const [k, v] of Object.entries(want))
      if (c[k as keyof typeof want] !== v)
        problems.push(`config ${c.id} (port ${c.port}): ${k} is ${JSON.stringify(c[k as keyof typeof want])}, not ${JSON.stringify(v)}`);
  }
  return problems;
}

/**
 * What Linode's own manifests (its helm chart's ClusterRole, deploy/chart/templates/clusterrole-rbac.yaml, and
 * deploy/ccm-linode-template.yaml) grant its CCM beyond upstream's role: Secrets to read a Service's TLS
 * certificate, endpoints, cluster-wide leases and persistent volumes, and read verbs on what upstream lets it write.
 */
const LINODE_CCM_RBAC = [
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
  { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'watch', 'list', 'update', 'create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'watch', 'list', 'update', 'create'] },
  { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'watch', 'list', 'update'] },
  { apiGroups: [''], resources: ['nodes/status', 'services/status'], verbs: ['get', 'watch', 'list'] },
  { apiGroups: [''], resources: ['nodes/status'], verbs: ['delete'] },
  { apiGroups: [''], resources: ['events'], verbs: ['get', 'watch', 'list'] },
] as const;

export const linodeCloud = defineCloud({
  kind: 'linode',
  title: 'Linode',
  apiUrl: linodeUrl,
  tokenVariable: 'LINODE_API_TOKEN',
  realHosts: [{ name: 'api.linode.com', mount: '', paths: ['/v4'] }],
  clients: "any linodego program (linode-cli, Linode's CCM)",
  providerId: (serverId) => `linode://${numericIdOf(serverId)}`,
  nouns: { srv: 'Linode', lb: 'NodeBalancer', net: 'VPC' },
  personaId: (id) => (/^(srv|lb|net)-/.test(id) ? String(numericIdOf(id)) : undefined),
  presentedPrivateIp: (server) => (server.private_ipv4 === null ? null : presentPrivateIp(server.private_ipv4)),
  ccmEnv: linodeCcmEnv,
  // Our linode provider has no Routes: Linode's route controller programs VPC ip_ranges, which it does not.
  upstream: { provider: 'linode', routes: false, extraArgs: [] },
  builtinCcm: false,
  ownCcm: {
    binary: LINODE_CCM_BINARY,
    command: linodeCcmCommand,
    note: "the slot passes the LINODE_* variables above, its kubeconfig and the cluster name and CIDR; its route controller runs on the cluster's VPC",
  },
  ccmRbacRules: LINODE_CCM_RBAC,
  machines: (o) => new LinodeMachines(o),
  conformance: {
    nodeLabels: {},
    lookupSecondary: {
      path: '/v4/vpcs/**',
      what: "the cluster VPC's addresses, GET /v4/vpcs/{id}/ips, on each instance-cache refresh with --vpc-names (cloud/linode/services/instances.go refreshInstances)",
    },
    zones: false,
    sourceRanges: false,
    healthChecks: {
      none: "a NodeBalancer config checks each node on the port it forwards to (the node port): Linode's API has no health-check port of its own to point at healthCheckNodePort",
    },
    proxyProtocol: { annotations: { 'service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol': 'v1' } },
    // Linode's minimum check interval is 2 s; the timeout must stay below it.
    annotations: {
      prefix: 'service.beta.kubernetes.io/linode-loadbalancer-',
      values: {
        'default-proxy-protocol': 'v1',
        'check-type': 'http',
        'check-path': '/unhealthy',
        'check-interval': '2',
        'check-timeout': '1',
        'check-attempts': '1',
        'default-algorithm': 'leastconn',
        throttle: '0',
        tags: 'conformance',
      },
      healthPathKey: 'check-path',
    },
    // Linode's CCM reads the certificate from a kubernetes.io/tls Secret named in the port's configuration; a
    // NodeBalancer has no http-to-https redirect.
    tls: {
      async upload(ctx, c) {
        await ctx.createTlsSecret(c.name, c);
        return { 'service.beta.kubernetes.io/linode-loadbalancer-port-443': JSON.stringify({ 'tls-secret-name': c.name, protocol: 'https' }) };
      },
      servicePorts: [443],
      redirect: false,
    },
    readLoadBalancer,
    checkAnnotated,
  },
});
