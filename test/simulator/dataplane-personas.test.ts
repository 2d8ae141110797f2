// Conformance-style checks of the data plane through every persona, with real traffic on loopback: two
// simcloud servers are the nodes, the local runtime's kube-proxy stand-in serves a TCP and a UDP NodePort on
// their addresses for pods that answer as their images do (appscode/test-server over HTTP, agnhost netexec
// over UDP), and a load balancer made through each cloud's own API carries an HTTP request and a UDP
// datagram through its VIP to them. Clouds whose load balancers carry no UDP refuse it with their error.
// TLS: a certificate made here (signed by a CA made here) terminates on the VIP, verified against that CA.
import { randomInt } from 'node:crypto';
import type { V1Container, V1EndpointSlice, V1Pod, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCa, issueServerCertificate, type PemPair } from '../../sandbox/control-plane/pki.ts';
import { ImageReplies, loadImageTable } from '../../sandbox/kubelet/images/replies.ts';
import { NodePortStandIns, type StandInNode } from '../../sandbox/kubelet/nodeport-standins.ts';
import { buildProxyTable, SERVICE_NAME_LABEL } from '../../sandbox/kubelet/proxy-table.ts';
import { httpGet, httpsGet } from '../../sandbox/conformance/context.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { clientIdOf } from '../../simulator/personas/brightbox/auth.ts';
import { udpClient } from '../../simulator/server/dataplane/test-support/harness.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';
import { startSimcloudOnOwnPlan, type InProcessSimcloud } from '../helpers/simcloud.ts';
import { serverBody, tcpService, unique } from './support.ts';

let sc: InProcessSimcloud;
let standIns: NodePortStandIns;
const servers: Server[] = [];
/** The NodePorts: HTTP (test-server pods) and UDP (netexec pods). */
const HTTP_NODE_PORT = randomInt(31_000, 31_500);
const UDP_NODE_PORT = randomInt(31_500, 32_000);
const WEB_PODS = ['web-0', 'web-1'];
const NET_PODS = ['net-0', 'net-1'];

