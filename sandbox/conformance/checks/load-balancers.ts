// Load-balancer capabilities: a Deployment behind a `type: LoadBalancer` Service gets an ingress address,
// a pod answers through it, and the cloud's own API shows a load balancer sending to the nodes; the
// Service gains a port and the cluster a node (update); deleting the Services removes the finalizers and
// the cloud load balancers.
import type { V1Service } from '@kubernetes/client-node';
import type { CloudLoadBalancerView } from '../../cloud/descriptor.ts';
import { REPLIES_ANNOTATION, STAND_IN_REPLIES } from '../../kubelet/images/schema.ts';
import {
  check,
  cloudRead,
  clusterServers,
  hasTaint,
  httpGet,
  lbNodes,
  listNodes,
  NotOffered,
  standInReply,
  UNINITIALIZED_TAINT,
  until,
  type ConformanceContext,
} from '../context.ts';

export const WEB = 'conformance-web';
export const ANNOTATED = 'conformance-annotated';
const LB_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
/** How long a CCM may take to show it handles LoadBalancer Services at all. */
const OFFER_WINDOW_MS = 20_000;

export async function readService(ctx: ConformanceContext, name: string): Promise<V1Service> {
  return ctx.core.readNamespacedService({ name, namespace: ctx.namespace });
}

/** The Service's ingress address now, if the CCM wrote one (a hostname resolved through the cloud's API, where its CCM writes only hostnames). */
export async function ingressNow(ctx: ConformanceContext, name: string): Promise<string | undefined> {
  const ingress = (await readService(ctx, name)).status?.loadBalancer?.ingress?.[0];
  const profile = ctx.cloud.conformance;
  return (
    ingress?.ip ??
    (ingress?.hostname === undefined || profile.resolveHostname === undefined
      ? undefined
      : profile.resolveHostname(await cloudRead(ctx), {
          hostname: ingress.hostname,
          namespace: ctx.namespace,
          service: name,
          cluster: ctx.sandbox.options.name,
        }))
  );
}

/** The Service's ingress address, once the CCM wrote one. */
export async function ingressOf(ctx: ConformanceContext, name: string): Promise<string> {
  return until(ctx, `an ingress IP on Service ${ctx.namespace}/${name}`, () => ingressNow(ctx, name));
}

/** The cloud's view of the load balancer at `vip`, through its own API. */
export async function cloudLb(ctx: ConformanceContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  return ctx.cloud.conformance.readLoadBalancer(await cloudRead(ctx), vip);
}

/** A Deployment of `replicas` nginx pods labelled app=`name` on port 80, answering as `replies` says (default: the stand-in's JSON). */
export async function createBackend(ctx: ConformanceContext, name: string, replicas: number, replies: string = STAND_IN_REPLIES): Promise<void> {
  const labels = { app: name };
  const annotations = { [REPLIES_ANNOTATION]: replies };
  await ctx.apps.createNamespacedDeployment({
    namespace: ctx.namespace,
    body: {
      metadata: { name, labels },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels, annotations }, spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] } },
      },
    },
  });
}

async function createWorkload(ctx: ConformanceContext): Promise<void> {
  const labels = { app: WEB };
  await createBackend(ctx, WEB, 2);
  await ctx.core.createNamespacedService({
    namespace: ctx.namespace,
    body: { metadata: { name: WEB }, spec: { type: 'LoadBalancer', selector: labels, ports: [{ name: 'http', port: 80, targetPort: 80 }] } },
  });
}

/** Whether any controller took the Service within the window: a finalizer, an ingress or an Event. */
async function taken(ctx: ConformanceContext, name: string): Promise<boolean> {
  const svc = await readService(ctx, name);
  if (svc.metadata?.finalizers?.includes(LB_FINALIZER) || svc.status?.loadBalancer?.ingress?.length) return true;
  const events = await ctx.core.listNamespacedEvent({ namespace: ctx.namespace, fieldSelector: `involvedObject.kind=Service,involvedObject.name=${name}` });
  return events.items.length > 0;
}

/** A 200 through `vip:port` naming one of the Deployment's pods (the local runtime's stand-in names the pod). */
async function podAnswers(ctx: ConformanceContext, vip: string, port: number): Promise<string> {
  const pods = new Set((await ctx.core.listNamespacedPod({ namespace: ctx.namespace, labelSelector: `app=${WEB}` })).items.map((p) => p.metadata?.name));
  return until(ctx, `a pod of ${WEB} answering through ${vip}:${port}`, async () => {
    const res = await httpGet(vip, port, '/conformance');
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    const pod = standInReply(res.body)?.pod;
    if (typeof pod === 'string' && !pods.has(pod)) throw new Error(`answered by ${pod}, not a pod of ${WEB}`);
    return typeof pod === 'string' ? pod : 'a pod';
  });
}

