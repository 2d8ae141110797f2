#!/usr/bin/env node
// `npm run demo [-- --name NAME]`: a narrated walk-through on a running sandbox, or, when none runs, on a
// throwaway one it starts and removes. Each step names the cloud-provider interface methods behind it, lists
// the CCM's calls of those methods apart from other controllers' calls made meanwhile (simcloud's event
// stream, attributed by scripts/demo-calls.ts), says what changed in the cluster, and how long it took.
// Every sentence it prints is about something it observed. It ends in the state it started from.
import { parseArgs } from 'node:util';
import { AppsV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../sandbox/kube/pooled-kubeconfig.ts';
import { SimcloudClient } from '../simulator/api/client/index.ts';
import { DEFAULT_NAME } from '../sandbox/cli/args.ts';
import { followSimEvents } from '../sandbox/cloud/events.ts';
import { SimcloudSandboxCloud } from '../sandbox/cloud/sandbox-cloud.ts';
import { REPLIES_ANNOTATION, STAND_IN_REPLIES } from '../sandbox/kubelet/images/schema.ts';
import { UNINITIALIZED_TAINT } from '../sandbox/kubelet/node-object.ts';
import { commandHint } from '../sandbox/cli/hint.ts';
import { processAlive, readState, stateDir, type SandboxState } from '../sandbox/state.ts';
import { createThrowawaySandbox } from '../sandbox/throwaway.ts';
import { waitFor } from '../sandbox/wait.ts';
import { CloudMethod } from '../src/cloud/provider.ts';
import { CallLedger, qualified, stepCallLines } from './demo-calls.ts';

const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';

interface Demo {
  readonly state: SandboxState;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly client: SimcloudClient;
  readonly cloud: SimcloudSandboxCloud;
  readonly ledger: CallLedger;
}

function say(text: string): void {
  console.log(text);
}

/** Runs one step: what it does and the interface methods behind it, what it observed, the calls, the time. */
/**
 * Waits until simcloud's event stream has delivered every call made so far: the demo makes a call of its own
 * with a unique name and waits to see it, so a call the CCM made before the step ended is not counted in the next.
 */
async function flush(demo: Demo): Promise<void> {
  const marker = `demo-flush-${demo.ledger.step}-${Date.now().toString(36)}`;
  await demo.client.servers.listAll({ name: marker });
  await waitFor(() => [...demo.ledger.own].some((p) => p.includes(marker)), {
    timeoutMs: 10_000,
    intervalMs: 20,
    description: "simcloud's event stream to catch up",
  });
}

interface StepText {
  readonly title: string;
  readonly explain: string;
  /** The interface methods the step shows working. */
  readonly methods: readonly CloudMethod[];
}

async function step(demo: Demo, { title, explain, methods }: StepText, fn: () => Promise<string[]>): Promise<void> {
  say(`\n== ${title}\n   ${explain}\n   interface methods: ${methods.map(qualified).join(', ')}`);
  const from = demo.ledger.calls.length;
  const started = Date.now();
  const observations = await fn();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  await flush(demo);
  for (const line of observations) say(`   - ${line}`);
  for (const line of stepCallLines(demo.ledger.calls.slice(from), methods)) say(`   ${line}`);
  say(`   took ${seconds} s`);
  demo.ledger.step += 1;
}

const readNode = async (demo: Demo, name: string): Promise<V1Node | undefined> => demo.core.readNode({ name }).catch(() => undefined);
const ready = (n: V1Node | undefined): string => n?.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
const tainted = (n: V1Node | undefined, key: string): boolean => n?.spec?.taints?.some((t) => t.key === key) ?? false;

/** The distinct FailedScheduling messages of the app's pods so far. */
async function schedulingFailures(demo: Demo, app: string): Promise<string[]> {
  const events = await demo.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=FailedScheduling' });
  return [...new Set(events.items.filter((e) => e.involvedObject.name?.startsWith(`${app}-`)).map((e) => e.message ?? ''))];
}

/** Polls a Node until `done`, remembering whether it was ever seen with the uninitialized taint and NotReady. */
async function watchNode(
  demo: Demo,
  name: string,
  done: (n: V1Node | undefined) => boolean,
  description: string,
): Promise<{ node: V1Node | undefined; sawTaint: boolean; sawNotReady: boolean }> {
  let sawTaint = false;
  let sawNotReady = false;
  const node = await waitFor(
    async () => {
      const n = await readNode(demo, name);
      sawTaint ||= tainted(n, UNINITIALIZED_TAINT);
      sawNotReady ||= n !== undefined && ready(n) !== 'True';
      return done(n) ? { n } : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 100, description },
  );
  return { node: node.n, sawTaint, sawNotReady };
}

/** What the CCM wrote on an initialised Node, and the InstanceMetadata calls behind it when seen. */
function initialised(demo: Demo, node: V1Node | undefined): string[] {
  const labelsOf = node?.metadata?.labels ?? {};
  const calls = demo.ledger.count(CloudMethod.instanceMetadata, demo.ledger.step);
  const who = calls > 0 ? `the CCM answered InstanceMetadata (${calls} call(s)) and cloud-node-controller set` : 'the Node now has';
  return [
    `${who} providerID ${node?.spec?.providerID}, instance-type ${labelsOf['node.kubernetes.io/instance-type']}, zone ${labelsOf['topology.kubernetes.io/zone']}, region ${labelsOf['topology.kubernetes.io/region']}`,
    `addresses: ${(node?.status?.addresses ?? []).map((a) => `${a.type}=${a.address}`).join(', ')}; the uninitialized taint is gone`,
  ];
}

async function nodeInit(demo: Demo, name: string, app: string): Promise<string[]> {
  // Pods pinned to a machine that does not exist yet: what a user sees while nodes wait for the CCM.
  const labels = { app };
  await demo.apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: app, labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { nodeSelector: { 'kubernetes.io/hostname': name }, containers: [{ name: 'web', image: 'nginx' }] } },
      },
    },
  });
  const [pendingBecause] = await waitFor(
    async () => {
      const messages = await schedulingFailures(demo, app);
      return messages.length > 0 ? messages : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, description: 'FailedScheduling for the pinned pods' },
  );
  const server = await demo.cloud.registerServer({ name, role: 'worker' });
  const { node, sawTaint } = await watchNode(
    demo,
    name,
    (n) => n !== undefined && !tainted(n, UNINITIALIZED_TAINT) && (n.status?.addresses ?? []).length > 0,
    `${name} to be initialised`,
  );
  const initialisedAt = Date.now();
  const pods = await waitFor(
    async () => {
      const list = (await demo.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items.filter(
        (p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp,
      );
      return list.length === 2 ? list : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100, description: 'the pinned pods Running' },
  );
  const later = (await schedulingFailures(demo, app)).filter((m) => m !== pendingBecause);
  const seen = sawTaint ? ` and the demo saw it carry ${UNINITIALIZED_TAINT}` : ' (already initialised when the demo first read it)';
  return [
    `Deployment ${app}: 2 pods pinned to ${name} before it exists, Pending: FailedScheduling "${pendingBecause}"`,
    `server ${server.id} created in the cloud; its virtual kubelet registered Node ${name}${seen}${later.length > 0 ? `; the scheduler retried: "${later.join('" / "')}"` : ''}`,
    ...initialised(demo, node),
    `kube-scheduler bound the pods and the kubelet runs them ${((Date.now() - initialisedAt) / 1000).toFixed(1)} s later: ${pods.map((p) => `${p.metadata?.name} Running at ${p.status?.podIP}`).join(', ')}`,
  ];
}

async function loadBalancer(demo: Demo, service: string): Promise<string[]> {
  // What `kubectl create deployment demo-echo --image=nginx --replicas=2 --port=8080` creates.
  const labels = { app: service };
  await demo.apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: service, labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels, annotations: { [REPLIES_ANNOTATION]: STAND_IN_REPLIES } },
          spec: { containers: [{ name: 'echo', image: 'nginx', ports: [{ containerPort: 8080 }] }] },
        },
      },
    },
  });
  await demo.core.createNamespacedService({
    namespace: 'default',
    body: { metadata: { name: service }, spec: { type: 'LoadBalancer', selector: labels, ports: [{ port: 80, targetPort: 8080 }] } },
  });
  const svc = await waitFor(
    async () => {
      const s = await demo.core.readNamespacedService({ name: service, namespace: 'default' });
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, description: 'an ingress IP' },
  );
  const vip = svc.status?.loadBalancer?.ingress?.[0]?.ip ?? '';
  const finalizers = svc.metadata?.finalizers ?? [];
  const nodes = new Set<string>();
  const pods = new Set<string>();
  await waitFor(
    async () => {
      const res = await fetch(`http://${vip}/`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      const reply = res?.ok ? ((await res.json()) as { node: string; pod: string | null }) : undefined;
      if (reply) nodes.add(reply.node);
      if (reply?.pod) pods.add(reply.pod);
      return nodes.size >= 2 && pods.size >= 2;
    },
    { timeoutMs: 60_000, intervalMs: 100, description: 'traffic through the VIP to both pods' },
  );
  const lbs = await demo.client.loadBalancers.listAll();
  const lb = lbs.find((l) => l.public_ipv4 === vip);
  return [
    `Deployment default/${service} (2 pods) and Service default/${service}: finalizers [${finalizers.join(', ')}], ingress ${vip}`,
    lb ? `cloud load balancer ${lb.id} holds ${vip}` : `no cloud load balancer holds ${vip} (the CCM used another way to give the VIP)`,
    `HTTP through ${vip}:80 entered nodes ${[...nodes].sort().join(', ')} via their NodePorts and reached pods ${[...pods].sort().join(', ')}`,
  ];
}

