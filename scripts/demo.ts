#!/usr/bin/env node
// `npm run demo [-- --name NAME]`: a narrated walk-through on a running sandbox. Each step says what the
// kubelet did, which cloud calls the CCM made (from simcloud's event stream, by the caller header), what
// changed in the cluster, and how long it took. It ends in the state it started from.
import { parseArgs } from 'node:util';
import { AppsV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../sandbox/kube/pooled-kubeconfig.ts';
import { SimcloudClient } from '../simulator/api/client/index.ts';
import type { ApiCallEvent } from '../simulator/api/schema/events.ts';
import { followSimEvents } from '../sandbox/cloud/events.ts';
import { SimcloudSandboxCloud } from '../sandbox/cloud/sandbox-cloud.ts';
import { REPLIES_ANNOTATION, STAND_IN_REPLIES } from '../sandbox/kubelet/images/schema.ts';
import { UNINITIALIZED_TAINT } from '../sandbox/kubelet/node-object.ts';
import { processAlive, readState, stateDir, type SandboxState } from '../sandbox/state.ts';
import { waitFor } from '../sandbox/wait.ts';

const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';

interface Demo {
  readonly state: SandboxState;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly client: SimcloudClient;
  readonly cloud: SimcloudSandboxCloud;
  readonly calls: ApiCallEvent[];
}

function say(text: string): void {
  console.log(text);
}

/** Runs one step: prints what it does, then the CCM's cloud calls it caused and how long it took. */
async function step(demo: Demo, title: string, explain: string, fn: () => Promise<string[]>): Promise<void> {
  say(`\n== ${title}\n   ${explain}`);
  const from = demo.calls.length;
  const started = Date.now();
  const observations = await fn();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  for (const line of observations) say(`   - ${line}`);
  const ccmCalls = demo.calls.slice(from).filter((c) => c.caller && !c.caller.startsWith('ccm-sandbox') && !c.caller.startsWith('demo'));
  const byCaller = new Map<string, string[]>();
  for (const c of ccmCalls) byCaller.set(c.caller ?? '', [...(byCaller.get(c.caller ?? '') ?? []), `${c.method} ${c.path.split('?')[0]} -> ${c.status}`]);
  say(`   cloud calls by the CCM: ${ccmCalls.length}`);
  for (const [caller, calls] of byCaller) say(`     ${caller}: ${calls.slice(0, 6).join(', ')}${calls.length > 6 ? `, ... (${calls.length})` : ''}`);
  say(`   took ${seconds} s`);
}

const readNode = async (demo: Demo, name: string): Promise<V1Node | undefined> => demo.core.readNode({ name }).catch(() => undefined);
const ready = (n: V1Node | undefined): string => n?.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
const tainted = (n: V1Node | undefined, key: string): boolean => n?.spec?.taints?.some((t) => t.key === key) ?? false;

/** The distinct FailedScheduling messages of the app's pods so far. */
async function schedulingFailures(demo: Demo, app: string): Promise<string[]> {
  const events = await demo.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=FailedScheduling' });
  return [...new Set(events.items.filter((e) => e.involvedObject.name?.startsWith(`${app}-`)).map((e) => e.message ?? ''))];
}

async function nodeInit(demo: Demo, name: string, app: string): Promise<string[]> {
  // Pods pinned to a machine that does not exist yet: what a user sees while nodes wait for the CCM.
  const labels = { app };
  await demo.apps.createNamespacedDeployment({
    namespace: 'default',
    body: { metadata: { name: app, labels }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { nodeSelector: { 'kubernetes.io/hostname': name }, containers: [{ name: 'web', image: 'nginx' }] } } } },
  });
  const [pendingBecause] = await waitFor(async () => {
    const messages = await schedulingFailures(demo, app);
    return messages.length > 0 ? messages : undefined;
  }, { timeoutMs: 60_000, intervalMs: 200, description: 'FailedScheduling for the pinned pods' });
  const server = await demo.cloud.registerServer({ name, role: 'worker' });
  const node = await waitFor(async () => {
    const n = await readNode(demo, name);
    return n && !tainted(n, UNINITIALIZED_TAINT) ? n : undefined;
  }, { timeoutMs: 60_000, intervalMs: 200, description: `${name} to be initialised` });
  const initialisedAt = Date.now();
  const pods = await waitFor(async () => {
    const list = (await demo.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp);
    return list.length === 2 ? list : undefined;
  }, { timeoutMs: 60_000, intervalMs: 100, description: 'the pinned pods Running' });
  const labelsOf = node.metadata?.labels ?? {};
  const later = (await schedulingFailures(demo, app)).filter((m) => m !== pendingBecause);
  return [
    `Deployment ${app}: 2 pods pinned to ${name} before it exists, Pending: FailedScheduling "${pendingBecause}"`,
    `server ${server.id} created in the cloud; its virtual kubelet registered Node ${name} with the uninitialized taint${later.length > 0 ? `; the scheduler retried: "${later.join('" / "')}"` : ''}`,
    `the cloud-node controller set providerID ${node.spec?.providerID}, instance-type ${labelsOf['node.kubernetes.io/instance-type']}, zone ${labelsOf['topology.kubernetes.io/zone']}, region ${labelsOf['topology.kubernetes.io/region']}`,
    `addresses: ${(node.status?.addresses ?? []).map((a) => `${a.type}=${a.address}`).join(', ')}; the taint is gone`,
    `kube-scheduler bound the pods and the kubelet runs them ${((Date.now() - initialisedAt) / 1000).toFixed(1)} s later: ${pods.map((p) => `${p.metadata?.name} Running at ${p.status?.podIP}`).join(', ')}`,
  ];
}

