// The node-churn capability, on the load balancers earlier checks left: five nodes join at once and every
// one becomes a target of every LB (hcloud-cloud-controller-manager #1035: only some of several nodes
// arriving together joined); a node labelled node.kubernetes.io/exclude-from-external-load-balancers leaves
// the targets (cloud-provider #76); a server deleted under the LB leaves them too, and each LB then reads
// back consistent: it targets every worker that should be there and nothing that is gone. Target sets are
// read through the cloud's own API. The label is taken off again at the end.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { check, clusterServers, EXCLUDE_FROM_LB_LABEL, hasTaint, lbNodes, listNodes, UNINITIALIZED_TAINT, until, type ConformanceContext } from '../context.ts';
import { cloudLb, cloudLbCovers, NODE_SYNC_MS } from './load-balancers.ts';
import { deleteServer } from './nodes.ts';

const JOINING = 5;

async function label(ctx: ConformanceContext, node: string, on: boolean): Promise<void> {
  await ctx.core.patchNode(
    { name: node, body: { metadata: { labels: { [EXCLUDE_FROM_LB_LABEL]: on ? '' : null } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** Waits until no LB at `vips` targets the server `serverId` (`why` names it), and each targets only servers that exist. */
async function untargeted(ctx: ConformanceContext, vips: readonly string[], server: { readonly id: string; readonly why: string }): Promise<void> {
  const serverId = server.id;
  await until(ctx, `the load balancers at ${vips.join(', ')}, read through the ${ctx.cloud.title} API, to stop targeting ${server.why}`, async () => {
    const existing = new Set((await clusterServers(ctx)).map((s) => s.id));
    for (const vip of vips) {
      const view = await cloudLb(ctx, vip);
      if (view === undefined) throw new Error(`the ${ctx.cloud.title} API shows no load balancer at ${vip}`);
      if (view.serverIds.includes(serverId)) throw new Error(`load balancer ${view.id} still targets ${serverId}`);
      const dangling = view.serverIds.filter((id) => !existing.has(id));
      if (dangling.length) throw new Error(`load balancer ${view.id} targets servers that do not exist: ${dangling.join(', ')}`);
    }
    return true;
  });
}

export async function nodeChurn(ctx: ConformanceContext): Promise<string> {
  check(ctx.sandbox.runtime?.addWorker !== undefined, `the ${ctx.sandbox.options.runtime} runtime cannot add nodes`);
  const vips = [ctx.memory.vip, ctx.memory.annotatedVip].filter((v) => v !== undefined);
  check(vips.length > 0, 'no load balancer from lb-basic');
  const joined = await Promise.all(Array.from({ length: JOINING }, () => ctx.sandbox.addWorker()));
  for (const name of joined) ctx.involve({ kind: 'Node', name });
  await until(ctx, `the ${JOINING} joining nodes ${joined.join(', ')} to be initialised`, async () => {
    const nodes = await listNodes(ctx);
    return joined.every((name) => nodes.some((n) => n.metadata?.name === name && n.spec?.providerID && !hasTaint(n, UNINITIALIZED_TAINT)));
  });
  const syncMs = Math.max(ctx.timeoutMs, NODE_SYNC_MS);
  for (const vip of vips) await cloudLbCovers(ctx, vip, [], syncMs);
  const servers = await clusterServers(ctx);
  const idOf = (name: string): string => servers.find((s) => s.name === name)?.id ?? '';
  const [excluded = '', deleted = ''] = joined;
  await label(ctx, excluded, true);
  try {
    await untargeted(ctx, vips, { id: idOf(excluded), why: `${excluded}, labelled ${EXCLUDE_FROM_LB_LABEL}` });
    await deleteServer(ctx, idOf(deleted));
    await untargeted(ctx, vips, { id: idOf(deleted), why: `${deleted}, whose server was deleted` });
    for (const vip of vips) await cloudLbCovers(ctx, vip, [], syncMs);
  } finally {
    await label(ctx, excluded, false).catch(() => undefined);
  }
  const workers = lbNodes(await listNodes(ctx)).length;
  return `${JOINING} nodes joined at once and every load balancer (${vips.length}) targeted them; ${excluded} left the targets when labelled, ${deleted} when its server was deleted; ${workers} workers targeted, nothing that is gone`;
}
