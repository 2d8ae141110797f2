import { connect, createServer } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { V1Container, V1EndpointSlice, V1LoadBalancerIngress, V1Pod, V1Service } from '@kubernetes/client-node';
import { FakeClock } from '../../src/kube/clock.ts';
import { endpointSlice, nodePortService } from '../../test/helpers/endpoint-slices.ts';
import { freePort } from '../ports.ts';
import { udpClient } from '../../simulator/server/dataplane/test-support/harness.ts';
import { ImageReplies, loadImageTable } from './images/replies.ts';
import { REPLIES_ANNOTATION } from './images/schema.ts';
import { withAnnounced } from './kube-vip.ts';
import { NodePortStandIns, type HealthCheckReply, type StandInNode, type StandInReply } from './nodeport-standins.ts';
import type { ProxierHealthReply } from './proxier-health.ts';
import { buildProxyTable } from './proxy-table.ts';

function exchange(ip: string, port: number, send?: Buffer | string, localAddress?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: ip, port, ...(localAddress ? { localAddress } : {}) });
    let out = '';
    socket.on('connect', () => {
      if (send !== undefined) socket.write(send);
    });
    socket.on('data', (d: Buffer) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

const get = (ip: string, port: number, path = '/', from?: string): Promise<string> => exchange(ip, port, `GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`, from);
const parseJson = <T = StandInReply>(s: string): T => JSON.parse(s.slice(s.indexOf('{'))) as T;

// Two nodes on two loopback addresses; the NodePort must be free on both.
const N1 = { name: 'n1', ips: ['127.0.0.1'] };
const N2 = { name: 'n2', ips: ['127.0.0.2'] };
async function portFreeOnBoth(): Promise<number> {
  for (;;) {
    const port = await freePort('127.0.0.1');
    if (await canListen('127.0.0.2', port)) return port;
  }
}
function canListen(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, ip, () => server.close(() => resolve(true)));
  });
}

const pod = (name: string, node: string, n: number, ready = true) => ({ pod: name, node, ip: `10.244.${node === 'n1' ? 1 : 2}.${n}`, ready });