async function loadBalancer(demo: Demo, service: string): Promise<string[]> {
  // What `kubectl create deployment demo-echo --image=nginx --replicas=2 --port=8080` creates.
  const labels = { app: service };
  await demo.apps.createNamespacedDeployment({
    namespace: 'default',
    body: { metadata: { name: service, labels }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels, annotations: { [REPLIES_ANNOTATION]: STAND_IN_REPLIES } }, spec: { containers: [{ name: 'echo', image: 'nginx', ports: [{ containerPort: 8080 }] }] } } } },
  });
  await demo.core.createNamespacedService({ namespace: 'default', body: { metadata: { name: service }, spec: { type: 'LoadBalancer', selector: labels, ports: [{ port: 80, targetPort: 8080 }] } } });
  const vip = await waitFor(async () => (await demo.core.readNamespacedService({ name: service, namespace: 'default' })).status?.loadBalancer?.ingress?.[0]?.ip, {
    timeoutMs: 60_000, intervalMs: 200, description: 'an ingress IP',
  });
  const nodes = new Set<string>();
  const pods = new Set<string>();
  await waitFor(async () => {
    const res = await fetch(`http://${vip}/`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    const reply = res?.ok ? ((await res.json()) as { node: string; pod: string | null }) : undefined;
    if (reply) nodes.add(reply.node);
    if (reply?.pod) pods.add(reply.pod);
    return nodes.size >= 2 && pods.size >= 2;
  }, { timeoutMs: 60_000, intervalMs: 100, description: 'traffic through the VIP to both pods' });
  return [
    `Deployment default/${service} (2 pods) and Service default/${service}: the Service got the finalizer and ingress ${vip}`,
    `HTTP through ${vip}:80 entered nodes ${[...nodes].sort().join(', ')} via their NodePorts and reached pods ${[...pods].sort().join(', ')}`,
  ];
}

async function shutdown(demo: Demo, name: string): Promise<string[]> {
  const server = (await demo.client.servers.listAll({ name }))[0];
  if (!server) throw new Error(`server ${name} not found`);
  await demo.client.waitForAction((await demo.client.servers.poweroff(server.id)).id);
  await waitFor(async () => { const n = await readNode(demo, name); return ready(n) !== 'True' && tainted(n, SHUTDOWN_TAINT); }, { timeoutMs: 90_000, intervalMs: 250, description: 'the shutdown taint' });
  const lines = [`server ${name} powered off: its kubelet went silent, kube-controller-manager marked the Node NotReady, the CCM saw the server off and added ${SHUTDOWN_TAINT}`];
  await demo.client.waitForAction((await demo.client.servers.poweron(server.id)).id);
  await waitFor(async () => { const n = await readNode(demo, name); return ready(n) === 'True' && !tainted(n, SHUTDOWN_TAINT); }, { timeoutMs: 90_000, intervalMs: 250, description: 'the node back' });
  return [...lines, 'powered on again: the kubelet posted Ready=True and the CCM removed the shutdown taint'];
}

