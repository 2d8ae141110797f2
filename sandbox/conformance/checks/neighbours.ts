// The neighbours capability: two clusters on one cloud account. A second cluster (its own control plane,
// nodes and CCM of the same kind, another cluster name, a network of its own from a second address plan)
// joins the run's simcloud with the same token and creates a Service of the same namespace, name and
// annotations as one in the first, the cloud's load-balancer-name annotation included. Neither CCM may
// modify, adopt or delete the other's load balancer, targets, firewall or routes; each Service ends with its
// own load balancer; what was made by hand through the cloud API (a load balancer, a firewall policy, a
// target on the first CCM's load balancer) stays as it was.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { SANDBOX_LABELS } from '../../cloud/sandbox-cloud.ts';
import { PooledKubeConfig } from '../../kube/pooled-kubeconfig.ts';
import { createThrowawaySandbox } from '../../throwaway.ts';
import { check, until, type ConformanceContext } from '../context.ts';
import { cloudLb, ingressNow } from './load-balancers.ts';
import { createLbService, deleteServices, judge, lbReady, readCloudState, settle, stateChanges, WriteLedger, type CloudState } from './continuity.ts';

const NAME = 'neighbour-web';
const BY_HAND = 'conformance-by-hand';

/** The second cluster's context: its sandbox and Kubernetes clients, the same cloud and account. */
function neighbourContext(ctx: ConformanceContext, sandbox: ConformanceContext['sandbox']): ConformanceContext {
  const kc = new PooledKubeConfig();
  kc.loadFromFile(sandbox.cluster?.kubeconfigPath ?? '');
  return { ...ctx, sandbox, core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api), memory: {}, writes: [], involve: () => undefined };
}

/** A load balancer and a firewall policy made through the cloud's API, and a target added by hand to the CCM's load balancer. */
async function makeByHand(ctx: ConformanceContext, ccmLbId: string): Promise<string[]> {
  const client = ctx.sandbox.client;
  const { load_balancer: lb, action } = await client.loadBalancers.create({ name: BY_HAND });
  await client.waitForAction(action.id);
  const policy = await client.firewallPolicies.create({
    name: BY_HAND,
    rules: [{ direction: 'inbound', protocol: 'tcp', ports: '9', source_cidrs: ['127.0.0.1/32'] }],
  });
  const ccmLb = await client.loadBalancers.get(ccmLbId);
  await client.loadBalancers.update(ccmLbId, { targets: [...ccmLb.targets, { kind: 'ip', ip: '127.0.0.9' }] });
  return [lb.id, policy.id];
}

async function removeByHand(ctx: ConformanceContext, ids: readonly string[]): Promise<void> {
  const client = ctx.sandbox.client;
  for (const id of ids) {
    if (id.startsWith('lb-'))
      await client.loadBalancers.delete(id).then(
        (a) => client.waitForAction(a.id),
        () => undefined,
      );
    else await client.firewallPolicies.delete(id).catch(() => undefined);
  }
}

/** The simcloud id of the load balancer at `vip` (the store's, for a hand-made target on it). */
async function storeLbId(ctx: ConformanceContext, vip: string): Promise<string> {
  const lb = (await ctx.sandbox.client.loadBalancers.listAll()).find((l) => l.public_ipv4 === vip);
  check(lb !== undefined, `no load balancer at ${vip} in simcloud's store`);
  return lb.id;
}

export async function neighbours(ctx: ConformanceContext): Promise<string> {
  const sim = ctx.sandbox.state.simcloud;
  check(sim !== null && ctx.sandbox.options.runtime === 'local', `a second cluster needs the local runtime (this run: ${ctx.sandbox.options.runtime})`);
  const annotations = ctx.cloud.lbNameAnnotation ? { [ctx.cloud.lbNameAnnotation]: 'conformance-neighbour' } : {};
  await createLbService(ctx, NAME, true, annotations);
  const vip = await lbReady(ctx, NAME);
  const byHand = await makeByHand(ctx, await storeLbId(ctx, vip));
  const o = ctx.sandbox.options;
  const { sandbox: other, stop } = createThrowawaySandbox(
    {
      name: `${o.name}-neighbour`,
      runtime: 'local',
      workers: 1,
      lbStrategy: o.lbStrategy,
      ccm: ctx.sandbox.ccmChoice,
      joinSimcloud: { url: sim.url, token: sim.token, adminToken: sim.adminToken },
      ...(o.cloud ? { cloud: o.cloud } : {}),
      ...(o.ccmArgs ? { ccmArgs: o.ccmArgs } : {}),
      ...(o.kubeletProviderId ? { kubeletProviderId: true } : {}),
    },
    'ccm-sandbox-neighbour-',
  );
  let verdict: string | undefined;
  try {
    verdict = await sideBySide(ctx, other, vip, annotations);
  } finally {
    await stop();
    await forgetCluster(ctx, other.options.name);
    // A cleanup that fails after the check failed must not hide why it failed.
    const cleanup = deleteServices(ctx, [NAME], [vip]).finally(() => removeByHand(ctx, byHand));
    await (verdict === undefined ? cleanup.catch(() => undefined) : cleanup);
  }
  return verdict;
}

