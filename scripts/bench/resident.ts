// The resident cluster later scenarios need: N Ready worker nodes and M LoadBalancer Services with
// ingress, created only when missing (S2 usually leaves the nodes, S5 the Services).
import type { V1Node } from '@kubernetes/client-node';
import { waitFor } from '../../sandbox/wait.ts';
import type { BenchEnv } from './env.ts';
import { createServers, nodeName, waitForNodes } from './nodes.ts';
import type { ScenarioContext } from './scenario.ts';
import { createServices, deleteServices, serviceName, waitForIngress } from './services.ts';

let batch = 0;

export async function ensureNodes(ctx: ScenarioContext, env: BenchEnv, count: number): Promise<void> {
  const missing = count - ctx.shared.resident.length;
  if (missing <= 0) return;
  batch += 1;
  ctx.progress(`creating ${missing} resident nodes`);
  const names = Array.from({ length: missing }, (_, i) => nodeName(`res${batch}`, i));
  ctx.shared.resident.push(...(await createServers(env, names)));
  await waitForNodes(env, names, true, 600_000);
  // And routed: otherwise the next scenario's window holds the route controller's NetworkUnavailable writes
  // for the resident nodes (in --compare, 100 extra requests in our first pass's S1 only).
  const routed = (n: V1Node): boolean => !n.spec?.podCIDR || (n.status?.conditions ?? []).some((c) => c.type === 'NetworkUnavailable' && c.status === 'False');
  await waitFor(async () => (await env.core.listNode()).items.every(routed), {
    timeoutMs: 120_000,
    intervalMs: 500,
    description: 'resident nodes with routes',
  });
}

/** Ensures `count` resident LoadBalancer Services (extra ones are deleted). */
export async function ensureServices(ctx: ScenarioContext, env: BenchEnv, count: number): Promise<void> {
  const have = ctx.shared.residentServices;
  if (have.length > count) {
    const extra = have.splice(count);
    await deleteServices(env, extra);
  }
  if (have.length === count) return;
  batch += 1;
  const names = Array.from({ length: count - have.length }, (_, i) => serviceName(`res${batch}`, i));
  ctx.progress(`creating ${names.length} resident LoadBalancer Services`);
  await createServices(env, names);
  await waitForIngress(env, names, 600_000);
  have.push(...names);
}
