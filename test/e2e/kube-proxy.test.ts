// End-to-end: the kube-proxy stand-in under a whole sandbox (simcloud + cluster + CCM + real pods).
// (b) `kubectl expose deployment web --type=LoadBalancer --port=80`: HTTP through the VIP reaches pods
// of `web` and only them; scaled to zero, the VIP refuses. (c) externalTrafficPolicy Local: traffic
// only reaches nodes with a local pod, and the load balancer's own health checks (on the Service's
// healthCheckNodePort) show the other nodes down. This suite brings up a sandbox of its own, with the CCM
// named by SANDBOX_CCM (both CCMs configure that health check as upstream does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import type { HealthCheckReply, StandInReply } from '../../sandbox/kubelet/nodeport-standins.ts';
import { REPLIES_ANNOTATION, STAND_IN_REPLIES } from '../../sandbox/kubelet/images/schema.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { e2eCcm, httpGet, startE2eSandbox, waitForIngress, type E2eSandbox } from '../helpers/sandbox.ts';

const NS = 'default';

describe(`kube-proxy semantics through the load balancer of the ${e2eCcm().kind} CCM`, () => {
  let e: E2eSandbox;
  let apps: AppsV1Api;

  beforeAll(async () => {
    e = await startE2eSandbox({ name: 'kproxy' });
    apps = e.kubeConfig.makeApiClient(AppsV1Api);
  });

  afterAll(async () => {
    await e?.stop();
  });

  /**
   * What `kubectl create deployment NAME --image=nginx --replicas=N` creates; the pods land on the workers,
   * since the control-plane node carries kubeadm's NoSchedule taint.
   */
  const deploy = (name: string, replicas: number) =>
    apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name, labels: { app: name } },
        spec: {
          replicas,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name }, annotations: { [REPLIES_ANNOTATION]: STAND_IN_REPLIES } },
            spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
          },
        },
      },
    });
  /** What `kubectl expose deployment NAME --type=LoadBalancer --port=80` creates (plus the given spec). */
  const expose = (name: string, extra: { externalTrafficPolicy?: 'Local'; annotations?: Record<string, string> } = {}) =>
    e.core.createNamespacedService({
      namespace: NS,
      body: {
        metadata: { name, labels: { app: name }, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
        spec: {
          type: 'LoadBalancer',
          selector: { app: name },
          ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
          ...(extra.externalTrafficPolicy ? { externalTrafficPolicy: extra.externalTrafficPolicy } : {}),
        },
      },
    });
  const readyPods = async (app: string): Promise<V1Pod[]> =>
    (await e.core.listNamespacedPod({ namespace: NS, labelSelector: `app=${app}` })).items.filter(
      (p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
  const waitForReadyPods = (app: string, count: number): Promise<V1Pod[]> =>
    waitFor(
      async () => {
        const pods = await readyPods(app);
        return pods.length === count ? pods : undefined;
      },
      {
        timeoutMs: 90_000,
        intervalMs: 250,
        description: `${count} ready pods of ${app}`,
      },
    );
  const served = async (vip: string): Promise<StandInReply | undefined> => {
    const res = await httpGet(vip, 80, '/').catch(() => undefined);
    return res?.status === 200 ? (JSON.parse(res.body) as StandInReply) : undefined;
  };
  /** The VIP gives no HTTP answer: the LB resets the connection (or finds no healthy target). */
  const vipRefuses = async (vip: string): Promise<boolean> =>
    (await httpGet(vip, 80, '/').then(
      (r) => r.status,
      () => 0,
    )) === 0;

  it('(b) carries HTTP through the VIP to the pods of web only, and refuses once web is scaled to zero', async () => {
    await deploy('web', 2);
    const svc = await expose('web');
    const vip = await waitForIngress(e.core, NS, 'web', 90_000);
    const pods = new Set((await waitForReadyPods('web', 2)).map((p) => p.metadata?.name));
    const seen = new Set<string | null>();
    await waitFor(
      async () => {
        const reply = await served(vip);
        if (reply) {
          expect(reply.service).toBe(`${NS}/web`);
          expect(pods, `pod ${reply.pod} served`).toContain(reply.pod);
          seen.add(reply.pod);
        }
        return seen.size === pods.size;
      },
      { timeoutMs: 60_000, intervalMs: 50, description: 'answers from both pods of web through the VIP' },
    );
    await apps.patchNamespacedDeploymentScale(
      { name: 'web', namespace: NS, body: { spec: { replicas: 0 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor(() => vipRefuses(vip), { timeoutMs: 60_000, intervalMs: 250, description: 'the VIP to refuse with web scaled to zero' });
    // Refused at the nodes too: no node listens on the NodePort any more.
    const nodePort = svc.spec!.ports![0]!.nodePort!;
    for (const server of await e.sandbox.client.servers.listAll()) {
      for (const ip of [server.private_ipv4, server.public_ipv4]) {
        if (ip) await expect(httpGet(ip, nodePort, '/'), `${server.name} ${ip}:${nodePort}`).rejects.toThrow(/ECONNREFUSED/);
      }
    }
  });

  it('(c) with externalTrafficPolicy Local only nodes with a local pod take traffic, and the LB sees the others down', async () => {
    await deploy('local', 1);
    const svc = await expose('local', {
      externalTrafficPolicy: 'Local',
      annotations: { 'loadbalancer.simcloud.dev/health-check-interval': '1', 'loadbalancer.simcloud.dev/health-check-retries': '1' },
    });
    const vip = await waitForIngress(e.core, NS, 'local', 90_000);
    const [pod] = await waitForReadyPods('local', 1);
    const home = pod!.spec!.nodeName!;
    const servers = await e.sandbox.client.servers.listAll();
    const nameOf = new Map(servers.map((s) => [s.id, s.name]));
    // The LB's targets as the cloud sees them: healthy only where kube-proxy's health check says 200.
    const health = await waitFor(
      async () => {
        const lb = (await e.sandbox.client.loadBalancers.listAll()).find((l) => l.public_ipv4 === vip);
        const states = (lb?.resolved_targets ?? []).map((t) => [nameOf.get(t.server_id ?? '') ?? t.id, t.health[0]?.status] as const);
        const settled = states.length > 1 && states.every(([, s]) => s === 'healthy' || s === 'unhealthy');
        return settled && states.some(([n, s]) => n === home && s === 'healthy') ? states : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: `the LB to check every target, ${home} healthy` },
    );
    for (const [node, status] of health) expect(status, node).toBe(node === home ? 'healthy' : 'unhealthy');
    for (let i = 0; i < 10; i += 1) {
      const reply = await waitFor(() => served(vip), { timeoutMs: 10_000, intervalMs: 100, description: 'an answer through the VIP' });
      expect(reply).toMatchObject({ node: home, pod: pod!.metadata!.name, endpoint: { node: home } });
    }
    // kube-proxy's health check on each node: 200 with one local endpoint at home, 503 elsewhere.
    const hcPort = svc.spec!.healthCheckNodePort!;
    for (const server of servers.filter((s) => nameOf.has(s.id) && s.private_ipv4)) {
      const res = await httpGet(server.private_ipv4!, hcPort, '/healthz');
      const body = JSON.parse(res.body) as HealthCheckReply;
      expect([res.status, body.localEndpoints], server.name).toEqual(server.name === home ? [200, 1] : [503, 0]);
    }
  });
});