/** Brings the second cluster up, makes and deletes its Service, and judges the first cluster's state each time. */
async function sideBySide(
  ctx: ConformanceContext,
  other: ConformanceContext['sandbox'],
  vip: string,
  annotations: Readonly<Record<string, string>>,
): Promise<string> {
  const ledger = await WriteLedger.start(ctx);
  try {
    await settle(ctx, ledger, Date.now());
    const before = await readCloudState(ctx, [NAME]);
    await other.up();
    const theirs = neighbourContext(ctx, other);
    await createLbService(theirs, NAME, true, annotations);
    const theirVip = await theirIngress(theirs, Object.keys(annotations).length > 0);
    await settle(ctx, ledger, Date.now());
    const [mine, their] = [await cloudLb(ctx, vip), theirVip.vip ? await cloudLb(theirs, theirVip.vip) : undefined];
    check(
      theirVip.vip !== vip && mine?.id !== their?.id,
      `the second cluster's Service ${NAME} got the first one's ${ctx.cloud.title} load balancer ${mine?.id} at ${vip}`,
    );
    judgeUntouched(ctx, before, await readCloudState(ctx, [NAME]), 'made');
    await deleteServices(theirs, [NAME], theirVip.vip ? [theirVip.vip] : []);
    judgeUntouched(ctx, before, await readCloudState(ctx, [NAME]), 'deleted');
    const second = theirVip.vip
      ? `its own load balancer (${their?.id} at ${theirVip.vip})`
      : `no load balancer: the name its annotation asks for is taken (${theirVip.refused})`;
    return `the first Service kept its load balancer ${mine?.id} at ${vip}, the second got ${second}; the first cluster's load balancer, routes and the resources made by hand untouched while the second made and deleted its Service`;
  } finally {
    ledger.stop();
  }
}

/** How long the second Service may go without an ingress before a refusal Event counts as the CCM's answer. */
const REFUSAL_WINDOW_MS = 30_000;

/**
 * The second Service's ingress; or, where the cloud's name annotation gave both Services one load balancer
 * name and the cloud's names are unique, the Warning Event refusing it (taking the first one's is the bug).
 */
async function theirIngress(theirs: ConformanceContext, named: boolean): Promise<{ vip?: string; refused?: string }> {
  if (!named) return { vip: await lbReady(theirs, NAME) };
  const vip = await until(theirs, 'an ingress', () => ingressNow(theirs, NAME), REFUSAL_WINDOW_MS).catch(() => undefined);
  if (vip !== undefined) return { vip: await lbReady(theirs, NAME) };
  const events = await theirs.core.listNamespacedEvent({
    namespace: theirs.namespace,
    fieldSelector: `involvedObject.kind=Service,involvedObject.name=${NAME},type=Warning`,
  });
  const refused = events.items[0];
  check(refused !== undefined, `the second cluster's Service ${NAME} has no ingress after ${REFUSAL_WINDOW_MS / 1000} s and no Warning Event saying why`);
  return { refused: `${refused.reason ?? ''}: ${(refused.message ?? '').slice(0, 200)}` };
}

/** Fails when anything the first cluster (or a hand) had changed once the second cluster `what` its Service. */
function judgeUntouched(ctx: ConformanceContext, before: CloudState, after: CloudState, what: string): void {
  try {
    judge(stateChanges(before, after, ctx, 'existing'), [], false);
  } catch (err) {
    throw new Error(`once the second cluster ${what} its Service ${NAME}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** Deletes the second cluster's servers and network from the cloud: it is gone, and its machines with it. */
async function forgetCluster(ctx: ConformanceContext, name: string): Promise<void> {
  const client = ctx.sandbox.client;
  const servers = await client.servers.listAll({ label_selector: `${SANDBOX_LABELS.cluster}=${name}` });
  await Promise.all(
    servers.map((s) =>
      client.servers
        .delete(s.id)
        .then((a) => client.waitForAction(a.id))
        .catch(() => undefined),
    ),
  );
  for (const n of (await client.networks.listAll({ name })).filter((x) => x.name === name)) await client.networks.delete(n.id).catch(() => undefined);
}