type Json = Record<string, unknown>;
/** A call to one persona's API (`api`: its path prefix and bearer token). */
async function call(api: { prefix: string; token: string }, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const { prefix, token } = api;
  const r = await fetch(`${sc.url}${prefix}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: (text === '' ? {} : JSON.parse(text)) as Json };
}

function pod(name: string, node: string, container: V1Container): V1Pod {
  return {
    metadata: { name, namespace: 'app' },
    spec: { nodeName: node, containers: [container] },
    status: { podIP: `10.244.0.${WEB_PODS.length + NET_PODS.indexOf(name) + 2}` },
  };
}

function service(name: string, protocol: 'TCP' | 'UDP', nodePort: number): V1Service {
  return { metadata: { namespace: 'app', name }, spec: { type: 'NodePort', ports: [{ name: 'p', port: 80, protocol, nodePort }] } };
}

function slice(
  svc: string,
  protocol: 'TCP' | 'UDP',
  port: number,
  { pods, nodes }: { pods: readonly string[]; nodes: readonly StandInNode[] },
): V1EndpointSlice {
  return {
    metadata: { namespace: 'app', name: `${svc}-x`, labels: { [SERVICE_NAME_LABEL]: svc } },
    addressType: 'IPv4',
    ports: [{ name: 'p', port, protocol }],
    endpoints: pods.map((p, i) => ({
      addresses: [`10.244.${i}.2`],
      nodeName: nodes[i % nodes.length]!.name,
      targetRef: { kind: 'Pod', namespace: 'app', name: p },
      conditions: { ready: true },
    })),
  };
}

beforeAll(async () => {
  sc = await startSimcloudOnOwnPlan({ clientOptions: { retry: { maxRetries: 0 } } });
  for (const i of [0, 1]) {
    const { server, action } = await sc.client.servers.create(serverBody({ name: unique(`node${i}`) }));
    await sc.client.waitForAction(action.id);
    servers.push(server);
  }
  const nodes: StandInNode[] = servers.map((s) => ({ name: s.name, ips: [s.public_ipv4!] }));
  const pods = new Map<string, V1Pod>([
    ...WEB_PODS.map((n, i): [string, V1Pod] => [
      `app/${n}`,
      pod(n, nodes[i]!.name, {
        name: 'web',
        image: 'appscode/test-server:2.3',
        env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      }),
    ]),
    ...NET_PODS.map((n, i): [string, V1Pod] => [
      `app/${n}`,
      pod(n, nodes[i]!.name, { name: 'net', image: 'registry.k8s.io/e2e-test-images/agnhost:2.52', args: ['netexec', '--udp-port=8081'] }),
    ]),
  ]);
  standIns = new NodePortStandIns({
    proxierHealthPort: randomInt(32_000, 32_700),
    pods: (ns, name) => pods.get(`${ns}/${name}`),
    images: new ImageReplies(loadImageTable()),
  });
  await standIns.apply(
    nodes,
    buildProxyTable(
      [service('web', 'TCP', HTTP_NODE_PORT), service('net', 'UDP', UDP_NODE_PORT)],
      [slice('web', 'TCP', 8080, { pods: WEB_PODS, nodes }), slice('net', 'UDP', 8081, { pods: NET_PODS, nodes })],
    ),
  );
  expect(standIns.listening()).toEqual(expect.arrayContaining(nodes.flatMap((n) => [`${n.ips[0]}:${HTTP_NODE_PORT}`, `${n.ips[0]}:${UDP_NODE_PORT}/udp`])));
});

afterAll(async () => {
  await standIns?.close();
  await sc?.stop();
});

/** An HTTP GET through vip:port answered by a test-server pod: its .podName. */
async function podName(vip: string, port: number): Promise<string> {
  return waitFor(
    async () => {
      const r = await fetch(`http://${vip}:${port}/`).catch(() => undefined);
      if (r?.status !== 200) return undefined;
      return ((await r.json()) as { podName?: string }).podName;
    },
    { timeoutMs: 15_000, intervalMs: 100, description: `an HTTP answer through ${vip}:${port}` },
  );
}

/** A UDP datagram `hostname` through vip:port answered by a netexec pod: its name. */
async function udpHostname(vip: string, port: number): Promise<string> {
  const client = await udpClient();
  try {
    return await waitFor(async () => (await client.ask(vip, port, 'hostname', 500)) ?? undefined, {
      timeoutMs: 15_000,
      intervalMs: 50,
      description: `a UDP answer through ${vip}:${port}`,
    });
  } finally {
    client.close();
  }
}

/** An HTTPS GET through vip:port as `lb.test`, the server's certificate verified against `ca`. */
const tlsGet = (vip: string, port: number, ca: string): ReturnType<typeof httpsGet> => httpsGet(vip, port, { ca, servername: 'lb.test' });

/** A plain HTTP GET: the status and the location header (the request's Host is the VIP). */
const plainGet = async (vip: string, port: number, path: string): Promise<{ status: number; location: string | null }> => {
  const { status, location } = await httpGet(vip, port, path);
  return { status, location };
};

let ca: PemPair;
let server: PemPair;
beforeAll(async () => {
  ca = await generateCa('dataplane-test-ca');
  server = await issueServerCertificate(ca, 'CN=lb.test', ['lb.test']);
});

/** A Brightbox OAuth2 token for the project's API client (client credentials). */
function brightboxToken(): Promise<string> {
  return fetch(`${sc.url}/brightbox/token/`, {
    method: 'POST',
    body: 'grant_type=client_credentials',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientIdOf(sc.token)}:${sc.token}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
  }).then(async (r) => String(((await r.json()) as Json).access_token));
}

