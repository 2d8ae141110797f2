// The Brightbox persona as the sandbox presents it: servers made through Brightbox's API, Brightbox's CCM
// environment (an API client derived from the project token), and its load balancers read back through that API:
// the cloud IP holding the Service's address, the load balancer it is mapped to, its listeners, health check and
// nodes. Brightbox's CCM writes a cloud IP's names (reverse DNS and FQDN) as the Service's ingress, never its
// address; the sandbox has no DNS of its own, so the run finds that address through the API (resolveHostname).
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { API, bbIdOf, simIdOf, zoneHandle } from '../../../simulator/personas/brightbox/common.ts';
import { defineCloud, type CloudLoadBalancerView, type CloudReadContext } from '../descriptor.ts';
import { BRIGHTBOX_CCM_BINARY, brightboxAccessToken, brightboxCcmCommand, brightboxCcmEnv, brightboxUrl } from './env.ts';
import { BrightboxMachines } from './machines.ts';

const CloudIps = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    public_ip: z.string(),
    reverse_dns: z.string(),
    fqdn: z.string(),
    status: z.string(),
    load_balancer: z.object({ id: z.string() }).nullable(),
  }),
);
const Lb = z.looseObject({
  id: z.string(),
  policy: z.string(),
  nodes: z.array(z.object({ id: z.string() })),
  listeners: z.array(z.object({ protocol: z.string(), in: z.number(), out: z.number(), timeout: z.number(), proxy_protocol: z.string().nullable() })),
  healthcheck: z.object({
    type: z.string(),
    port: z.number(),
    request: z.string(),
    interval: z.number(),
    timeout: z.number(),
    threshold_up: z.number(),
    threshold_down: z.number(),
  }),
});
type Lb = z.infer<typeof Lb>;

async function api(ctx: CloudReadContext): Promise<Requester> {
  const bearer = await brightboxAccessToken(ctx.simcloud.url, ctx.simcloud.token);
  return buildRequester({ endpoint: ctx.simcloud.url, token: bearer, caller: 'ccm-sandbox conformance' });
}

const cloudIps = async (r: Requester): Promise<z.infer<typeof CloudIps>> =>
  r.call('conformance.brightbox.cloudIps.list', CloudIps, { method: 'GET', path: `${API}/cloud_ips` });

async function lbAt(ctx: CloudReadContext, vip: string): Promise<Lb | undefined> {
  const r = await api(ctx);
  const lbId = (await cloudIps(r)).find((c) => c.public_ip === vip)?.load_balancer?.id;
  return lbId === undefined ? undefined : r.call('conformance.brightbox.loadBalancers.get', Lb, { method: 'GET', path: `${API}/load_balancers/${lbId}` });
}

async function readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  const lb = await lbAt(ctx, vip);
  if (lb === undefined) return undefined;
  // One health check for the whole load balancer, the same for every listener.
  const healthChecks = lb.listeners.map((l) => ({ listenPort: l.in, port: lb.healthcheck.port, protocol: lb.healthcheck.type }));
  return { id: lb.id, ports: lb.listeners.map((l) => l.in), serverIds: lb.nodes.map((n) => simIdOf('srv', n.id)), raw: lb, healthChecks };
}

/** The annotations' settings as Brightbox's API shows the load balancer. */
async function checkAnnotated(ctx: CloudReadContext, vip: string): Promise<string[]> {
  const lb = await lbAt(ctx, vip);
  if (lb === undefined) return [`no load balancer mapped to a cloud IP ${vip} in GET ${API}/cloud_ips`];
  const got = {
    policy: lb.policy,
    protocol: lb.listeners[0]?.protocol,
    proxy_protocol: lb.listeners[0]?.proxy_protocol,
    timeout: lb.listeners[0]?.timeout,
    type: lb.healthcheck.type,
    request: lb.healthcheck.request,
    interval: lb.healthcheck.interval,
    'healthcheck timeout': lb.healthcheck.timeout,
    threshold_up: lb.healthcheck.threshold_up,
    threshold_down: lb.healthcheck.threshold_down,
  };
  const want = {
    policy: 'round-robin',
    protocol: 'tcp',
    proxy_protocol: 'v1',
    timeout: 30000,
    type: 'http',
    request: '/healthz',
    interval: 1000,
    'healthcheck timeout': 1000,
    threshold_up: 2,
    threshold_down: 2,
  };
  return Object.entries(want)
    .filter(([k, v]) => got[k as keyof typeof got] !== v)
    .map(([k, v]) => `${k} is ${JSON.stringify(got[k as keyof typeof got])}, want ${JSON.stringify(v)}`);
}

/**
 * The address of the Service's cloud IP, which the hostname names (its reverse DNS or FQDN), through Brightbox's
 * API: the CCM names the cloud IP as its load balancer, `<service>.<namespace>.<cluster>`. Every cloud IP's names
 * are `localhost` here (the persona's views.ts says why), so the hostname alone does not tell them apart.
 */
