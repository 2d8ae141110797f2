// The traffic-policy capability: a live LoadBalancer Service in front of one pod flips externalTrafficPolicy
// Cluster → Local → Cluster (hcloud-cloud-controller-manager #161, DigitalOcean's PR #724). Under Local the
// cloud load balancer's health checks, read back through the cloud's own API, must probe the Service's
// healthCheckNodePort over HTTP (kube-proxy answers 200 there only on nodes with a ready local endpoint), and
// real traffic through the VIP must come only through the pod's node; back under Cluster the checks must leave
// the released port and the other nodes carry traffic again. The Service keeps its VIP and the cloud its load
// balancer throughout. Its annotations only make the checks fast (the descriptor's `healthChecks.fast`), leaving
// port, protocol and path to the CCM. A cloud whose load balancers have no health-check port is not offered.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { LbHealthCheck } from '../../cloud/descriptor.ts';
import { check, httpGet, NotOffered, standInReply, until, type ConformanceContext } from '../context.ts';
import { cloudLb, createBackend, ingressNow, ingressOf, readService } from './load-balancers.ts';

const POLICY = 'conformance-policy';
const PORT = 8083;
/** Consecutive answers through the VIP that must all come the expected way. */
const ROUNDS = 8;

type Policy = 'Cluster' | 'Local';

