// The kube-proxy stand-in against the real control plane: Services and EndpointSlices written by hand
// (ready or not, with nodeName), so what the stand-in does on the node addresses follows from the
// apiserver's objects alone, with no pods and no CCM involved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscoveryV1Api, PatchStrategy, setHeaderOptions, type V1EndpointSlice } from '@kubernetes/client-node';
import { claimLoopbackAddressPlan, type AddressPlanLease } from '../../sandbox/cloud/address-plan.ts';
import { KubeProxyStandIn } from '../../sandbox/kubelet/kube-proxy.ts';
import type { HealthCheckReply, StandInReply } from '../../sandbox/kubelet/nodeport-standins.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { sharedControlPlane, uniqueName, type TestCluster } from '../helpers/control-plane.ts';
import { endpointSlice, type HandEndpoint } from '../helpers/endpoint-slices.ts';
import { httpGet } from '../helpers/sandbox.ts';

describe('kube-proxy stand-in with the real control plane', () => {
  let cluster: TestCluster;
  let lease: AddressPlanLease;
  let proxy: KubeProxyStandIn;
  let discovery: DiscoveryV1Api;
  const ns = uniqueName('kp');
  const errors: string[] = [];
  let ip1 = '';
  let ip2 = '';

  beforeAll(async () => {
    cluster = await sharedControlPlane();
    lease = claimLoopbackAddressPlan();
    [ip1, ip2] = [`127.${lease.base}.0.1`, `127.${lease.base}.0.2`];
    discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
    await cluster.core.createNamespace({ body: { metadata: { name: ns } } });
    proxy = new KubeProxyStandIn({
      kubeConfig: cluster.kubeConfig,
      nodes: () => [
        { name: 'n1', ips: [ip1] },
        { name: 'n2', ips: [ip2] },
      ],
      onError: (m) => errors.push(m),
    });
    await proxy.start();
  });

  afterAll(async () => {
    await proxy?.stop();
    lease?.release();
    await cluster?.core.deleteNamespace({ name: ns }).catch(() => undefined);
  });

  const service = async (name: string, spec: { externalTrafficPolicy?: 'Local' }): Promise<{ nodePort: number; healthCheckNodePort: number }> => {
    const svc = await cluster.core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name }, spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...spec } },
    });
    return { nodePort: svc.spec!.ports![0]!.nodePort!, healthCheckNodePort: svc.spec?.healthCheckNodePort ?? 0 };
  };
  const putSlice = async (slice: V1EndpointSlice): Promise<void> => {
    const name = slice.metadata!.name!;
    const existing = await discovery.readNamespacedEndpointSlice({ name, namespace: ns }).catch(() => undefined);
    if (existing)
      await discovery.replaceNamespacedEndpointSlice({
        name,
        namespace: ns,
        body: { ...slice, metadata: { ...slice.metadata, resourceVersion: existing.metadata?.resourceVersion } },
      });
    else await discovery.createNamespacedEndpointSlice({ namespace: ns, body: slice });
  };
  const refused = (ip: string, port: number): Promise<boolean> =>
    httpGet(ip, port).then(
      () => false,
      (err: unknown) => /ECONNREFUSED/.test(String(err)),
    );
  const served = async (ip: string, port: number): Promise<StandInReply | undefined> => {
    const res = await httpGet(ip, port, '/').catch(() => undefined);
    return res?.status === 200 ? (JSON.parse(res.body) as StandInReply) : undefined;
  };
  const until = <T>(fn: () => Promise<T | undefined | false>, description: string): Promise<T> =>
    waitFor(async () => (await fn()) || undefined, { timeoutMs: 20_000, intervalMs: 100, description });

  it('refuses a Service with no ready endpoint, answers once one is ready, and refuses again when it goes', async () => {
    const { nodePort } = await service('web', {});
    const pod: HandEndpoint = { pod: 'web-0', node: 'n2', ip: '10.244.2.7', ready: false };
    await putSlice(endpointSlice(ns, 'web', [pod]));
    expect(await refused(ip1, nodePort)).toBe(true);
    await putSlice(endpointSlice(ns, 'web', [{ ...pod, ready: true }]));
    // Cluster policy: both nodes take the traffic, the endpoint lives on n2.
    for (const ip of [ip1, ip2]) {
      const reply = await until(() => served(ip, nodePort), `web-0 served through ${ip}`);
      expect(reply).toMatchObject({ service: `${ns}/web`, pod: 'web-0', endpoint: { address: '10.244.2.7', port: 8080, node: 'n2' } });
    }
    await discovery.deleteNamespacedEndpointSlice({ name: 'web-hand', namespace: ns });
    await until(async () => (await refused(ip1, nodePort)) && refused(ip2, nodePort), 'both nodes to refuse once the slice is gone');
  });

  it('serves externalTrafficPolicy Local only where a ready endpoint is, and reports it on the healthCheckNodePort', async () => {
    const { nodePort, healthCheckNodePort } = await service('local', { externalTrafficPolicy: 'Local' });
    expect(healthCheckNodePort).toBeGreaterThan(0);
    await putSlice(
      endpointSlice(ns, 'local', [
        { pod: 'local-0', node: 'n1', ip: '10.244.1.7' },
        { pod: 'local-1', node: 'n2', ip: '10.244.2.8', ready: false },
      ]),
    );
    const healthOf = async (ip: string): Promise<{ status: number; body: HealthCheckReply } | undefined> => {
      const res = await httpGet(ip, healthCheckNodePort, '/healthz').catch(() => undefined);
      return res && { status: res.status, body: JSON.parse(res.body) as HealthCheckReply };
    };
    const n1 = await until(async () => {
      const h = await healthOf(ip1);
      return h?.status === 200 && h;
    }, 'n1 healthy');
    expect(n1.body).toEqual({ service: { namespace: ns, name: 'local' }, localEndpoints: 1, serviceProxyHealthy: true });
    expect(await healthOf(ip2)).toEqual({ status: 503, body: { service: { namespace: ns, name: 'local' }, localEndpoints: 0, serviceProxyHealthy: true } });
    expect(await served(ip1, nodePort)).toMatchObject({ node: 'n1', pod: 'local-0' });
    expect(await refused(ip2, nodePort)).toBe(true);
    expect(errors).toEqual([]);
  });

  it("answers for a LoadBalancer ingress IP on the Service's port once the status names it, and kube-proxy's health on 10256", async () => {
    for (const ip of [ip1, ip2]) {
      const res = await until(() => httpGet(ip, 10256, '/healthz').catch(() => undefined), `kube-proxy's health on ${ip}`);
      expect([res.status, Object.keys(JSON.parse(res.body) as object)]).toEqual([200, ['lastUpdated', 'currentTime', 'nodeEligible', 'healthy', 'status']]);
    }
    const port = 18080;
    const vip = `127.${lease.base}.9.9`;
    await cluster.core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: 'nlb' }, spec: { type: 'LoadBalancer', selector: { app: 'nlb' }, ports: [{ name: 'http', port, targetPort: 8080 }] } },
    });
    await putSlice(endpointSlice(ns, 'nlb', [{ pod: 'nlb-0', node: 'n2', ip: '10.244.2.9' }]));
    const fromVip = (ip: string): Promise<StandInReply | undefined> =>
      httpGet(ip, port, '/', vip).then(
        (r) => (r.status === 200 ? (JSON.parse(r.body) as StandInReply) : undefined),
        () => undefined,
      );
    expect(await fromVip(ip1)).toBeUndefined();
    // What a CCM writes once its load balancer is up; kube-proxy then programs the ingress IP on every node.
    await cluster.core.patchNamespacedServiceStatus(
      { name: 'nlb', namespace: ns, body: { status: { loadBalancer: { ingress: [{ ip: vip }] } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    for (const ip of [ip1, ip2]) {
      const reply = await until(() => fromVip(ip), `nlb answering through ${ip}:${port} for ${vip}`);
      expect(reply).toMatchObject({
        service: `${ns}/nlb`,
        pod: 'nlb-0',
        ingress: `${vip}:${port}`,
        peer: expect.stringMatching(new RegExp(`^${vip.replace(/\./g, '\\.')}:`)) as unknown,
      });
    }
    // From any other address the Service's port is not the ingress IP's.
    expect(
      await httpGet(ip1, port, '/', '127.0.0.1').then(
        (r) => r.status,
        () => 0,
      ),
    ).toBe(0);
    expect(errors).toEqual([]);
  });

  it('answers for a pod as its image does, from the pods the apiserver has (the image table), and follows a changed annotation', async () => {
    const { nodePort } = await service('img', {});
    await cluster.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'img-0' },
        spec: {
          nodeName: 'n1',
          containers: [{ name: 'echo', image: 'hashicorp/http-echo:1.0', args: ['-text=from the table'], ports: [{ containerPort: 8080 }] }],
        },
      },
    });
    await putSlice(endpointSlice(ns, 'img', [{ pod: 'img-0', node: 'n1', ip: '10.244.1.9' }]));
    const body = async (): Promise<string | undefined> => (await httpGet(ip1, nodePort, '/').catch(() => undefined))?.body;
    await until(async () => (await body()) === 'from the table\n', "http-echo's -text through the NodePort");
    await cluster.core.patchNamespacedPod(
      {
        name: 'img-0',
        namespace: ns,
        body: {
          metadata: {
            annotations: { 'ccm-sandbox.dev/replies': JSON.stringify({ http: [{ path: '/*', reply: { text: 'pod {{pod.name}} in {{pod.namespace}}' } }] }) },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await until(async () => (await body()) === `pod img-0 in ${ns}`, "the annotation's reply");
  });
});