async function resolveHostname(
  ctx: CloudReadContext,
  ingress: { hostname: string; namespace: string; service: string; cluster: string },
): Promise<string | undefined> {
  // The CCM names a Service's cloud IP `name.namespace.cluster-name`: a second cluster's Service of the same name has its own.
  const mine = (await cloudIps(await api(ctx))).filter(
    (c) => (c.reverse_dns === ingress.hostname || c.fqdn === ingress.hostname) && c.name === `${ingress.service}.${ingress.namespace}.${ingress.cluster}`,
  );
  return mine.length === 1 ? mine[0]!.public_ip : undefined;
}

export const brightboxCloud = defineCloud({
  kind: 'brightbox',
  title: 'Brightbox',
  apiUrl: (simcloudUrl) => `${brightboxUrl(simcloudUrl)}1.0`,
  tokenVariable: 'BRIGHTBOX_CLIENT_SECRET',
  realHosts: [{ name: 'api.gb1.brightbox.com', mount: '/brightbox', paths: ['/1.0', '/token'] }],
  clients: 'any gobrightbox program with an API client (BRIGHTBOX_API_URL, BRIGHTBOX_CLIENT, BRIGHTBOX_CLIENT_SECRET)',
  // Brightbox's CCM writes brightbox://<server id>.
  providerId: (serverId) => `brightbox://${bbIdOf(serverId)}`,
  nouns: { srv: 'Server', grp: 'Server Group', fwp: 'Firewall Policy', lb: 'Load Balancer', ipb: 'Cloud IP' },
  personaId: (id) => (/^(srv|grp|fwp|lb|ipb)-\d/.test(id) ? bbIdOf(id) : undefined),
  // Brightbox's CCM writes every interface and cloud IP address as an ExternalIP, never an InternalIP.
  presentedPrivateIp: () => null,
  ccmEnv: brightboxCcmEnv,
  // Our provider (go/provider/brightbox) reads the environment Brightbox's CCM reads (ccmEnv); like that CCM it
  // has no route controller.
  upstream: { provider: 'brightbox', routes: false, extraArgs: [] },
  builtinCcm: false,
  ownCcm: {
    binary: BRIGHTBOX_CCM_BINARY,
    command: brightboxCcmCommand,
    note: "the sandbox's kubelets register with --provider-id brightbox://srv-…, since its Node names are not server ids as on Brightbox",
  },
  machines: (o) => new BrightboxMachines({ ...o, providerId: (id) => `brightbox://${bbIdOf(id)}` }),
  conformance: {
    nodeLabels: {},
    lookupSecondary: {
      none: "Brightbox's CCM reads addresses from the server's interfaces and cloud IPs embedded in GET /servers/{id} (brightbox/util.go nodeAddressesFromServer)",
    },
    zones: true,
    zoneLabel: (server) => zoneHandle(server.zone),
    // Brightbox's CCM does not read loadBalancerSourceRanges.
    sourceRanges: false,
    healthChecks: {
      fast: {
        'service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval': '1000',
        'service.beta.kubernetes.io/brightbox-load-balancer-healthcheck-timeout': '1000',
        'service.beta.kubernetes.io/brightbox-load-balancer-healthcheck-unhealthy-threshold': '2',
        'service.beta.kubernetes.io/brightbox-load-balancer-healthcheck-healthy-threshold': '2',
      },
    },
    proxyProtocol: { annotations: { 'service.beta.kubernetes.io/brightbox-load-balancer-listener-proxy-protocol': 'v1' } },
    // Its health-check interval annotation is under aws-load-balancer-, hence the short prefix. Milliseconds.
    annotations: {
      prefix: 'service.beta.kubernetes.io/',
      values: {
        'brightbox-load-balancer-listener-protocol': 'tcp',
        'brightbox-load-balancer-listener-proxy-protocol': 'v1',
        'brightbox-load-balancer-listener-idle-timeout': '30000',
        'brightbox-load-balancer-healthcheck-protocol': 'http',
        'brightbox-load-balancer-healthcheck-request': '/unhealthy',
        'brightbox-load-balancer-healthcheck-timeout': '1000',
        'brightbox-load-balancer-healthcheck-unhealthy-threshold': '2',
        'brightbox-load-balancer-healthcheck-healthy-threshold': '2',
        'aws-load-balancer-healthcheck-interval': '1000',
        'brightbox-load-balancer-policy': 'round-robin',
      },
      healthPathKey: 'brightbox-load-balancer-healthcheck-request',
    },
    tls: {
      none: "Brightbox's CCM takes no certificate of a user's: its https listeners get one from Let's Encrypt for the ssl-domains annotation's names (brightbox/annotations.go), which needs public DNS and an ACME server, off loopback",
    },
    readLoadBalancer,
    checkAnnotated,
    resolveHostname,
  },
});