async function setPolicy(ctx: ConformanceContext, policy: Policy): Promise<void> {
  await ctx.core.patchNamespacedService(
    { name: POLICY, namespace: ctx.namespace, body: { spec: { externalTrafficPolicy: policy } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** The node of the Service's one ready pod. */
async function podNode(ctx: ConformanceContext): Promise<string> {
  return until(ctx, `a ready pod of ${POLICY}`, async () => {
    const pods = (await ctx.core.listNamespacedPod({ namespace: ctx.namespace, labelSelector: `app=${POLICY}` })).items;
    const ready = pods.filter((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    return ready.length === 1 ? ready[0]?.spec?.nodeName : undefined;
  });
}

const describeChecks = (checks: readonly LbHealthCheck[]): string => checks.map((c) => `listener ${c.listenPort}: ${c.protocol} on port ${c.port}`).join(', ');

/** The load balancer under test: its VIP, the cloud's id for it, the pod's node. */
interface Subject {
  readonly vip: string;
  readonly lbId: string;
  readonly home: string;
}

/** Waits until the load balancer at `vip` (still `lbId`) reads back with every listener's check meeting `ok`. */
async function checksFollow(
  ctx: ConformanceContext,
  { vip, lbId }: Subject,
  want: string,
  ok: (c: LbHealthCheck) => boolean,
): Promise<readonly LbHealthCheck[]> {
  return until(ctx, `the health checks of the ${ctx.cloud.title} load balancer ${lbId} at ${vip}, read through its API, to ${want}`, async () => {
    const view = await cloudLb(ctx, vip);
    if (view === undefined) throw new Error(`the ${ctx.cloud.title} API shows no load balancer at ${vip}`);
    if (view.id !== lbId) throw new Error(`the load balancer at ${vip} is now ${view.id}, not ${lbId}`);
    const checks = view.healthChecks;
    if (checks === undefined || checks.length === 0) throw new Error(`the ${ctx.cloud.title} read-back shows no health checks on ${lbId}`);
    if (!checks.every(ok)) throw new Error(describeChecks(checks));
    return checks;
  });
}

/** What answers through the VIP must show: each from a node `from` accepts; with `spread`, some from a node other than it. */
interface Expected {
  readonly want: string;
  readonly from: (node: string) => boolean;
  readonly spread?: string;
}

/** Waits for ROUNDS answers in a row through the VIP as `expected`; returns the nodes seen. */
async function answers(ctx: ConformanceContext, vip: string, { want, from, spread }: Expected): Promise<Set<string>> {
  let streak = 0;
  const seen = new Set<string>();
  return until(ctx, `${ROUNDS} answers in a row through ${vip}:${PORT} ${want}`, async () => {
    const res = await httpGet(vip, PORT, '/conformance').catch((err: unknown) => ({ status: 0, body: err instanceof Error ? err.message : String(err) }));
    const node = standInReply(res.body)?.node;
    if (res.status !== 200 || typeof node !== 'string') {
      streak = 0;
      throw new Error(`no answer (${res.status === 0 ? res.body : `HTTP ${res.status}`})`);
    }
    if (!from(node)) {
      streak = 0;
      throw new Error(`node ${node} took the connection`);
    }
    seen.add(node);
    streak += 1;
    if (spread !== undefined && ![...seen].some((n) => n !== spread)) throw new Error(`only ${spread} answered so far`);
    return streak >= ROUNDS ? seen : undefined;
  });
}

async function keepsVip(ctx: ConformanceContext, vip: string, when: string): Promise<void> {
  const now = await ingressNow(ctx, POLICY);
  check(now === vip, `Service ${ctx.namespace}/${POLICY} changed its ingress from ${vip} to ${now ?? 'none'} ${when}`);
}

/** The Service under policy Cluster, its pod and its load balancer, carrying traffic. */
async function create(ctx: ConformanceContext, fast: Readonly<Record<string, string>>): Promise<Subject> {
  await createBackend(ctx, POLICY, 1);
  await ctx.core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name: POLICY, annotations: fast },
      spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', selector: { app: POLICY }, ports: [{ port: PORT, targetPort: 80 }] },
    },
  });
  const vip = await ingressOf(ctx, POLICY);
  ctx.memory.moreLbs = { ...ctx.memory.moreLbs, [POLICY]: vip };
  const home = await podNode(ctx);
  await answers(ctx, vip, { want: 'under policy Cluster', from: () => true });
  const lb = await cloudLb(ctx, vip);
  check(lb !== undefined, `the ${ctx.cloud.title} API shows no load balancer at ${vip}`);
  return { vip, lbId: lb.id, home };
}

/** Under Local: checks on the healthCheckNodePort over http, traffic only through the pod's node. */
async function toLocal(ctx: ConformanceContext, s: Subject): Promise<string> {
  await setPolicy(ctx, 'Local');
  const hcnp = (await readService(ctx, POLICY)).spec?.healthCheckNodePort;
  check(hcnp !== undefined && hcnp > 0, `the API server gave Service ${ctx.namespace}/${POLICY} no healthCheckNodePort under policy Local`);
  const checks = await checksFollow(
    ctx,
    s,
    `probe healthCheckNodePort ${hcnp} over http under policy Local`,
    (c) => c.port === hcnp && c.protocol.toLowerCase() === 'http',
  );
  await answers(ctx, s.vip, { want: `under policy Local, all through ${s.home}, the only node with a ready endpoint`, from: (n) => n === s.home });
  await keepsVip(ctx, s.vip, 'when its policy became Local');
  return `Local checks ${describeChecks(checks)} (healthCheckNodePort ${hcnp}), traffic only through ${s.home}`;
}

/** Back under Cluster: checks off the released port, traffic through the other nodes again. */
async function backToCluster(ctx: ConformanceContext, s: Subject): Promise<string> {
  const hcnp = (await readService(ctx, POLICY)).spec?.healthCheckNodePort;
  await setPolicy(ctx, 'Cluster');
  const checks = await checksFollow(ctx, s, `leave healthCheckNodePort ${hcnp}, released when the policy went back to Cluster`, (c) => c.port !== hcnp);
  const nodes = await answers(ctx, s.vip, { want: `under policy Cluster again, some through a node other than ${s.home}`, from: () => true, spread: s.home });
  await keepsVip(ctx, s.vip, 'when its policy went back to Cluster');
  return `Cluster again checks ${describeChecks(checks)}, traffic through ${nodes.size} nodes`;
}

export async function trafficPolicy(ctx: ConformanceContext): Promise<string> {
  const hc = ctx.cloud.conformance.healthChecks;
  if ('none' in hc) throw new NotOffered(hc.none);
  ctx.involve({ kind: 'Service', namespace: ctx.namespace, name: POLICY });
  const s = await create(ctx, hc.fast);
  const local = await toLocal(ctx, s);
  const cluster = await backToCluster(ctx, s);
  return `${ctx.cloud.title} load balancer ${s.lbId} at ${s.vip}: ${local}; ${cluster}; VIP kept`;
}