async function shutdown(demo: Demo, name: string): Promise<string[]> {
  const server = (await demo.client.servers.listAll({ name }))[0];
  if (!server) throw new Error(`server ${name} not found`);
  await demo.client.waitForAction((await demo.client.servers.poweroff(server.id)).id);
  const off = await watchNode(demo, name, (n) => ready(n) !== 'True' && tainted(n, SHUTDOWN_TAINT), 'the shutdown taint');
  const asked = demo.ledger.count(CloudMethod.instanceShutdown, demo.ledger.step);
  const lines = [
    `server ${name} powered off; the demo saw Node ${name} ${off.sawNotReady ? 'NotReady' : 'Ready'} and then with ${SHUTDOWN_TAINT}${asked > 0 ? ` after ${asked} InstanceShutdown call(s)` : ''}`,
  ];
  await demo.client.waitForAction((await demo.client.servers.poweron(server.id)).id);
  await watchNode(demo, name, (n) => ready(n) === 'True' && !tainted(n, SHUTDOWN_TAINT), 'the node back');
  return [...lines, `powered on again: Node ${name} is Ready and ${SHUTDOWN_TAINT} is gone`];
}

async function deletion(demo: Demo, name: string, service: string): Promise<string[]> {
  const server = (await demo.client.servers.listAll({ name }))[0];
  if (!server) throw new Error(`server ${name} not found`);
  await demo.client.servers.delete(server.id);
  const { sawNotReady } = await watchNode(demo, name, (n) => n === undefined, `Node ${name} deleted`);
  const exists = demo.ledger.calls.filter((c) => c.step === demo.ledger.step && c.method === CloudMethod.instanceExists);
  const lines = [
    `server ${name} deleted; the demo saw Node ${name} ${sawNotReady ? 'go NotReady, then' : ''} disappear${exists.some((c) => c.call.status === 404) ? ' after InstanceExists got not found from the cloud' : ''}`,
  ];
  // The service controller's node sync updates the targets (UpdateLoadBalancer) on its own period: say so only if seen.
  const updates = demo.ledger.count(CloudMethod.updateLoadBalancer, demo.ledger.step);
  if (updates > 0) lines.push(`the targets of Service ${service}'s load balancer were updated (UpdateLoadBalancer, ${updates} call(s))`);
  return lines;
}

