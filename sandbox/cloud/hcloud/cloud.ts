// The Hetzner Cloud persona as the sandbox presents it: servers and the network made through /hcloud/v1,
// Hetzner's CCM environment, and a load balancer read back as Hetzner's API shows it (its addresses, reverse
// DNS, type, algorithm and services).
import { z } from 'zod';
import { numericIdOf, simcloudId } from '../../../simulator/personas/numeric-ids.ts';
import { presentHcloudPrivateIp } from '../../../simulator/personas/hcloud/addresses.ts';
import { defineCloud, type CloudLoadBalancerView, type CloudReadContext } from '../descriptor.ts';
import { HCLOUD_API_PREFIX, HCLOUD_CCM_BINARY, hcloudCcmCommand, hcloudCcmEnv, hcloudEndpoint } from './env.ts';
import { HcloudMachines } from './machines.ts';

const ServerRef = z.object({ type: z.literal('server'), server: z.object({ id: z.number() }) });
const Target = z.union([ServerRef, z.object({ type: z.literal('label_selector'), targets: z.array(ServerRef).nullish() }), z.object({ type: z.string() })]);
const HealthCheck = z.object({
  protocol: z.string(),
  port: z.number(),
  interval: z.number(),
  timeout: z.number(),
  retries: z.number(),
  http: z.object({ path: z.string() }).nullish(),
});
const Address = z.object({ ip: z.string().nullable(), dns_ptr: z.string().nullable() });
const LoadBalancer = z.looseObject({
  id: z.number(),
  public_net: z.object({ ipv4: Address, ipv6: Address }),
  services: z.array(z.object({ listen_port: z.number(), proxyprotocol: z.boolean(), health_check: HealthCheck })),
  targets: z.array(Target),
  load_balancer_type: z.object({ name: z.string() }),
  algorithm: z.object({ type: z.string() }),
});
const LoadBalancers = z.object({ load_balancers: z.array(LoadBalancer) });

type HcloudTarget = z.infer<typeof Target>;
const serversOf = (t: HcloudTarget): number[] => {
  if ('server' in t) return [t.server.id];
  if ('targets' in t) return (t.targets ?? []).map((x) => x.server.id);
  return [];
};

async function loadBalancer(ctx: CloudReadContext, vip: string): Promise<z.infer<typeof LoadBalancer> | undefined> {
  const res = await ctx.api.call('conformance.hcloud.loadBalancers.list', LoadBalancers, {
    method: 'GET',
    path: `${HCLOUD_API_PREFIX}/load_balancers`,
    query: { per_page: 50 },
  });
  return res.load_balancers.find((x) => x.public_net.ipv4.ip === vip);
}

async function readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  const lb = await loadBalancer(ctx, vip);
  if (lb === undefined) return undefined;
  return {
    id: String(lb.id),
    ports: lb.services.map((s) => s.listen_port),
    serverIds: lb.targets.flatMap(serversOf).map((n) => simcloudId('srv', n)),
    raw: lb,
    healthChecks: lb.services.map((s) => ({ listenPort: s.listen_port, port: s.health_check.port, protocol: s.health_check.protocol })),
  };
}

/** The annotated load balancer's reverse DNS names: Hetzner's CCM sends each with its address to change_dns_ptr. */
const RDNS = { 'ipv4-rdns': 'v4.conformance.example.test', 'ipv6-rdns': 'v6.conformance.example.test' } as const;

/** The settings traffic cannot show, as Hetzner's API shows them: type, algorithm, services, both addresses' reverse DNS. */
async function checkAnnotated(ctx: CloudReadContext, vip: string): Promise<string[]> {
  const lb = await loadBalancer(ctx, vip);
  if (lb === undefined) return [`no load balancer with the address ${vip} in GET ${HCLOUD_API_PREFIX}/load_balancers`];
  const problems: string[] = [];
  const expect = (what: string, have: unknown, want: unknown): void => {
    if (have !== want) problems.push(`${what} is ${JSON.stringify(have)}, not ${JSON.stringify(want)}`);
  };
  expect('load_balancer_type', lb.load_balancer_type.name, 'lb21');
  expect('algorithm', lb.algorithm.type, 'least_connections');
  for (const s of lb.services) {
    const hc = s.health_check;
    const seen = {
      proxyprotocol: s.proxyprotocol,
      protocol: hc.protocol,
      path: hc.http?.path,
      interval: hc.interval,
      timeout: hc.timeout,
      retries: hc.retries,
    };
    for (const [k, v] of Object.entries({ proxyprotocol: true, protocol: 'http', path: '/healthz', interval: 1, timeout: 1, retries: 1 }))
      expect(`service ${s.listen_port} ${k}`, seen[k as keyof typeof seen], v);
  }
  expect('public_net.ipv4.dns_ptr', lb.public_net.ipv4.dns_ptr, RDNS['ipv4-rdns']);
  expect('public_net.ipv6.dns_ptr', lb.public_net.ipv6.dns_ptr, RDNS['ipv6-rdns']);
  if (!/^2001:db8:/.test(lb.public_net.ipv6.ip ?? ''))
    problems.push(`public_net.ipv6.ip is ${JSON.stringify(lb.public_net.ipv6.ip)}, not an address of 2001:db8::/32`);
  return problems;
}

