// The down-delete capability: while the CCM is stopped, a LoadBalancer Service is deleted (its finalizer keeps
// it), a worker's server is deleted in the cloud and a new node joins. Once the CCM runs again, the Service's
// load balancer must be removed and its finalizer released, the vanished server's Node deleted, the new node
// initialised and made a target of the Service that stayed, and nothing left over once that one goes too.
import type { Server } from '../../../simulator/api/schema/servers.ts';
import { check, clusterServers, hasTaint, lbNodes, listNodes, UNINITIALIZED_TAINT, until, type ConformanceContext } from '../context.ts';
import { cloudLb, NODE_SYNC_MS } from './load-balancers.ts';
import { deleteServer, VANISHED_NODE_MS } from './nodes.ts';
import { createLbService, deleteServices, lbReady, readStore, stopCcm, storeChanges } from './continuity.ts';

const KEPT = 'down-delete-kept';
const GONE = 'down-delete-gone';

export async function downDelete(ctx: ConformanceContext): Promise<string> {
  const base = await readStore(ctx);
  await createLbService(ctx, KEPT, false);
  await createLbService(ctx, GONE, false);
  const [keptVip, goneVip] = [await lbReady(ctx, KEPT), await lbReady(ctx, GONE)];
  const { victim, joined } = await whileDown(ctx);
  await ctx.sandbox.startCcm();

  await until(
    ctx,
    `Service ${GONE}, deleted while the CCM was down, gone (its finalizer released)`,
    async () => !(await ctx.core.listNamespacedService({ namespace: ctx.namespace })).items.some((s) => s.metadata?.name === GONE),
  );
  const left = await cloudLb(ctx, goneVip);
  check(
    left === undefined,
    `the ${ctx.cloud.title} load balancer ${left?.id} at ${goneVip} of Service ${GONE} is still there after its finalizer was released: its deletion while the CCM was down was lost`,
  );
  await until(
    ctx,
    `Node ${victim.name} deleted after its server was deleted while the CCM was down`,
    async () => !(await listNodes(ctx)).some((n) => n.metadata?.name === victim.name),
    Math.max(ctx.timeoutMs, VANISHED_NODE_MS),
  );
  await until(
    ctx,
    `the node ${joined}, joined while the CCM was down, to be initialised`,
    async () => !hasTaint(await ctx.core.readNode({ name: joined }), UNINITIALIZED_TAINT),
  );
  await targetsMoved(ctx, keptVip, victim, joined);

  await deleteServices(ctx, [KEPT], [keptVip]);
  const leaked = storeChanges(base, await readStore(ctx)).filter((c) => c.what.endsWith(' created') && !c.what.startsWith('network'));
  check(leaked.length === 0, `left in the cloud once both Services are gone: ${leaked.map((c) => c.what.replace(/ created$/, '')).join(', ')}`);
  return `${GONE}'s load balancer removed and finalizer released, ${victim.name}'s Node deleted, ${joined} initialised and targeted, nothing left`;
}

/** Stops the CCM, then deletes the Service, deletes a worker's server and joins a new node. */
async function whileDown(ctx: ConformanceContext): Promise<{ victim: Server; joined: string }> {
  const workers = new Set(lbNodes(await listNodes(ctx)).map((n) => n.metadata?.name));
  const victim = (await clusterServers(ctx)).find((s) => workers.has(s.name));
  check(victim !== undefined, 'no worker node to delete');
  ctx.involve({ kind: 'Node', name: victim.name });
  await stopCcm(ctx);
  await ctx.core.deleteNamespacedService({ name: GONE, namespace: ctx.namespace });
  await deleteServer(ctx, victim.id);
  const joined = await ctx.sandbox.addWorker();
  ctx.involve({ kind: 'Node', name: joined });
  await until(
    ctx,
    `the new node ${joined} to register while the CCM is down`,
    async () => (await ctx.core.readNode({ name: joined }).catch(() => undefined)) !== undefined,
  );
  return { victim, joined };
}

/** Waits until the kept Service's load balancer targets the joined node and no longer the deleted server. */
async function targetsMoved(ctx: ConformanceContext, vip: string, victim: Server, joined: string): Promise<void> {
  const joinedId = (await clusterServers(ctx)).find((s) => s.name === joined)?.id ?? joined;
  await until(
    ctx,
    `the load balancer of ${KEPT} at ${vip} to target ${joined} and no longer ${victim.name}`,
    async () => {
      const view = await cloudLb(ctx, vip);
      if (!view) throw new Error(`the ${ctx.cloud.title} API shows no load balancer at ${vip}`);
      if (!view.serverIds.includes(joinedId) || view.serverIds.includes(victim.id)) throw new Error(`targets ${view.serverIds.join(', ') || 'none'}`);
      return true;
    },
    Math.max(ctx.timeoutMs, NODE_SYNC_MS),
  );
}