async function routes(demo: Demo): Promise<string[]> {
  const network = (await demo.client.networks.listAll({ name: demo.state.name }))[0];
  if (!network) return ['no cluster network'];
  // The route controller works on a period: wait until the routes match the nodes' podCIDRs exactly.
  const list = await waitFor(
    async () => {
      const cidrs = (await demo.core.listNode()).items
        .map((n) => n.spec?.podCIDR)
        .filter(Boolean)
        .sort();
      const current = await demo.client.networks.listRoutes(network.id);
      return JSON.stringify(current.map((r) => r.destination).sort()) === JSON.stringify(cidrs) ? current : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500, description: 'one route per node podCIDR' },
  );
  // Routes follow the nodes: the calls came while the node joined and left, in the earlier steps.
  const made = [CloudMethod.createRoute, CloudMethod.deleteRoute].map((m) => {
    const steps = [...new Set(demo.ledger.calls.filter((c) => c.method === m).map((c) => c.step + 1))];
    return `${m} x${demo.ledger.count(m)}${steps.length ? ` (during step ${steps.join(', ')})` : ''}`;
  });
  return [...list.map((r) => `route ${r.destination} via ${r.gateway}`), `route calls since the demo began: ${made.join(', ')}`];
}

async function cleanup(demo: Demo, service: string, app: string): Promise<string[]> {
  await demo.apps.deleteNamespacedDeployment({ name: app, namespace: 'default' });
  await demo.apps.deleteNamespacedDeployment({ name: service, namespace: 'default' });
  await demo.core.deleteNamespacedService({ name: service, namespace: 'default' });
  // The finalizer comes off only after EnsureLoadBalancerDeleted succeeded, so a vanished Service means a clean cloud.
  await waitFor(async () => !(await demo.core.listNamespacedService({ namespace: 'default' })).items.some((s) => s.metadata?.name === service), {
    timeoutMs: 60_000,
    intervalMs: 250,
    description: 'the Service and its cloud resources to be gone',
  });
  const left = await demo.client.loadBalancers.listAll();
  return [
    `Deployments ${app} and ${service} and Service ${service} deleted; the Service is gone (its finalizer came off); load balancers left in the cloud: ${left.length}`,
  ];
}