export const hcloudCloud = defineCloud({
  kind: 'hcloud',
  title: 'Hetzner Cloud',
  apiUrl: hcloudEndpoint,
  tokenVariable: 'HCLOUD_TOKEN',
  realHosts: [{ name: 'api.hetzner.cloud', mount: '/hcloud', paths: ['/v1'] }],
  clients: "any hcloud-go program (the hcloud CLI, Hetzner's CCM)",
  providerId: (serverId) => `hcloud://${numericIdOf(serverId)}`,
  lbNameAnnotation: 'load-balancer.hetzner.cloud/name',
  nouns: { srv: 'Server', lb: 'Load Balancer', net: 'Network' },
  personaId: (id) => (/^(srv|lb|net)-/.test(id) ? String(numericIdOf(id)) : undefined),
  presentedPrivateIp: (server) => (server.private_ipv4 === null ? null : presentHcloudPrivateIp(server.private_ipv4)),
  ccmEnv: hcloudCcmEnv,
  upstream: { provider: 'hcloud', routes: true, extraArgs: ['--allow-untagged-cloud'] },
  builtinCcm: false,
  ownCcm: {
    binary: HCLOUD_CCM_BINARY,
    command: hcloudCcmCommand,
    note: 'the slot passes the HCLOUD_* variables above, its kubeconfig and the pod network',
  },
  machines: (o) => new HcloudMachines(o),
  conformance: {
    nodeLabels: { 'instance.hetzner.cloud/provided-by': 'cloud' },
    lookupSecondary: {
      none: "Hetzner's CCM reads private addresses from the server's private_net (hcloud/instances.go); its network GET happens once at start",
    },
    zones: true,
    // Hetzner's CCM (since v1.35) writes an older location's legacy datacenter name, else the location itself:
    // the region for simcloud's locations, not the datacenter (sim-1a) the persona shows.
    zoneLabel: (server) => server.region,
    sourceRanges: false,
    healthChecks: {
      fast: {
        'load-balancer.hetzner.cloud/health-check-interval': '1s',
        'load-balancer.hetzner.cloud/health-check-timeout': '1s',
        'load-balancer.hetzner.cloud/health-check-retries': '1',
      },
    },
    proxyProtocol: { annotations: { 'load-balancer.hetzner.cloud/uses-proxyprotocol': 'true' } },
    annotations: {
      prefix: 'load-balancer.hetzner.cloud/',
      values: {
        'uses-proxyprotocol': 'true',
        'health-check-protocol': 'http',
        'health-check-http-path': '/unhealthy',
        'health-check-interval': '1s',
        'health-check-timeout': '1s',
        'health-check-retries': '1',
        type: 'lb21',
        'algorithm-type': 'least_connections',
        ...RDNS,
      },
      healthPathKey: 'health-check-http-path',
    },
    // An uploaded certificate (as `hcloud certificate create` makes one), named on an https service; redirect_http
    // adds the http listener on port 80 itself.
    tls: {
      async upload(ctx, c) {
        await ctx.api.call('conformance.hcloud.certificates.create', z.object({ certificate: z.object({ id: z.number() }) }), {
          method: 'POST',
          path: `${HCLOUD_API_PREFIX}/certificates`,
          body: { name: c.name, type: 'uploaded', certificate: c.chain, private_key: c.key },
        });
        return {
          'load-balancer.hetzner.cloud/protocol': 'https',
          'load-balancer.hetzner.cloud/http-certificates': c.name,
          'load-balancer.hetzner.cloud/http-redirect-http': 'true',
        };
      },
      servicePorts: [443],
      redirect: true,
    },
    readLoadBalancer,
    checkAnnotated,
  },
});
