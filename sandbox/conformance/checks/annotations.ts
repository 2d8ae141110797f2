// The LB annotations capability: a Service with the cloud CCM's most used annotations (PROXY protocol v1,
// an HTTP health check failing fast, the cloud's own settings) behind the run's Deployment. Every node
// fails a check on /unhealthy, so the VIP refuses traffic; with /healthz it carries traffic with a PROXY
// header; what traffic cannot show is read back through the cloud's API.
import { setHeaderOptions } from '@kubernetes/client-node';
import { check, cloudRead, httpGet, standInReply, until, type ConformanceContext } from '../context.ts';
import { ANNOTATED, ingressOf, WEB } from './load-balancers.ts';

const PORT = 8081;

/** The PROXY v1 header the node received, where its answer reports one (the local runtime's stand-in does). */
function checkProxyHeader(body: string, vip: string): void {
  const proxy = standInReply(body)?.proxy as Record<string, unknown> | null | undefined;
  if (proxy === undefined) return;
  const want = { version: 1, protocol: 'TCP4', srcAddress: '127.0.0.1', dstAddress: vip, dstPort: PORT };
  const wrong = Object.entries(want).filter(([k, v]) => proxy?.[k] !== v);
  check(wrong.length === 0, `the PROXY header the node received is ${JSON.stringify(proxy)}, want ${JSON.stringify(want)}`);
}

/** Sets the annotated health-check path to /healthz, as a user would with a JSON patch. */
async function healthPathToHealthz(ctx: ConformanceContext): Promise<void> {
  const { prefix, healthPathKey } = ctx.cloud.conformance.annotations;
  const path = `/metadata/annotations/${`${prefix}${healthPathKey}`.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  await ctx.core.patchNamespacedService(
    { name: ANNOTATED, namespace: ctx.namespace, body: [{ op: 'replace', path, value: '/healthz' }] },
    setHeaderOptions('Content-Type', 'application/json-patch+json'),
  );
}

export async function lbAnnotations(ctx: ConformanceContext): Promise<string> {
  const { prefix, values } = ctx.cloud.conformance.annotations;
  const annotations = Object.fromEntries(Object.entries(values).map(([k, v]) => [`${prefix}${k}`, v]));
  ctx.involve({ kind: 'Service', namespace: ctx.namespace, name: ANNOTATED });
  const sourceRanges = ctx.cloud.conformance.sourceRanges;
  await ctx.core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name: ANNOTATED, annotations },
      spec: {
        type: 'LoadBalancer',
        selector: { app: WEB },
        ports: [{ port: PORT, targetPort: 80 }],
        ...(sourceRanges ? { loadBalancerSourceRanges: ['127.0.0.1/32'] } : {}),
      },
    },
  });
  const vip = await ingressOf(ctx, ANNOTATED);
  ctx.memory.annotatedVip = vip;
  await until(
    ctx,
    `${vip}:${PORT} to refuse traffic while every node fails its health check on /unhealthy`,
    async () => (await httpGet(vip, PORT, '/').catch(() => ({ status: 0 }))).status === 0,
  );
  await healthPathToHealthz(ctx);
  const res = await until(ctx, `traffic through ${vip}:${PORT} once the health check path is /healthz`, async () => {
    const r = await httpGet(vip, PORT, '/', '127.0.0.1').catch(() => undefined);
    return r?.status === 200 ? r : undefined;
  });
  checkProxyHeader(res.body, vip);
  if (sourceRanges) {
    const other = await httpGet(vip, PORT, '/', '127.0.0.2').then(
      (r) => r.status,
      () => 0,
    );
    check(other === 0, `a client at 127.0.0.2, outside loadBalancerSourceRanges 127.0.0.1/32, got HTTP ${other}`);
  }
  const problems = (await ctx.cloud.conformance.checkAnnotated?.(await cloudRead(ctx), vip)) ?? [];
  check(problems.length === 0, `the ${ctx.cloud.title} API shows: ${problems.join('; ')}`);
  return `PROXY v1 received, health check path followed${sourceRanges ? ', source range enforced' : ''}${ctx.cloud.conformance.checkAnnotated ? `, settings read back through the ${ctx.cloud.title} API` : ''}`;
}