function connect(state: SandboxState): Demo {
  if (!state.simcloud || !state.kubeconfig) throw new Error(`sandbox "${state.name}" has no simcloud or kubeconfig in its state`);
  const kc = new PooledKubeConfig();
  kc.loadFromFile(state.kubeconfig);
  const client = new SimcloudClient({ endpoint: state.simcloud.url, token: state.simcloud.token, caller: 'demo' });
  const ledger = new CallLedger();
  const abort = new AbortController();
  process.once('exit', () => abort.abort());
  void followSimEvents({
    endpoint: state.simcloud.url,
    adminToken: state.simcloud.adminToken,
    signal: abort.signal,
    onEvent: (e) => {
      if (e.type === 'api_call') ledger.add(e);
    },
  });
  return {
    state,
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    client,
    cloud: new SimcloudSandboxCloud({ client, clusterName: state.name }),
    ledger,
  };
}

/** The running sandbox called `name`, or a throwaway one started for the demo (removed at its end). */
async function sandboxFor(name: string): Promise<{ state: SandboxState; stop: () => Promise<void> }> {
  const state = readState(stateDir(name));
  if (state && processAlive(state.pid) && state.status === 'ready') return { state, stop: () => Promise.resolve() };
  say(
    `no sandbox "${name}" is running: starting a throwaway one for this demo, removed at its end (to keep one: ${commandHint('sandbox:up', `--name ${name}`)}, then ${commandHint('demo', `--name ${name}`)})`,
  );
  const throwaway = createThrowawaySandbox(
    { name: 'demo', runtime: 'local', workers: 2, lbStrategy: 'lb', progress: (m) => say(`  ${m}`) },
    'ccm-sandbox-demo-',
  );
  try {
    await throwaway.sandbox.up();
  } catch (err) {
    await throwaway.stop();
    throw err;
  }
  return { state: throwaway.sandbox.state, stop: throwaway.stop };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string', default: DEFAULT_NAME } } });
  const { state, stop } = await sandboxFor(values.name);
  try {
    await walkThrough(connect(state));
  } finally {
    await stop();
  }
  process.exit(0);
}

async function walkThrough(demo: Demo): Promise<void> {
  const worker = `${demo.state.name}-demo-${Date.now().toString(36)}`;
  const service = 'demo-echo';
  const app = 'demo-pinned';
  const {
    instanceMetadata,
    instanceShutdown,
    instanceExists,
    getLoadBalancer,
    ensureLoadBalancer,
    updateLoadBalancer,
    ensureLoadBalancerDeleted,
    listRoutes,
    createRoute,
    deleteRoute,
  } = CloudMethod;
  say(`ccm-sandbox demo on "${demo.state.name}" (${demo.state.runtime} runtime)`);
  await step(
    demo,
    {
      title: '1. Node initialisation',
      explain:
        'Pods wait for a machine; it boots, its kubelet (--cloud-provider=external) registers a Node the CCM must initialise, and only then do the pods run.',
      methods: [instanceMetadata],
    },
    () => nodeInit(demo, worker, app),
  );
  await step(
    demo,
    {
      title: '2. Load balancer',
      explain:
        'A Deployment behind a Service of type LoadBalancer: the CCM builds the cloud load balancer and reports its VIP; the nodes pass traffic to the pods.',
      methods: [getLoadBalancer, ensureLoadBalancer],
    },
    () => loadBalancer(demo, service),
  );
  await step(demo, { title: '3. Node shutdown', explain: 'The machine is powered off, then on again.', methods: [instanceExists, instanceShutdown] }, () =>
    shutdown(demo, worker),
  );
  await step(
    demo,
    {
      title: '4. Node deletion',
      explain: "The machine is deleted in the cloud; the load balancer's targets follow the nodes.",
      methods: [instanceExists, updateLoadBalancer],
    },
    () => deletion(demo, worker, service),
  );
  await step(
    demo,
    { title: '5. Routes', explain: 'Every node podCIDR is routed to the node in the cluster network.', methods: [listRoutes, createRoute, deleteRoute] },
    () => routes(demo),
  );
  await step(
    demo,
    { title: '6. Clean up', explain: 'The Deployments and the Service are deleted; nothing is left in the cloud.', methods: [ensureLoadBalancerDeleted] },
    () => cleanup(demo, service, app),
  );
  say('\ndone: the sandbox is back where it started');
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