async function deletion(demo: Demo, name: string): Promise<string[]> {
  const server = (await demo.client.servers.listAll({ name }))[0];
  if (!server) throw new Error(`server ${name} not found`);
  await demo.client.servers.delete(server.id);
  await waitFor(async () => (await readNode(demo, name)) === undefined, { timeoutMs: 90_000, intervalMs: 250, description: `Node ${name} deleted` });
  return [`server ${name} deleted: the Node went NotReady, the CCM found no instance behind it and deleted the Node`, 'the service controller updated the load balancer targets (UpdateLoadBalancer)'];
}

async function routes(demo: Demo): Promise<string[]> {
  const network = (await demo.client.networks.listAll({ name: demo.state.name }))[0];
  if (!network) return ['no cluster network'];
  // The route controller works on a period: wait until the routes match the nodes' podCIDRs exactly.
  const list = await waitFor(async () => {
    const cidrs = (await demo.core.listNode()).items.map((n) => n.spec?.podCIDR).filter(Boolean).sort();
    const current = await demo.client.networks.listRoutes(network.id);
    return JSON.stringify(current.map((r) => r.destination).sort()) === JSON.stringify(cidrs) ? current : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500, description: 'one route per node podCIDR' });
  return list.map((r) => `route ${r.destination} via ${r.gateway}`);
}

async function cleanup(demo: Demo, service: string, app: string): Promise<string[]> {
  await demo.apps.deleteNamespacedDeployment({ name: app, namespace: 'default' });
  await demo.apps.deleteNamespacedDeployment({ name: service, namespace: 'default' });
  await demo.core.deleteNamespacedService({ name: service, namespace: 'default' });
  // The finalizer comes off only after EnsureLoadBalancerDeleted succeeded, so a vanished Service means a clean cloud.
  await waitFor(async () => !(await demo.core.listNamespacedService({ namespace: 'default' })).items.some((s) => s.metadata?.name === service), {
    timeoutMs: 60_000, intervalMs: 250, description: 'the Service and its cloud resources to be gone',
  });
  const left = await demo.client.loadBalancers.listAll();
  return [`Deployments ${app} and ${service} and Service ${service} deleted: the CCM removed the cloud resources, then the finalizer; load balancers left: ${left.length}`];
}

function connect(name: string): Demo {
  const state = readState(stateDir(name));
  if (!state || !processAlive(state.pid) || !state.simcloud || !state.kubeconfig) {
    throw new Error(`sandbox "${name}" is not running: start it with \`npm run sandbox:up\``);
  }
  const kc = new PooledKubeConfig();
  kc.loadFromFile(state.kubeconfig);
  const client = new SimcloudClient({ endpoint: state.simcloud.url, token: state.simcloud.token, caller: 'demo' });
  const calls: ApiCallEvent[] = [];
  const abort = new AbortController();
  process.once('exit', () => abort.abort());
  void followSimEvents({ endpoint: state.simcloud.url, adminToken: state.simcloud.adminToken, signal: abort.signal, onEvent: (e) => e.type === 'api_call' && calls.push(e) });
  return { state, core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api), client, cloud: new SimcloudSandboxCloud({ client, clusterName: state.name }), calls };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string', default: 'ccm-sandbox' } } });
  const demo = connect(values.name);
  const worker = `${demo.state.name}-demo-${Date.now().toString(36)}`;
  const service = 'demo-echo';
  const app = 'demo-pinned';
  say(`ccm-sandbox demo on "${demo.state.name}" (${demo.state.runtime} runtime)`);
  await step(demo, '1. Node initialisation', 'Pods wait for a machine; it boots, its kubelet (--cloud-provider=external) registers a Node the CCM must initialise, and only then do the pods run.', () => nodeInit(demo, worker, app));
  await step(demo, '2. Load balancer', 'A Deployment behind a Service of type LoadBalancer: the CCM builds the cloud load balancer and reports its VIP; the nodes pass traffic to the pods.', () => loadBalancer(demo, service));
  await step(demo, '3. Node shutdown', 'The machine is powered off, then on again.', () => shutdown(demo, worker));
  await step(demo, '4. Node deletion', 'The machine is deleted in the cloud.', () => deletion(demo, worker));
  await step(demo, '5. Routes', 'Every node podCIDR is routed to the node in the cluster network.', () => routes(demo));
  await step(demo, '6. Clean up', 'The Deployments and the Service are deleted; nothing is left in the cloud.', () => cleanup(demo, service, app));
  say('\ndone: the sandbox is back where it started');
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