/** The /v1 VIP of a load balancer made through another API, found by its name. */
function vipNamed(name: unknown): Promise<string> {
  return waitFor(async () => (await sc.client.loadBalancers.list()).load_balancers.find((l) => l.name === name)?.public_ipv4, {
    timeoutMs: 10_000,
    description: `load balancer ${String(name)} in /v1`,
  });
}

const listenPorts = (): { http: number; udp: number } => ({ http: randomInt(20_000, 25_000), udp: randomInt(25_000, 30_000) });

describe('the data plane through every persona, to pods that answer as their images do', () => {
  it('simcloud /v1: HTTP and UDP through the VIP', async () => {
    const ports = listenPorts();
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create({
      name: unique('lb'),
      targets: servers.map((s) => ({ kind: 'server' as const, server_id: s.id })),
      services: [
        tcpService(ports.http, HTTP_NODE_PORT),
        tcpService(ports.udp, UDP_NODE_PORT, {
          protocol: 'udp',
          health_check: { protocol: 'none', port: null, path: '/', interval_seconds: 1, timeout_seconds: 1, retries: 1 },
        }),
      ],
    });
    await sc.client.waitForAction(action.id);
    expect(WEB_PODS).toContain(await podName(lb.public_ipv4, ports.http));
    expect(NET_PODS).toContain(await udpHostname(lb.public_ipv4, ports.udp));
  });

  it('Linode: a NodeBalancer with a tcp and a udp config (udp_check_port, session stickiness) carries both', async () => {
    const ports = listenPorts();
    const nodes = (port: number) => servers.map((s) => ({ address: `${s.public_ipv4}:${port}`, label: s.name }));
    const created = await call({ prefix: '/v4', token: sc.token }, 'POST', '/nodebalancers', {
      region: 'sim-1',
      label: unique('nb'),
      configs: [
        { port: ports.http, protocol: 'tcp', check: 'connection', check_interval: 2, check_timeout: 1, check_attempts: 1, nodes: nodes(HTTP_NODE_PORT) },
        { port: ports.udp, protocol: 'udp', check: 'none', udp_check_port: 8080, nodes: nodes(UDP_NODE_PORT) },
      ],
    });
    expect(created.status).toBe(200);
    const vip = String(created.body.ipv4);
    const configs = (await call({ prefix: '/v4', token: sc.token }, 'GET', `/nodebalancers/${String(created.body.id)}/configs`)).body.data as Json[];
    expect(configs.find((c) => c.protocol === 'udp')).toMatchObject({
      port: ports.udp,
      stickiness: 'session',
      check: 'none',
      udp_check_port: 8080,
      check_passive: false,
    });
    // Nodes sent without a mode read `none` on the udp config (as Linode shows them) and `accept` on the tcp one; both serve.
    const modes = async (protocol: string) =>
      (
        (
          await call(
            { prefix: '/v4', token: sc.token },
            'GET',
            `/nodebalancers/${String(created.body.id)}/configs/${String(configs.find((c) => c.protocol === protocol)!.id)}/nodes`,
          )
        ).body.data as Json[]
      ).map((n) => n.mode);
    expect(await modes('udp')).toEqual(servers.map(() => 'none'));
    expect(await modes('tcp')).toEqual(servers.map(() => 'accept'));
    expect(WEB_PODS).toContain(await podName(vip, ports.http));
    expect(NET_PODS).toContain(await udpHostname(vip, ports.udp));
    const bad = await call({ prefix: '/v4', token: sc.token }, 'POST', `/nodebalancers/${String(created.body.id)}/configs`, {
      port: randomInt(30_000, 31_000),
      protocol: 'udp',
      proxy_protocol: 'v1',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: [{ field: 'proxy_protocol', reason: 'must be none on a udp config' }] });
  });

  it('DigitalOcean: a load balancer with tcp and udp forwarding rules carries both', async () => {
    const ports = listenPorts();
    const created = await call({ prefix: '/v2', token: sc.token }, 'POST', '/load_balancers', {
      name: unique('do'),
      region: 'sim-1',
      droplet_ids: servers.map((s) => Number(s.id.replace(/^srv-0*/, ''))),
      health_check: { protocol: 'tcp', port: HTTP_NODE_PORT, check_interval_seconds: 3, response_timeout_seconds: 3 },
      forwarding_rules: [
        { entry_protocol: 'tcp', entry_port: ports.http, target_protocol: 'tcp', target_port: HTTP_NODE_PORT },
        { entry_protocol: 'udp', entry_port: ports.udp, target_protocol: 'udp', target_port: UDP_NODE_PORT },
      ],
    });
    expect(created.status).toBe(202);
    const id = String((created.body.load_balancer as Json).id);
    const vip = await waitFor(
      async () => String(((await call({ prefix: '/v2', token: sc.token }, 'GET', `/load_balancers/${id}`)).body.load_balancer as Json).ip) || undefined,
      {
        timeoutMs: 15_000,
        description: 'the load balancer active with an IP',
      },
    );
    expect(WEB_PODS).toContain(await podName(vip, ports.http));
    expect(NET_PODS).toContain(await udpHostname(vip, ports.udp));
    const mixed = await call({ prefix: '/v2', token: sc.token }, 'POST', '/load_balancers', {
      name: unique('do'),
      region: 'sim-1',
      forwarding_rules: [{ entry_protocol: 'udp', entry_port: 53, target_protocol: 'tcp', target_port: 53 }],
    });
    expect(mixed.status).toBe(422);
  });

  it('Hetzner: HTTP through a load balancer made through its API; a udp service is refused as Hetzner refuses it', async () => {
    const ports = listenPorts();
    const service = (protocol: string, listen: number, destination: number) => ({
      protocol,
      listen_port: listen,
      destination_port: destination,
      health_check: { protocol: 'tcp', port: destination, interval: 1, timeout: 1, retries: 1 },
    });
    const refused = await call({ prefix: '/hcloud/v1', token: sc.token }, 'POST', '/load_balancers', {
      name: unique('h'),
      load_balancer_type: 'lb11',
      location: 'sim-1',
      services: [service('udp', ports.udp, UDP_NODE_PORT)],
    });
    expect(refused.status).toBe(400);
    expect((refused.body.error as Json).code).toBe('invalid_input');
    const created = await call({ prefix: '/hcloud/v1', token: sc.token }, 'POST', '/load_balancers', {
      name: unique('h'),
      load_balancer_type: 'lb11',
      location: 'sim-1',
      services: [service('tcp', ports.http, HTTP_NODE_PORT)],
      targets: servers.map((s) => ({ type: 'server', server: { id: Number(s.id.replace(/^srv-0*/, '')) } })),
    });
    expect(created.status).toBe(201);
    const vip = String((((created.body.load_balancer as Json).public_net as Json).ipv4 as Json).ip);
    expect(WEB_PODS).toContain(await podName(vip, ports.http));
  });

  it('Brightbox: HTTP through a load balancer made through its API; a udp listener is refused in its error body', async () => {
    const token = await brightboxToken();
    const ports = listenPorts();
    const body = (protocol: string, listen: number, out: number) => ({
      name: unique('bb'),
      nodes: servers.map((s) => ({ node: s.id })),
      listeners: [{ protocol, in: listen, out }],
      healthcheck: { type: 'tcp', port: out },
    });
    const refused = await call({ prefix: '/brightbox/1.0', token: token }, 'POST', '/load_balancers', body('udp', ports.udp, UDP_NODE_PORT));
    expect(refused.status).toBe(400);
    expect(typeof refused.body.error_name).toBe('string');
    const created = await call({ prefix: '/brightbox/1.0', token: token }, 'POST', '/load_balancers', body('tcp', ports.http, HTTP_NODE_PORT));
    expect(created.status).toBe(202);
    expect(WEB_PODS).toContain(await podName(await vipNamed(created.body.name), ports.http));
  });

  it("simcloud /v1: terminates TLS on the VIP with the service's certificate, redirects http to https, and never answers the key", async () => {
    const [tlsPort, redirectPort] = [randomInt(30_000, 30_500), randomInt(30_500, 31_000)];
    const healthCheck = { protocol: 'tcp' as const, port: null, path: '/', interval_seconds: 0.5, timeout_seconds: 1, retries: 1 };
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create({
      name: unique('lb'),
      targets: servers.map((s) => ({ kind: 'server' as const, server_id: s.id })),
      services: [
        {
          protocol: 'https',
          listen_port: tlsPort,
          destination_port: HTTP_NODE_PORT,
          proxy_protocol: 'none',
          health_check: healthCheck,
          tls: { certificate: server.cert, private_key: server.key },
        },
        {
          protocol: 'http',
          listen_port: redirectPort,
          destination_port: HTTP_NODE_PORT,
          proxy_protocol: 'none',
          health_check: healthCheck,
          redirect_https_port: tlsPort,
        },
      ],
    });
    await sc.client.waitForAction(action.id);
    expect(lb.services[0]!.tls).toEqual({ certificate: server.cert, private_key: '<redacted>' });
    const answer = await waitFor(() => tlsGet(lb.public_ipv4, tlsPort, ca.cert).catch(() => undefined), {
      timeoutMs: 15_000,
      description: 'an HTTPS answer',
    });
    expect(answer.cn).toBe('lb.test');
    expect(WEB_PODS).toContain((JSON.parse(answer.body) as { podName: string }).podName);
    await expect(tlsGet(lb.public_ipv4, tlsPort, (await generateCa('another-ca')).cert)).rejects.toThrow(/self-signed|unable to verify|certificate/);
    expect(await plainGet(lb.public_ipv4, redirectPort, '/a/b?c=1')).toEqual({ status: 301, location: `https://${lb.public_ipv4}:${tlsPort}/a/b?c=1` });
    // Sent back as answered (key redacted), the service keeps its key; a key of another certificate is refused.
    const again = await sc.client.loadBalancers.update(lb.id, { services: (await sc.client.loadBalancers.get(lb.id)).services });
    expect(again.services[0]!.tls?.private_key).toBe('<redacted>');
    expect((await tlsGet(lb.public_ipv4, tlsPort, ca.cert)).cn).toBe('lb.test');
    const other = await issueServerCertificate(ca, 'CN=other.test', ['other.test']);
    await expect(
      sc.client.loadBalancers.update(lb.id, { services: [{ ...again.services[0]!, tls: { certificate: server.cert, private_key: other.key } }] }),
    ).rejects.toMatchObject({ status: 400, fields: [{ name: 'services.0.tls.private_key', messages: ['is not the key of the certificate'] }] });
  });

  it('Linode: an https config with ssl_cert and ssl_key terminates TLS on the VIP, shown with its common name and redacted PEMs', async () => {
    const port = randomInt(30_000, 31_000);
    const nodes = servers.map((s) => ({ address: `${s.public_ipv4}:${HTTP_NODE_PORT}`, label: s.name }));
    const missing = await call({ prefix: '/v4', token: sc.token }, 'POST', '/nodebalancers', {
      region: 'sim-1',
      configs: [{ port, protocol: 'https', nodes }],
    });
    expect(missing.body).toEqual({ errors: [{ field: 'ssl_cert', reason: 'an https config needs ssl_cert and ssl_key' }] });
    const created = await call({ prefix: '/v4', token: sc.token }, 'POST', '/nodebalancers', {
      region: 'sim-1',
      label: unique('nb'),
      configs: [{ port, protocol: 'https', ssl_cert: server.cert, ssl_key: server.key, check: 'connection', nodes }],
    });
    expect(created.status).toBe(200);
    const [config] = (await call({ prefix: '/v4', token: sc.token }, 'GET', `/nodebalancers/${String(created.body.id)}/configs`)).body.data as Json[];
    expect(config).toMatchObject({
      protocol: 'https',
      ssl_commonname: 'lb.test',
      ssl_cert: '<REDACTED>',
      ssl_key: '<REDACTED>',
      ssl_fingerprint: expect.stringMatching(/^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/) as unknown,
    });
    const answer = await waitFor(() => tlsGet(String(created.body.ipv4), port, ca.cert).catch(() => undefined), {
      timeoutMs: 15_000,
      description: 'an HTTPS answer',
    });
    expect(WEB_PODS).toContain((JSON.parse(answer.body) as { podName: string }).podName);
  });

  it('DigitalOcean: an uploaded certificate terminates TLS on an https rule, redirect_http_to_https sends http there, and the certificate in use stays', async () => {
    const api = { prefix: '/v2', token: sc.token };
    const name = unique('do-cert');
    const wrongKey = await call(api, 'POST', '/certificates', { name, type: 'custom', leaf_certificate: server.cert, private_key: ca.key });
    expect(wrongKey).toMatchObject({ status: 422, body: { id: 'unprocessable_entity', message: 'private_key: is not the key of the certificate' } });
    const acme = await call(api, 'POST', '/certificates', { name, type: 'lets_encrypt', dns_names: ['lb.test'] });
    expect(acme).toMatchObject({ status: 422, body: { message: expect.stringMatching(/^type: lets_encrypt is not emulated/) as unknown } });
    const made = await call(api, 'POST', '/certificates', {
      name,
      type: 'custom',
      leaf_certificate: server.cert,
      certificate_chain: ca.cert,
      private_key: server.key,
    });
    expect(made.status).toBe(201);
    const cert = made.body.certificate as Json;
    expect(cert).toMatchObject({
      name,
      type: 'custom',
      state: 'verified',
      dns_names: ['lb.test'],
      sha1_fingerprint: expect.stringMatching(/^[0-9a-f]{40}$/) as unknown,
    });
    expect((await call(api, 'GET', `/certificates?name=${name}`)).body).toMatchObject({ certificates: [cert], meta: { total: 1 } });
    const [httpPort, tlsPort] = [randomInt(30_000, 30_500), randomInt(30_500, 31_000)];
    const rules = (certificateId: string) => [
      { entry_protocol: 'http', entry_port: httpPort, target_protocol: 'http', target_port: HTTP_NODE_PORT },
      { entry_protocol: 'https', entry_port: tlsPort, target_protocol: 'http', target_port: HTTP_NODE_PORT, certificate_id: certificateId },
    ];
    const body = (certificateId: string) => ({
      name: unique('do'),
      region: 'sim-1',
      droplet_ids: servers.map((s) => Number(s.id.replace(/^srv-0*/, ''))),
      redirect_http_to_https: true,
      health_check: { protocol: 'tcp', port: HTTP_NODE_PORT, check_interval_seconds: 3, response_timeout_seconds: 3 },
      forwarding_rules: rules(certificateId),
    });
    const unknown = await call(api, 'POST', '/load_balancers', body('00000000-0000-4000-8000-999999999999'));
    expect(unknown).toMatchObject({ status: 422, body: { message: 'forwarding_rules.1.certificate_id: no certificate 00000000-0000-4000-8000-999999999999' } });
    const created = await call(api, 'POST', '/load_balancers', body(String(cert.id)));
    expect(created.status).toBe(202);
    const id = String((created.body.load_balancer as Json).id);
    const lb = await waitFor(
      async () => {
        const got = (await call(api, 'GET', `/load_balancers/${id}`)).body.load_balancer as Json;
        return got.ip === '' ? undefined : got;
      },
      { timeoutMs: 15_000, description: 'the load balancer active with an IP' },
    );
    expect(lb.forwarding_rules).toEqual([
      { entry_protocol: 'http', entry_port: httpPort, target_protocol: 'http', target_port: HTTP_NODE_PORT, certificate_id: '', tls_passthrough: false },
      { entry_protocol: 'https', entry_port: tlsPort, target_protocol: 'http', target_port: HTTP_NODE_PORT, certificate_id: cert.id, tls_passthrough: false },
    ]);
    const vip = String(lb.ip);
    const answer = await waitFor(() => tlsGet(vip, tlsPort, ca.cert).catch(() => undefined), { timeoutMs: 15_000, description: 'an HTTPS answer' });
    expect(answer.cn).toBe('lb.test');
    expect(WEB_PODS).toContain((JSON.parse(answer.body) as { podName: string }).podName);
    expect(await plainGet(vip, httpPort, '/x')).toEqual({ status: 301, location: `https://${vip}:${tlsPort}/x` });
    const inUse = await call(api, 'DELETE', `/certificates/${String(cert.id)}`);
    expect(inUse).toMatchObject({ status: 422, body: { id: 'unprocessable_entity', message: expect.stringMatching(/in use by a load balancer/) as unknown } });
    expect((await call(api, 'DELETE', `/load_balancers/${id}`)).status).toBe(204);
    await waitFor(async () => ((await call(api, 'DELETE', `/certificates/${String(cert.id)}`)).status === 204 ? true : undefined), {
      timeoutMs: 15_000,
      description: 'the certificate deleted once its load balancer is gone',
    });
    expect((await call(api, 'GET', `/certificates/${String(cert.id)}`)).status).toBe(404);
  });

  it('Hetzner: an uploaded certificate terminates TLS on an https service, redirect_http answers on port 80, and the certificate in use stays', async () => {
    const api = { prefix: '/hcloud/v1', token: sc.token };
    const name = unique('h-cert');
    const wrongKey = await call(api, 'POST', '/certificates', { name, type: 'uploaded', certificate: server.cert, private_key: ca.key });
    expect(wrongKey).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', details: { fields: [{ name: 'private_key', messages: ['is not the key of the certificate'] }] } } },
    });
    const managed = await call(api, 'POST', '/certificates', { name, type: 'managed', domain_names: ['lb.test'] });
    expect(managed).toMatchObject({ status: 400, body: { error: { code: 'invalid_input', details: { fields: [{ name: 'type' }] } } } });
    const made = await call(api, 'POST', '/certificates', {
      name,
      type: 'uploaded',
      certificate: `${server.cert}${ca.cert}`,
      private_key: server.key,
      labels: { app: 'web' },
    });
    expect(made.status).toBe(201);
    const cert = made.body.certificate as Json;
    expect(cert).toMatchObject({
      name,
      type: 'uploaded',
      domain_names: ['lb.test'],
      status: null,
      used_by: [],
      fingerprint: expect.stringMatching(/^[0-9a-f]{2}(:[0-9a-f]{2}){31}$/) as unknown,
    });
    expect((await call(api, 'GET', `/certificates?label_selector=app=web&name=${name}`)).body.certificates).toEqual([cert]);
    const tlsPort = randomInt(30_500, 31_000);
    const https = (certificates: number[]) => ({
      protocol: 'https',
      listen_port: tlsPort,
      destination_port: HTTP_NODE_PORT,
      http: { certificates, redirect_http: true },
      health_check: { protocol: 'tcp', port: HTTP_NODE_PORT, interval: 1, timeout: 1, retries: 1 },
    });
    const body = (certificates: number[]) => ({
      name: unique('h'),
      load_balancer_type: 'lb11',
      location: 'sim-1',
      services: [https(certificates)],
      targets: servers.map((s) => ({ type: 'server', server: { id: Number(s.id.replace(/^srv-0*/, '')) } })),
    });
    const unknown = await call(api, 'POST', '/load_balancers', body([999_999]));
    expect(unknown).toMatchObject({ status: 404, body: { error: { details: { fields: [{ name: 'services.0.http.certificates.0' }] } } } });
    const created = await call(api, 'POST', '/load_balancers', body([Number(cert.id)]));
    expect(created.status).toBe(201);
    const lb = created.body.load_balancer as Json;
    expect(lb.services).toMatchObject([{ protocol: 'https', listen_port: tlsPort, http: { certificates: [cert.id], redirect_http: true } }]);
    expect(((await call(api, 'GET', `/certificates/${String(cert.id)}`)).body.certificate as Json).used_by).toEqual([{ id: lb.id, type: 'load_balancer' }]);
    const vip = String(((lb.public_net as Json).ipv4 as Json).ip);
    const answer = await waitFor(() => tlsGet(vip, tlsPort, ca.cert).catch(() => undefined), { timeoutMs: 15_000, description: 'an HTTPS answer' });
    expect(answer.cn).toBe('lb.test');
    expect(WEB_PODS).toContain((JSON.parse(answer.body) as { podName: string }).podName);
    // Hetzner's redirect listens on port 80 (binding it needs root or net.ipv4.ip_unprivileged_port_start <= 80).
    expect(await plainGet(vip, 80, '/x')).toEqual({ status: 301, location: `https://${vip}:${tlsPort}/x` });
    const inUse = await call(api, 'DELETE', `/certificates/${String(cert.id)}`);
    expect(inUse).toMatchObject({ status: 409, body: { error: { code: 'service_error' } } });
    expect((await call(api, 'DELETE', `/load_balancers/${String(lb.id)}`)).status).toBe(200);
    await waitFor(async () => ((await call(api, 'DELETE', `/certificates/${String(cert.id)}`)).status === 204 ? true : undefined), {
      timeoutMs: 15_000,
      description: 'the certificate deleted once its load balancer is gone',
    });
  });

  it('Brightbox: an uploaded certificate terminates TLS on the https listener, and https_redirect sends http there', async () => {
    const token = await brightboxToken();
    const [httpPort, tlsPort] = [randomInt(30_000, 30_500), randomInt(30_500, 31_000)];
    const created = await call({ prefix: '/brightbox/1.0', token }, 'POST', '/load_balancers', {
      name: unique('bb'),
      nodes: servers.map((s) => ({ node: s.id })),
      healthcheck: { type: 'tcp', port: HTTP_NODE_PORT },
      https_redirect: true,
      listeners: [
        { protocol: 'http', in: httpPort, out: HTTP_NODE_PORT },
        { protocol: 'https', in: tlsPort, out: HTTP_NODE_PORT },
      ],
      certificate_pem: server.cert,
      certificate_private_key: server.key,
    });
    expect(created.status).toBe(202);
    expect(created.body.certificate).toMatchObject({ subject: 'CN=lb.test', issuer: 'CN=dataplane-test-ca', sslv3: false });
    const vip = await vipNamed(created.body.name);
    const answer = await waitFor(() => tlsGet(vip, tlsPort, ca.cert).catch(() => undefined), { timeoutMs: 15_000, description: 'an HTTPS answer' });
    expect(WEB_PODS).toContain((JSON.parse(answer.body) as { podName: string }).podName);
    expect(await plainGet(vip, httpPort, '/x')).toEqual({ status: 301, location: `https://${vip}:${tlsPort}/x` });
    const wrongKey = await call({ prefix: '/brightbox/1.0', token }, 'POST', '/load_balancers', {
      name: unique('bb'),
      listeners: [{ protocol: 'https', in: tlsPort + 1, out: HTTP_NODE_PORT }],
      certificate_pem: server.cert,
      certificate_private_key: ca.key,
    });
    expect(wrongKey.status).toBe(400);
  });
});
