// The DigitalOcean persona as the sandbox presents it: droplets made through /v2, DigitalOcean's CCM
// environment, and a load balancer read back as DigitalOcean's API shows it.
import { z } from 'zod';
import { numericIdOf, simcloudId } from '../../../simulator/personas/numeric-ids.ts';
import { uuidOf } from '../../../simulator/personas/digitalocean/common.ts';
import { presentDigitalOceanPrivateIp } from '../../../simulator/personas/digitalocean/addresses.ts';
import { defineCloud, type CloudLoadBalancerView, type CloudReadContext } from '../descriptor.ts';
import { DIGITALOCEAN_CCM_BINARY, digitaloceanCcmCommand, digitaloceanCcmEnv, digitaloceanUrl } from './env.ts';
import { DigitalOceanMachines } from './machines.ts';

const HealthCheck = z.object({
  protocol: z.string(),
  port: z.number(),
  path: z.string(),
  check_interval_seconds: z.number(),
  response_timeout_seconds: z.number(),
  unhealthy_threshold: z.number(),
  healthy_threshold: z.number(),
});
const LoadBalancers = z.object({
  load_balancers: z.array(
    z.looseObject({
      id: z.string(),
      ip: z.string(),
      status: z.string(),
      enable_proxy_protocol: z.boolean(),
      algorithm: z.string(),
      size_unit: z.number(),
      forwarding_rules: z.array(z.object({ entry_protocol: z.string(), entry_port: z.number(), target_protocol: z.string() })),
      health_check: HealthCheck,
      droplet_ids: z.array(z.number()),
    }),
  ),
});
const UploadedCertificate = z.object({ certificate: z.object({ id: z.string() }) });
type DoLoadBalancer = z.infer<typeof LoadBalancers>['load_balancers'][number];

async function find(ctx: CloudReadContext, vip: string): Promise<DoLoadBalancer | undefined> {
  const res = await ctx.api.call('conformance.digitalocean.loadBalancers.list', LoadBalancers, {
    method: 'GET',
    path: '/v2/load_balancers',
    query: { per_page: 200 },
  });
  return res.load_balancers.find((x) => x.ip === vip);
}

async function readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  const lb = await find(ctx, vip);
  if (lb === undefined) return undefined;
  return {
    id: lb.id,
    ports: lb.forwarding_rules.map((r) => r.entry_port),
    serverIds: lb.droplet_ids.map((n) => simcloudId('srv', n)),
    raw: lb,
    // One health check for the whole load balancer, the same for every forwarding rule.
    healthChecks: lb.forwarding_rules.map((r) => ({ listenPort: r.entry_port, port: lb.health_check.port, protocol: lb.health_check.protocol })),
  };
}

/** The settings traffic cannot show, as DigitalOcean's API shows them on the load balancer. */
async function checkAnnotated(ctx: CloudReadContext, vip: string): Promise<string[]> {
  const lb = await find(ctx, vip);
  if (lb === undefined) return [`no load balancer with the address ${vip} in GET /v2/load_balancers`];
  const want: Record<string, unknown> = {
    status: 'active',
    enable_proxy_protocol: true,
    algorithm: 'least_connections',
    size_unit: 2,
    'health_check.protocol': 'http',
    'health_check.path': '/healthz',
    'health_check.check_interval_seconds': 3,
    'health_check.response_timeout_seconds': 3,
    'health_check.unhealthy_threshold': 2,
    'health_check.healthy_threshold': 2,
  };
  const got = (key: string): unknown => key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], lb);
  const problems = Object.entries(want)
    .filter(([k, v]) => got(k) !== v)
    .map(([k, v]) => `${k} is ${JSON.stringify(got(k))}, not ${JSON.stringify(v)}`);
  const rules = lb.forwarding_rules.map((r) => `${r.entry_protocol}:${r.entry_port}->${r.target_protocol}`);
  if (rules.join() !== 'tcp:8081->tcp') problems.push(`forwarding rules are ${rules.join(', ')}, not tcp:8081->tcp`);
  return problems;
}