/** Waits until the cloud's LB at `vip` listens on `ports` and targets every LB-eligible node. */
export async function cloudLbCovers(ctx: ConformanceContext, vip: string, ports: readonly number[], timeoutMs = ctx.timeoutMs): Promise<CloudLoadBalancerView> {
  return until(
    ctx,
    `the cloud's load balancer at ${vip}, read through the ${ctx.cloud.title} API, to listen on ${ports.join(', ')} and target every worker node`,
    async () => {
      const view = await cloudLb(ctx, vip);
      if (view === undefined) throw new Error(`the ${ctx.cloud.title} API shows no load balancer at ${vip}`);
      if (view.announced === true) return view;
      const servers = await clusterServers(ctx);
      const wanted = lbNodes(await listNodes(ctx))
        .map((n) => servers.find((s) => s.name === n.metadata?.name))
        .filter((s) => s !== undefined);
      const missing = wanted.filter((s) => !view.serverIds.includes(s.id)).map((s) => s.name);
      const missingPorts = ports.filter((p) => !view.ports.includes(p));
      if (missing.length || missingPorts.length)
        throw new Error(
          `load balancer ${view.id}: ports ${view.ports.join(', ')}, not targeting ${missing.join(', ') || '-'}, missing ports ${missingPorts.join(', ') || '-'}`,
        );
      return view;
    },
    timeoutMs,
  );
}

export async function lbBasic(ctx: ConformanceContext): Promise<string> {
  ctx.involve({ kind: 'Service', namespace: ctx.namespace, name: WEB });
  await createWorkload(ctx);
  const seen = await until(ctx, 'a sign', async () => (await taken(ctx, WEB)) || undefined, OFFER_WINDOW_MS).catch(() => false);
  if (!seen && !ctx.required)
    throw new NotOffered(`no controller took Service ${WEB} within ${OFFER_WINDOW_MS / 1000} s: no ${LB_FINALIZER} finalizer, no ingress, no Event`);
  const vip = await ingressOf(ctx, WEB);
  ctx.memory.vip = vip;
  const pod = await podAnswers(ctx, vip, 80);
  const view = await cloudLbCovers(ctx, vip, [80]);
  return `ingress ${vip}, answered by ${pod}; ${ctx.cloud.title} load balancer ${view.id} targets ${view.serverIds.length} servers`;
}

/**
 * A joining node may reach the load balancer later than one condition allows: the service controller syncs
 * when the node's providerID appears, and a CCM that needs the node's addresses (written a moment later) fails
 * that sync and is retried with backoff, or caches instances (Linode's, 15 s). A CCM that instead drops the node
 * and never syncs again fails here: no later node event brings it back (the informer's resync is ignored).
 */
export const NODE_SYNC_MS = 110_000;

async function joinNode(ctx: ConformanceContext, vip: string, ports: readonly number[]): Promise<string> {
  const joined = await ctx.sandbox.addWorker();
  ctx.memory.joined = joined;
  ctx.involve({ kind: 'Node', name: joined });
  await until(ctx, `the joining node ${joined} to be initialised`, async () => {
    const n = await ctx.core.readNode({ name: joined }).catch(() => undefined);
    return n !== undefined && !hasTaint(n, UNINITIALIZED_TAINT);
  });
  await cloudLbCovers(ctx, vip, ports, Math.max(ctx.timeoutMs, NODE_SYNC_MS));
  return joined;
}

export async function lbUpdate(ctx: ConformanceContext): Promise<string> {
  const vip = ctx.memory.vip;
  check(vip !== undefined, 'no load balancer from lb-basic');
  ctx.involve({ kind: 'Service', namespace: ctx.namespace, name: WEB });
  const svc = await readService(ctx, WEB);
  const ports = [...(svc.spec?.ports ?? []), { name: 'alt', port: 8443, targetPort: 80 }];
  await ctx.core.replaceNamespacedService({ name: WEB, namespace: ctx.namespace, body: { ...svc, spec: { ...svc.spec, ports } } });
  await cloudLbCovers(ctx, vip, [80, 8443]);
  await podAnswers(ctx, vip, 8443);
  if (!ctx.sandbox.runtime?.addWorker) return `second port 8443 served; no node joined (the ${ctx.sandbox.options.runtime} runtime cannot add one)`;
  const joined = await joinNode(ctx, vip, [80, 8443]);
  return `second port 8443 served; ${joined} joined the load balancer`;
}

export async function lbDelete(ctx: ConformanceContext): Promise<string> {
  const more = ctx.memory.moreLbs ?? {};
  const vips = [ctx.memory.vip, ctx.memory.annotatedVip, ...Object.values(more)].filter((v) => v !== undefined);
  const names = [WEB, ANNOTATED, ...Object.keys(more)];
  for (const name of names) {
    ctx.involve({ kind: 'Service', namespace: ctx.namespace, name });
    await ctx.core.deleteNamespacedService({ name, namespace: ctx.namespace }).catch(() => undefined);
  }
  await until(ctx, `Services ${names.join(', ')} gone (the ${LB_FINALIZER} finalizer removed)`, async () => {
    const left = (await ctx.core.listNamespacedService({ namespace: ctx.namespace })).items.filter((s) => names.includes(s.metadata?.name ?? ''));
    if (left.length) throw new Error(`left: ${left.map((s) => `${s.metadata?.name} (finalizers ${JSON.stringify(s.metadata?.finalizers ?? [])})`).join(', ')}`);
    return true;
  });
  await until(ctx, `no load balancer at ${vips.join(', ')} in the ${ctx.cloud.title} API`, async () => {
    for (const vip of vips) if (await cloudLb(ctx, vip)) throw new Error(`a load balancer still answers for ${vip}`);
    return true;
  });
  return `${names.length} Services and ${vips.length} load balancers gone`;
}
