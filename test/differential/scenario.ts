// The differential scenario, run the same way against a fresh sandbox for each CCM: nodes join (the
// sandbox's up), three LoadBalancer Services are created, one is updated (an annotation and its ports), one
// deleted, one worker is powered off and another deleted, routes converge; then the end state is taken
// once it has stopped changing. Every wait is on an observable end state, never on a CCM's internals.
import { setHeaderOptions, type CoordinationV1Api, type CoreV1Api, type V1Node } from '@kubernetes/client-node';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import { SANDBOX_LABELS } from '../../sandbox/cloud/sandbox-cloud.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { hasTaint, readyOf, waitForIngress } from '../helpers/sandbox.ts';
import { Roles } from './roles.ts';
import { learnRoles, takeSnapshot, type Snapshot, type SnapshotSources } from './snapshot.ts';

const NS = 'default';
const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';
const HC_PATH = 'loadbalancer.simcloud.dev/health-check-path';
/** How long the end state must stay the same before it is taken (longer than any CCM's batching window). */
const QUIET_MS = 8000;

export const SERVICES = ['default/plain', 'default/annotated', 'default/doomed', 'default/invalid'] as const;

export interface ScenarioTarget {
  readonly core: CoreV1Api;
  readonly leases: CoordinationV1Api;
  readonly cloud: SimcloudClient;
  readonly cluster: string;
  readonly log: (message: string) => void;
}

const lbService = (name: string, port: number, annotations: Record<string, string> = {}, sourceRanges?: string[]): object => ({
  metadata: { name, annotations },
  spec: {
    type: 'LoadBalancer',
    selector: { app: name },
    ports: [{ name: 'tcp', port, targetPort: 8080 }],
    ...(sourceRanges ? { loadBalancerSourceRanges: sourceRanges } : {}),
  },
});

export async function runScenario(t: ScenarioTarget): Promise<Snapshot> {
  const roles = new Roles();
  const sources: SnapshotSources = { core: t.core, cloud: t.cloud, leases: t.leases, services: SERVICES };
  await createServices(t);
  await learnRoles(roles, sources);
  await updateAnnotated(t);
  await deleteDoomed(t);
  await learnRoles(roles, sources);
  await nodeLifecycle(t);
  await convergedRoutes(t);
  t.log('waiting for the end state to stay the same');
  return settled(() => takeSnapshot(roles, sources));
}

async function createServices(t: ScenarioTarget): Promise<void> {
  t.log('creating four LoadBalancer Services, one with an invalid annotation');
  await t.core.createNamespacedService({ namespace: NS, body: lbService('plain', 80) });
  const annotations = {
    'loadbalancer.simcloud.dev/health-check-protocol': 'http',
    [HC_PATH]: '/healthz',
    'loadbalancer.simcloud.dev/algorithm': 'least_connections',
  };
  await t.core.createNamespacedService({ namespace: NS, body: lbService('annotated', 8081, annotations, ['127.0.0.1/32']) });
  await t.core.createNamespacedService({ namespace: NS, body: lbService('doomed', 8082) });
  await t.core.createNamespacedService({ namespace: NS, body: lbService('invalid', 8083, { 'loadbalancer.simcloud.dev/algorithm': 'fastest' }) });
  for (const name of ['plain', 'annotated', 'doomed']) await waitForIngress(t.core, NS, name);
  await waitFor(async () => (await t.core.listNamespacedEvent({ namespace: NS, fieldSelector: 'involvedObject.name=invalid,type=Warning' })).items.length > 0, {
    timeoutMs: 60_000,
    intervalMs: 250,
    description: 'a Warning Event on the Service invalid',
  });
}

async function lbOf(t: ScenarioTarget, name: string): Promise<Awaited<ReturnType<SimcloudClient['loadBalancers']['get']>> | undefined> {
  const vip = (await t.core.readNamespacedService({ name, namespace: NS })).status?.loadBalancer?.ingress?.[0]?.ip;
  return (await t.cloud.loadBalancers.listAll()).find((lb) => lb.public_ipv4 === vip);
}

