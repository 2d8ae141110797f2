// The idle-budget capability: with the nodes (and the run's LoadBalancer Services, where earlier checks left
// them) settled, a CCM has nothing to do, so its calls over a quiet window are its polling alone. They are
// counted per endpoint (method and path with ids folded) and fail above a budget per endpoint (default one
// call per second, as hcloud-cloud-controller-manager #661 asks of a CCM polling one endpoint far faster).
import { check, hasTaint, listNodes, UNINITIALIZED_TAINT, until, type ConformanceContext } from '../context.ts';
import { holdFor, perEndpoint, recordCcmCalls } from './ccm-calls.ts';

/** `12 (1.2/min)`: a count over the window and its rate per minute. */
const perMinute = (count: number, windowMs: number): string => `${count} (${((count * 60_000) / windowMs).toFixed(1)}/min)`;

export async function idleBudget(ctx: ConformanceContext): Promise<string> {
  const { idleMs, idleBudgetPerSecond } = ctx.windows;
  await until(ctx, 'every Node initialised before the quiet window', async () => {
    const nodes = await listNodes(ctx);
    return nodes.length > 0 && nodes.every((n) => n.spec?.providerID && !hasTaint(n, UNINITIALIZED_TAINT));
  });
  const services = (await ctx.core.listNamespacedService({ namespace: ctx.namespace })).items.filter((s) => s.spec?.type === 'LoadBalancer').length;
  const recorder = recordCcmCalls(ctx);
  try {
    await holdFor(idleMs);
  } finally {
    recorder.stop();
  }
  const endpoints = perEndpoint(recorder.calls);
  const budget = (idleBudgetPerSecond * idleMs) / 1000;
  const listed = endpoints.map(([e, n]) => `${e} ${perMinute(n, idleMs)}`).join(', ') || 'none';
  const what = `${recorder.calls.length} calls in ${idleMs / 1000} s with ${services} LoadBalancer Service(s): ${listed}`;
  const over = endpoints.filter(([, n]) => n > budget);
  check(
    over.length === 0,
    `${over.map(([e, n]) => `${e} ${(n / (idleMs / 1000)).toFixed(2)}/s`).join(', ')} above the budget of ${idleBudgetPerSecond}/s per endpoint; ${what}`,
  );
  return what;
}