export const digitaloceanCloud = defineCloud({
  kind: 'digitalocean',
  title: 'DigitalOcean',
  apiUrl: (simcloudUrl) => `${digitaloceanUrl(simcloudUrl)}v2`,
  tokenVariable: 'DO_ACCESS_TOKEN',
  realHosts: [{ name: 'api.digitalocean.com', mount: '', paths: ['/v2'] }],
  clients: "any godo program (doctl, DigitalOcean's CCM)",
  providerId: (serverId) => `digitalocean://${numericIdOf(serverId)}`,
  lbNameAnnotation: 'service.beta.kubernetes.io/do-loadbalancer-name',
  nouns: { srv: 'Droplet', lb: 'Load Balancer' },
  personaId: (id) => (id.startsWith('lb-') ? uuidOf(id) : id.startsWith('srv-') ? String(numericIdOf(id)) : undefined),
  presentedPrivateIp: (server) => (server.private_ipv4 === null ? null : presentDigitalOceanPrivateIp(server.private_ipv4)),
  ccmEnv: digitaloceanCcmEnv,
  // DigitalOcean's CCM has no route controller, nor our provider.
  upstream: { provider: 'digitalocean', routes: false, extraArgs: [] },
  builtinCcm: false,
  ownCcm: {
    binary: DIGITALOCEAN_CCM_BINARY,
    command: digitaloceanCcmCommand,
    note: "the slot passes the variables above and its kubeconfig; no routes: DigitalOcean's CCM has no route controller",
  },
  machines: (o) => new DigitalOceanMachines(o),
  conformance: {
    nodeLabels: {},
    lookupSecondary: { none: "DigitalOcean's CCM reads addresses from the droplet's networks (cloud-controller-manager/do/droplets.go)" },
    zones: false,
    sourceRanges: false,
    healthChecks: {
      fast: Object.fromEntries(
        Object.entries({ 'check-interval-seconds': '3', 'response-timeout-seconds': '3', 'unhealthy-threshold': '2', 'healthy-threshold': '2' }).map(
          ([k, v]) => [`service.beta.kubernetes.io/do-loadbalancer-healthcheck-${k}`, v],
        ),
      ),
    },
    proxyProtocol: { annotations: { 'service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol': 'true' } },
    // DigitalOcean's shortest check interval is 3 s and its thresholds start at 2. Its CCM checks kube-proxy's
    // :10256/healthz (or a Local Service's health check node port) and reads the health check's protocol, port
    // and path annotations only beside override-health-check (present, whatever its value).
    annotations: {
      prefix: 'service.beta.kubernetes.io/do-loadbalancer-',
      values: {
        'override-health-check': 'true',
        'enable-proxy-protocol': 'true',
        'healthcheck-protocol': 'http',
        'healthcheck-path': '/unhealthy',
        'healthcheck-check-interval-seconds': '3',
        'healthcheck-response-timeout-seconds': '3',
        'healthcheck-unhealthy-threshold': '2',
        'healthcheck-healthy-threshold': '2',
        algorithm: 'least_connections',
        'size-unit': '2',
      },
      healthPathKey: 'healthcheck-path',
    },
    // As doctl uploads a custom certificate; a REGIONAL load balancer (REGIONAL_NETWORK passes TCP through)
    // terminates TLS on 443 with it and redirects its http port there.
    tls: {
      async upload(ctx, c) {
        const leaf = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(c.chain)?.[0] ?? c.chain;
        const { certificate } = await ctx.api.call('conformance.digitalocean.certificates.create', UploadedCertificate, {
          method: 'POST',
          path: '/v2/certificates',
          body: { name: c.name, type: 'custom', leaf_certificate: leaf, certificate_chain: c.chain.slice(leaf.length), private_key: c.key },
        });
        return {
          'service.beta.kubernetes.io/do-loadbalancer-type': 'REGIONAL',
          'service.beta.kubernetes.io/do-loadbalancer-protocol': 'http',
          'service.beta.kubernetes.io/do-loadbalancer-tls-ports': '443',
          'service.beta.kubernetes.io/do-loadbalancer-certificate-id': certificate.id,
          'service.beta.kubernetes.io/do-loadbalancer-redirect-http-to-https': 'true',
        };
      },
      servicePorts: [80, 443],
      redirect: true,
    },
    readLoadBalancer,
    checkAnnotated,
  },
});