async function updateAnnotated(t: ScenarioTarget): Promise<void> {
  t.log('updating annotated: health-check path annotation and a second port');
  await t.core.patchNamespacedService(
    {
      name: 'annotated',
      namespace: NS,
      body: [
        { op: 'replace', path: `/metadata/annotations/${HC_PATH.replace('/', '~1')}`, value: '/ready' },
        { op: 'add', path: '/spec/ports/-', value: { name: 'tls', port: 8443, targetPort: 8443 } },
      ],
    },
    setHeaderOptions('Content-Type', 'application/json-patch+json'),
  );
  await waitFor(
    async () => {
      const lb = await lbOf(t, 'annotated');
      const ports = lb?.services.map((s) => `${s.listen_port}${s.health_check.path}`).sort();
      return JSON.stringify(ports) === JSON.stringify(['8081/ready', '8443/ready']);
    },
    { timeoutMs: 60_000, intervalMs: 250, description: 'the LB of annotated to listen on 8081 and 8443 with health-check path /ready' },
  );
}

async function deleteDoomed(t: ScenarioTarget): Promise<void> {
  t.log('deleting doomed');
  const lb = await lbOf(t, 'doomed');
  await t.core.deleteNamespacedService({ name: 'doomed', namespace: NS });
  await waitFor(
    async () => {
      const gone = await t.core.readNamespacedService({ name: 'doomed', namespace: NS }).then(
        () => false,
        () => true,
      );
      const lbs = await t.cloud.loadBalancers.listAll();
      return gone && !lbs.some((x) => x.id === lb?.id);
    },
    { timeoutMs: 60_000, intervalMs: 250, description: 'the Service doomed and its load balancer to be gone' },
  );
}

async function nodeLifecycle(t: ScenarioTarget): Promise<void> {
  const workers = (await t.cloud.servers.listAll({ label_selector: `${SANDBOX_LABELS.role}=worker` })).sort((a, b) => a.name.localeCompare(b.name));
  const [off, deleted] = workers;
  if (!off || !deleted) throw new Error(`the scenario needs two workers, the cluster has ${workers.length}`);
  t.log(`powering ${off.name} off and deleting ${deleted.name}`);
  await t.cloud.waitForAction((await t.cloud.servers.poweroff(off.id)).id);
  await t.cloud.servers.delete(deleted.id);
  const node = (name: string): Promise<V1Node | undefined> => t.core.readNode({ name }).catch(() => undefined);
  await waitFor(
    async () => {
      const n = await node(off.name);
      return n !== undefined && readyOf(n) !== 'True' && hasTaint(n, SHUTDOWN_TAINT) && (await node(deleted.name)) === undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500, description: `${off.name} NotReady with the shutdown taint and Node ${deleted.name} deleted` },
  );
}

async function convergedRoutes(t: ScenarioTarget): Promise<void> {
  const network = (await t.cloud.networks.listAll({ name: t.cluster }))[0];
  if (!network) throw new Error(`no network ${t.cluster}`);
  await waitFor(
    async () => {
      const nodes = (await t.core.listNode()).items.filter((n) => n.spec?.podCIDR);
      const routes = new Set((await t.cloud.networks.listRoutes(network.id)).map((r) => r.destination));
      return nodes.length > 0 && routes.size === nodes.length && nodes.every((n) => routes.has(n.spec?.podCIDR ?? ''));
    },
    { timeoutMs: 60_000, intervalMs: 500, description: 'one route per remaining node podCIDR and no other' },
  );
}

/** The snapshot once it has not changed for QUIET_MS (Events and LB membership follow the last change). */
async function settled(take: () => Promise<Snapshot>): Promise<Snapshot> {
  let last = '';
  let since = Date.now();
  let snapshot: Snapshot = new Map();
  return waitFor(
    async () => {
      snapshot = await take();
      const text = JSON.stringify([...snapshot]);
      if (text !== last) {
        last = text;
        since = Date.now();
      }
      return Date.now() - since >= QUIET_MS ? snapshot : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1000, description: `the end state to stay the same for ${QUIET_MS / 1000} s` },
  );
}