describe('kube-proxy stand-in listeners', () => {
  const clock = new FakeClock();
  // kube-proxy's health port (10256 in the sandbox) on a free port: these nodes share 127.0.0.1 with everything else.
  let proxier = 0;
  let standIns: NodePortStandIns;
  beforeAll(async () => {
    proxier = await portFreeOnBoth();
    standIns = new NodePortStandIns({ clock, proxierHealthPort: proxier });
  });
  afterEach(() => standIns.close());
  const apply = (services: V1Service[], slices: V1EndpointSlice[], nodes: readonly StandInNode[] = [N1, N2]) =>
    standIns.apply(nodes, buildProxyTable(services, slices));
  /** What is listened on besides kube-proxy's health port. */
  const listening = (): string[] => standIns.listening().filter((k) => !k.endsWith(`:${proxier}`));

  it('refuses a NodePort whose Service has no ready endpoint, on every node', async () => {
    const port = await portFreeOnBoth();
    await apply([nodePortService('d', 'web', { nodePort: port })], [endpointSlice('d', 'web', [pod('web-a', 'n1', 2, false)])]);
    expect(listening()).toEqual([]);
    await expect(get('127.0.0.1', port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('answers on every node for a ready endpoint anywhere, naming the pod, taking turns between pods', async () => {
    const port = await portFreeOnBoth();
    await apply(
      [nodePortService('d', 'web', { nodePort: port })],
      [endpointSlice('d', 'web', [pod('web-a', 'n1', 2), pod('web-b', 'n1', 3), pod('web-x', 'n2', 4, false)])],
    );
    const first = await get('127.0.0.2', port, '/hello');
    expect(first).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(parseJson(first)).toMatchObject({
      node: 'n2',
      service: 'd/web',
      nodePort: port,
      pod: 'web-a',
      endpoint: { address: '10.244.1.2', port: 8080, node: 'n1' },
      path: '/hello',
      proxy: null,
    });
    expect(parseJson(await get('127.0.0.2', port)).pod).toBe('web-b');
    expect(parseJson(await get('127.0.0.2', port)).pod).toBe('web-a');
  });

  it('under externalTrafficPolicy Local answers only on nodes with a local endpoint and serves the health check', async () => {
    const [port, hc] = [await portFreeOnBoth(), await portFreeOnBoth()];
    const svc = nodePortService('d', 'loc', { nodePort: port, externalTrafficPolicy: 'Local', healthCheckNodePort: hc });
    await apply([svc], [endpointSlice('d', 'loc', [pod('loc-a', 'n1', 2), pod('loc-b', 'n1', 3)])]);
    expect(listening()).toEqual([`127.0.0.1:${hc}`, `127.0.0.1:${port}`, `127.0.0.2:${hc}`].sort());
    expect(parseJson(await get('127.0.0.1', port)).endpoint.node).toBe('n1');
    await expect(get('127.0.0.2', port)).rejects.toThrow(/ECONNREFUSED/);
    const up = await get('127.0.0.1', hc, '/healthz');
    expect(up).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(up).toMatch(/content-type: application\/json/);
    expect(parseJson<HealthCheckReply>(up)).toEqual({ service: { namespace: 'd', name: 'loc' }, localEndpoints: 2, serviceProxyHealthy: true });
    const down = await get('127.0.0.2', hc, '/healthz');
    expect(down).toMatch(/^HTTP\/1\.1 503 Service Unavailable/);
    expect(parseJson<HealthCheckReply>(down).localEndpoints).toBe(0);
    // The pods move to n2: the health answers and the NodePort follow.
    await apply([svc], [endpointSlice('d', 'loc', [pod('loc-c', 'n2', 5)])]);
    expect(await get('127.0.0.1', hc)).toMatch(/^HTTP\/1\.1 503/);
    expect(parseJson<HealthCheckReply>(await get('127.0.0.2', hc)).localEndpoints).toBe(1);
    await expect(get('127.0.0.1', port)).rejects.toThrow(/ECONNREFUSED/);
    expect(parseJson(await get('127.0.0.2', port)).pod).toBe('loc-c');
  });

  it('keeps a client address on one pod under ClientIP affinity until the timeout', async () => {
    const port = await portFreeOnBoth();
    const svc = nodePortService('d', 'aff', { nodePort: port, sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
    await apply([svc], [endpointSlice('d', 'aff', [pod('aff-a', 'n1', 2), pod('aff-b', 'n2', 3)])], [N1]);
    const from = async (client: string): Promise<string | null> => parseJson(await get('127.0.0.1', port, '/', client)).pod;
    const pinned = await from('127.0.0.11');
    expect([await from('127.0.0.11'), await from('127.0.0.11')]).toEqual([pinned, pinned]);
    expect(await from('127.0.0.12')).not.toBe(pinned);
    // Two endpoints: the round robin's next turn after another client is the other pod.
    await clock.advance(60_000);
    await from('127.0.0.13');
    expect(await from('127.0.0.11')).not.toBe(pinned);
  });

  it('answers 503 under /unhealthy, speaks first to a silent client and reports a PROXY v1 header', async () => {
    const port = await portFreeOnBoth();
    await apply([nodePortService('ns', 'tcp', { nodePort: port })], [endpointSlice('ns', 'tcp', [pod('tcp-a', 'n1', 2)])], [N1]);
    expect(await get('127.0.0.1', port, '/unhealthy')).toMatch(/^HTTP\/1\.1 503/);
    expect(parseJson(await exchange('127.0.0.1', port))).toMatchObject({ node: 'n1', service: 'ns/tcp', pod: 'tcp-a', path: null });
    const res = await exchange('127.0.0.1', port, `PROXY TCP4 127.9.9.9 127.1.0.1 40000 80\r\nGET / HTTP/1.1\r\n\r\n`);
    expect(parseJson(res).proxy).toEqual({ version: 1, protocol: 'TCP4', srcAddress: '127.9.9.9', dstAddress: '127.1.0.1', srcPort: 40000, dstPort: 80 });
  });

  it('stops listening when the node, the endpoints or the service go away', async () => {
    const port = await portFreeOnBoth();
    const svc = nodePortService('d', 's', { nodePort: port });
    const slice = endpointSlice('d', 's', [pod('s-a', 'n1', 2)]);
    await apply([svc], [slice], [N1]);
    expect(listening()).toEqual([`127.0.0.1:${port}`]);
    await apply([svc], [slice], []);
    expect(listening()).toEqual([]);
    await apply([svc], [slice], [N1]);
    await apply([svc], [], [N1]);
    expect(listening()).toEqual([]);
    await apply([], [slice], [N1]);
    expect(listening()).toEqual([]);
    await expect(exchange('127.0.0.1', port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("answers kube-proxy's health on every running node: /healthz and /livez in its JSON, 404 elsewhere", async () => {
    await clock.advance(1_234);
    await apply([], [], [N1, N2]);
    await clock.advance(500);
    const synced = new Date(clock.now() - 500).toISOString();
    const now = new Date(clock.now()).toISOString();
    for (const ip of ['127.0.0.1', '127.0.0.2']) {
      const healthz = await get(ip, proxier, '/healthz');
      expect(healthz).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json\r\n/);
      expect(parseJson<ProxierHealthReply>(healthz)).toEqual({
        lastUpdated: now,
        currentTime: now,
        nodeEligible: true,
        healthy: true,
        status: { IPv4: { lastUpdated: synced, healthy: true } },
      });
    }
    expect(Object.keys(parseJson<ProxierHealthReply>(await get('127.0.0.1', proxier, '/livez')))).toEqual(['lastUpdated', 'currentTime', 'healthy', 'status']);
    expect(await get('127.0.0.1', proxier, '/metrics')).toMatch(
      /^HTTP\/1\.1 404 Not Found\r\ncontent-type: text\/plain; charset=utf-8\r\n[^]*\r\n\r\n404 page not found\n$/,
    );
    await apply([], [], [N1]);
    await expect(get('127.0.0.2', proxier, '/healthz')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('serves an address kube-vip announced on its leader node to any client, and stops when the Service goes', async () => {
    const [np, vip] = [await portFreeOnBoth(), '127.2.0.18'];
    const svc = nodePortService('d', 'pnap', { nodePort: np });
    const announced: V1Service = { ...svc, spec: { ...svc.spec, loadBalancerIP: vip }, status: { loadBalancer: { ingress: [{ ip: vip }] } } };
    const slices = [endpointSlice('d', 'pnap', [pod('p-1', 'n2', 4)])];
    // The CCM wrote loadBalancerIP before the ingress: kube-vip announces nothing yet.
    expect(withAnnounced([N1, N2], [{ ...announced, status: {} }])).toEqual([N1, N2]);
    await apply([announced], slices, withAnnounced([N2, N1], [announced]));
    expect(listening()).toContain(`${vip}:80`);
    expect(parseJson(await get(vip, 80, '/conformance', '127.0.0.1'))).toMatchObject({ node: 'n1', service: 'd/pnap', pod: 'p-1', ingress: `${vip}:80` });
    await apply([], [], withAnnounced([N1, N2], []));
    expect(listening()).toEqual([]);
    await expect(get(vip, 80)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('answers for a LoadBalancer ingress IP on the Service port on every node, telling two Services on one port apart by it', async () => {
    const [port, np1, np2] = [await portFreeOnBoth(), await portFreeOnBoth(), await portFreeOnBoth()];
    const lb = (name: string, nodePort: number, ingress: V1LoadBalancerIngress[]): V1Service => {
      const svc = nodePortService('d', name, { nodePort });
      return {
        ...svc,
        spec: { ...svc.spec, ports: [{ name: 'http', port, targetPort: 8080, protocol: 'TCP', nodePort }] },
        status: { loadBalancer: { ingress } },
      };
    };
    const [vipA, vipB] = ['127.0.0.77', '127.0.0.78'];
    const services = [lb('a', np1, [{ ip: vipA }, { ip: '2001:db8::1' }]), lb('b', np2, [{ ip: vipB }])];
    const slices = [endpointSlice('d', 'a', [pod('a-1', 'n1', 2)]), endpointSlice('d', 'b', [pod('b-1', 'n2', 3)])];
    await apply(services, slices);
    expect(parseJson(await get('127.0.0.2', port, '/', vipA))).toMatchObject({
      node: 'n2',
      service: 'd/a',
      pod: 'a-1',
      nodePort: np1,
      ingress: `${vipA}:${port}`,
    });
    expect(parseJson(await get('127.0.0.1', port, '/', vipB))).toMatchObject({ node: 'n1', service: 'd/b', pod: 'b-1', ingress: `${vipB}:${port}` });
    // Nothing addressed to this port from elsewhere: no ingress IP, no NodePort.
    await expect(get('127.0.0.1', port, '/', '127.0.0.79')).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect(parseJson(await get('127.0.0.1', np1, '/', '127.0.0.79'))).toMatchObject({ service: 'd/a', ingress: null });
    // An ingress in ipMode Proxy is not programmed on the nodes, and without endpoints nothing is.
    await apply([lb('a', np1, [{ ip: vipA, ipMode: 'Proxy' }]), services[1]!], [slices[1]!]);
    expect(listening()).toEqual([`127.0.0.1:${np2}`, `127.0.0.1:${port}`, `127.0.0.2:${np2}`, `127.0.0.2:${port}`].sort());
    await expect(get('127.0.0.1', port, '/', vipA)).rejects.toThrow(/ECONNRESET|socket hang up/);
  });

  it('under policy Local answers for an ingress IP only on the nodes with an endpoint of their own', async () => {
    const [port, nodePort] = [await portFreeOnBoth(), await portFreeOnBoth()];
    const svc = nodePortService('d', 'loc', { nodePort, externalTrafficPolicy: 'Local' });
    const withIngress = {
      ...svc,
      spec: { ...svc.spec, ports: [{ name: 'http', port, protocol: 'TCP', nodePort }] },
      status: { loadBalancer: { ingress: [{ ip: '127.0.0.77' }] } },
    };
    await apply([withIngress], [endpointSlice('d', 'loc', [pod('loc-a', 'n1', 2)])]);
    expect(parseJson(await get('127.0.0.1', port, '/', '127.0.0.77')).pod).toBe('loc-a');
    await expect(get('127.0.0.2', port, '/', '127.0.0.77')).rejects.toThrow(/ECONNREFUSED/);
  });

  describe('with pods that answer as their image does', () => {
    const pods = new Map<string, V1Pod>();
    let imaged: NodePortStandIns;
    beforeAll(() => {
      imaged = new NodePortStandIns({
        clock,
        proxierHealthPort: proxier,
        pods: (ns, name) => pods.get(`${ns}/${name}`),
        images: new ImageReplies(loadImageTable()),
      });
    });
    afterEach(() => imaged.close());
    const running = (name: string, container: V1Container): void => {
      pods.set(`d/${name}`, { metadata: { name, namespace: 'd' }, spec: { containers: [container] }, status: { podIP: '10.244.1.2' } });
    };

    it('answers HTTP and TCP lines as the image, and as the stand-in for an image not in the table', async () => {
      const port = await portFreeOnBoth();
      running('ts-a', { name: 't', image: 'appscode/test-server:2.3', env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] });
      running('echo-b', { name: 'e', image: 'hashicorp/http-echo', args: ['-text=hi from b'] });
      running('app-c', { name: 'c', image: 'example.com/app:1' });
      await imaged.apply(
        [N1],
        buildProxyTable(
          [nodePortService('d', 'web', { nodePort: port })],
          [endpointSlice('d', 'web', [pod('ts-a', 'n1', 2), pod('echo-b', 'n1', 3), pod('app-c', 'n1', 4)])],
        ),
      );
      const a = await get('127.0.0.1', port, '/x?y=1');
      expect(a).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json/);
      expect(parseJson<{ podName: string; path: string; host: string }>(a)).toMatchObject({ podName: 'ts-a', path: '/x', host: 'x' });
      expect((await get('127.0.0.1', port)).split('\r\n\r\n')[1]).toBe('hi from b\n');
      expect(parseJson(await get('127.0.0.1', port)).pod).toBe('app-c');
      // A plain TCP client: test-server's line, http-echo's 400 (an HTTP server), the stand-in's JSON.
      expect(JSON.parse(await exchange('127.0.0.1', port, 'hello\n'))).toMatchObject({ type: 'tcp', podName: 'ts-a' });
      expect(await exchange('127.0.0.1', port, 'hello\n')).toMatch(/^HTTP\/1\.1 400 Bad Request/);
      expect(JSON.parse(await exchange('127.0.0.1', port, 'hello\n'))).toMatchObject({ pod: 'app-c', path: null });
    });

    it("closes a connection without a PROXY header unanswered when the pod requires one, and names the header's client when it comes", async () => {
      const port = await portFreeOnBoth();
      const behaviour = { proxyProtocol: 'required', http: [{ path: '/*', reply: { json: { pod: '{{pod.name}}', proxied: '{{proxy.source}}' } } }] };
      pods.set('d/pp-a', {
        metadata: { name: 'pp-a', namespace: 'd', annotations: { [REPLIES_ANNOTATION]: JSON.stringify(behaviour) } },
        spec: { containers: [{ name: 'n', image: 'nginx' }] },
      });
      await imaged.apply([N1], buildProxyTable([nodePortService('d', 'pp', { nodePort: port })], [endpointSlice('d', 'pp', [pod('pp-a', 'n1', 2)])]));
      expect(await get('127.0.0.1', port)).toBe('');
      const res = await exchange('127.0.0.1', port, `PROXY TCP4 127.9.9.9 127.1.0.1 40000 80\r\nGET / HTTP/1.1\r\nhost: x\r\n\r\n`);
      expect(parseJson(res)).toEqual({ pod: 'pp-a', proxied: '127.9.9.9:40000' });
    });

    it('answers a UDP NodePort per flow as the image does, and with the stand-in JSON for an unknown image', async () => {
      const port = await portFreeOnBoth();
      running('net-a', { name: 'n', image: 'registry.k8s.io/e2e-test-images/agnhost:2.52', args: ['netexec', '--udp-port=8081'] });
      running('app-b', { name: 'b', image: 'example.com/app:1' });
      const udpSvc = (name: string, nodePort: number): V1Service => ({
        metadata: { namespace: 'd', name },
        spec: { type: 'NodePort', ports: [{ name: 'dns', port: 53, protocol: 'UDP', nodePort }] },
      });
      const udpSlice = (name: string, pods: ReturnType<typeof pod>[]): V1EndpointSlice => {
        const slice = endpointSlice('d', name, pods, { port: { name: 'dns', port: 8081 } });
        return { ...slice, ports: [{ name: 'dns', port: 8081, protocol: 'UDP' }] };
      };
      const other = await portFreeOnBoth();
      await imaged.apply(
        [N1],
        buildProxyTable([udpSvc('net', port), udpSvc('app', other)], [udpSlice('net', [pod('net-a', 'n1', 2)]), udpSlice('app', [pod('app-b', 'n1', 3)])]),
      );
      expect(imaged.listening()).toEqual(expect.arrayContaining([`127.0.0.1:${port}/udp`, `127.0.0.1:${other}/udp`]));
      expect(imaged.listening()).not.toContain(`127.0.0.1:${port}`);
      const client = await udpClient();
      try {
        expect(await client.ask('127.0.0.1', port, 'hostname')).toBe('net-a');
        expect(await client.ask('127.0.0.1', port, 'echo over udp')).toBe('over udp');
        expect(JSON.parse((await client.ask('127.0.0.1', other, 'x'))!)).toMatchObject({ service: 'd/app', pod: 'app-b', nodePort: other, path: null });
      } finally {
        client.close();
      }
    });
  });
});
