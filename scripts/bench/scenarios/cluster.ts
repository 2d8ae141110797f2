// Scenarios on a resident cluster: S4 rest cost, S6 LB fan-out when nodes join, S7 node lifecycle.
import { controllerOf, countBy, operationOf, type CallRecord } from '../calls.ts';
import { heartbeat, type BenchEnv } from '../env.ts';
import { createServers, nodeName, removeMachines, waitForNodes, type CreatedServer } from '../nodes.ts';
import { ensureNodes, ensureServices } from '../resident.ts';
import type { Scenario, ScenarioContext } from '../scenario.ts';
import { figure } from '../stats.ts';
import { mapWithConcurrency } from '../../../lib/concurrency.ts';
import { waitFor } from '../../../sandbox/wait.ts';

export const S4: Scenario = {
  id: 'S4',
  title: 'rest: N Ready nodes, 100 LB Services, routes on: cloud calls per minute',
  usesEnv: true,
  async run(ctx) {
    const env = await ctx.env();
    await ensureNodes(ctx, env, ctx.opts.nodes);
    await ensureServices(ctx, env, 100);
    await env.settle(5000);
    const minutes = ctx.opts.restMinutes;
    ctx.progress(`S4 resting for ${minutes} min${minutes < 10 ? ' (shortened with --rest-minutes; the 5-min address refresh may fall outside)' : ''}`);
    const start = Date.now();
    await new Promise((r) => setTimeout(r, minutes * 60_000));
    const calls = env.calls.ccmCalls(start);
    const perMinute = Array.from(
      { length: Math.max(1, Math.floor(minutes)) },
      (_, m) => calls.filter((c) => c.at >= start + m * 60_000 && c.at < start + (m + 1) * 60_000).length,
    );
    const n = ctx.opts.nodes;
    const figures = [
      figure({
        scenario: 'S4',
        name: `cloud calls per minute at rest (${minutes} min window, average)`,
        unit: 'calls/min',
        samples: [calls.length / minutes],
        target: 10,
        limit: 0.2 + Math.ceil(n / 500) / 5,
        limitNote: 'one paged server list per 5-min address refresh (a cache); upstream pattern: N/5 metadata calls + 6 route lists per min',
        note: `per-minute counts: ${perMinute.join(', ')}; upstream pattern at ${n} nodes ~${Math.round(n / 5 + 6)}/min`,
      }),
    ];
    return {
      figures,
      details: { restMinutes: minutes, perMinute, byController: countBy(calls, controllerOf), byOperation: countBy(calls, operationOf) },
      runs: 1,
    };
  },
};

const isMutating = (method: string): boolean => method !== 'GET';

interface FanOut {
  readonly writes: number;
  readonly converged: number;
  /** Writes of the pass that follows the 10 nodes' removal (not judged; reported). */
  readonly removalWrites: number;
  readonly calls: CallRecord[];
}

/**
 * Quiet time that ends a node-triggered LB pass: it starts at most one 1 s batching window after the last
 * node change that matters (a join counts from the last node's initialisation, which the run waits for).
 */
const NODE_PASS_QUIET_MS = 4000;

const lbWrites = (env: BenchEnv, from: number): CallRecord[] =>
  env.calls.ccmCalls(from).filter((c) => controllerOf(c) === 'service-lb-controller' && isMutating(c.method));

async function fanOutRun(env: BenchEnv, r: number): Promise<FanOut> {
  await env.settle(3000);
  const start = Date.now();
  const names = Array.from({ length: 10 }, (_, i) => nodeName(`s6r${r}`, i));
  const servers = await createServers(env, names);
  await waitForNodes(env, names, true, 120_000);
  await env.settle(NODE_PASS_QUIET_MS, 60_000, Date.now());
  const calls = env.calls.ccmCalls(start).filter((c) => controllerOf(c) === 'service-lb-controller');
  const writes = calls.filter((c) => isMutating(c.method));
  const firstJoin = Math.min(...names.map((n) => env.nodes.get(n)?.added ?? start));
  // The removal's own pass must end before the next run starts counting, or the two merge.
  const removal = Date.now();
  await removeMachines(env, servers);
  await env.settle(NODE_PASS_QUIET_MS, 60_000, Date.now());
  return {
    writes: writes.length,
    converged: writes.length ? (Math.max(...writes.map((c) => c.at)) - firstJoin) / 1000 : 0,
    removalWrites: lbWrites(env, removal).length,
    calls,
  };
}

export const S6: Scenario = {
  id: 'S6',
  title: 'fan-out: 100 LB Services, then 10 nodes join',
  usesEnv: true,
  async run(ctx) {
    const env = await ctx.env();
    await ensureNodes(ctx, env, ctx.opts.nodes);
    await ensureServices(ctx, env, 100);
    const runs: FanOut[] = [];
    for (let r = 1; r <= ctx.opts.runs; r++) {
      runs.push(await fanOutRun(env, r));
      const last = runs.at(-1);
      ctx.progress(`S6 run ${r}: ${last?.writes} LB writes, converged ${last?.converged.toFixed(1)} s; removal ${last?.removalWrites} writes`);
    }
    const figures = [
      figure({
        scenario: 'S6',
        name: 'LB update writes for 10 joining nodes',
        unit: 'calls',
        samples: runs.map((f) => f.writes),
        target: 100,
        limit: 100,
        limitNote: 'one target update per LB',
      }),
      figure({ scenario: 'S6', name: 'first node joined -> last LB updated', unit: 's', samples: runs.map((f) => f.converged), target: 10, limitNote: '' }),
      figure({
        scenario: 'S6',
        name: 'LB update writes when the 10 nodes leave',
        unit: 'calls',
        samples: runs.map((f) => f.removalWrites),
        limit: 0,
        limitNote: 'simcloud drops a deleted server from its groups itself, so the pass has nothing to write',
      }),
    ];
    return {
      figures,
      details: {
        byOperation: countBy(
          runs.flatMap((f) => f.calls),
          operationOf,
        ),
      },
      runs: runs.length,
    };
  },
};

async function restore(env: BenchEnv, off: readonly CreatedServer[]): Promise<void> {
  await mapWithConcurrency(off, 16, async (s) => {
    await env.client.servers.poweron(s.id);
  });
  await waitFor(() => off.every((s) => env.nodes.get(s.name)?.ready === true), { timeoutMs: 180_000, description: 'powered-on nodes Ready' });
}

interface Lifecycle {
  readonly deleted: number[];
  readonly tainted: number[];
  readonly fromCloud: number[];
}

async function lifecycleRun(ctx: ScenarioContext, env: BenchEnv, k: number): Promise<Lifecycle> {
  const victims = ctx.shared.resident.splice(0, 2 * k);
  const [gone, off] = [victims.slice(0, k), victims.slice(k)];
  const start = Date.now();
  await mapWithConcurrency(gone, 16, async (s) => void (await env.client.servers.delete(s.id)));
  await mapWithConcurrency(off, 16, async (s) => void (await env.client.servers.poweroff(s.id)));
  const timeout = (heartbeat(ctx.opts.nodes).graceSeconds + 120) * 1000;
  const done = (): boolean =>
    gone.every((s) => env.nodes.get(s.name)?.deleted !== undefined) && off.every((s) => env.nodes.get(s.name)?.shutdownTaint !== undefined);
  await waitFor(done, { timeoutMs: timeout, description: 'lifecycle actions' });
  const out: Lifecycle = {
    deleted: gone.map((s) => sinceNotReady(env, s.name, 'deleted')),
    tainted: off.map((s) => sinceNotReady(env, s.name, 'shutdownTaint')),
    fromCloud: victims.map((s) => ((env.nodes.get(s.name)?.deleted ?? env.nodes.get(s.name)?.shutdownTaint ?? start) - start) / 1000),
  };
  await restore(env, off);
  ctx.shared.resident.push(...off);
  await ensureNodes(ctx, env, ctx.opts.nodes);
  return out;
}

export const S7: Scenario = {
  id: 'S7',
  title: 'lifecycle: servers deleted and shut down -> Node deleted / shutdown taint',
  usesEnv: true,
  async run(ctx) {
    const env = await ctx.env();
    await ensureNodes(ctx, env, ctx.opts.nodes);
    const k = Math.min(50, Math.floor(ctx.opts.nodes / 2));
    const runs: Lifecycle[] = [];
    for (let r = 1; r <= ctx.opts.heavyRuns; r++) {
      runs.push(await lifecycleRun(ctx, env, k));
      ctx.progress(`S7 run ${r}: ${k} deleted, ${k} shut down`);
    }
    const limitNote = 'node-monitor-period 5 s (the lifecycle loop) after the node turns NotReady';
    const grace = heartbeat(ctx.opts.nodes).graceSeconds;
    const figures = [
      figure({
        scenario: 'S7',
        name: 'NotReady -> Node deleted (server deleted)',
        unit: 's',
        samples: runs.flatMap((l) => l.deleted),
        target: 10,
        judge: 'p99',
        limit: 5,
        limitNote,
      }),
      figure({
        scenario: 'S7',
        name: 'NotReady -> shutdown taint (server off)',
        unit: 's',
        samples: runs.flatMap((l) => l.tainted),
        target: 10,
        judge: 'p99',
        limit: 5,
        limitNote,
      }),
      figure({
        scenario: 'S7',
        name: 'cloud action -> Node deleted / tainted (incl. grace period)',
        unit: 's',
        samples: runs.flatMap((l) => l.fromCloud),
        judge: 'p99',
        limit: grace,
        limitNote: `kube-controller-manager node-monitor grace period (${grace} s here)`,
      }),
    ];
    return { figures, details: { perRun: k }, runs: runs.length };
  },
};

function sinceNotReady(env: BenchEnv, name: string, what: 'deleted' | 'shutdownTaint'): number {
  const t = env.nodes.get(name);
  return t?.[what] !== undefined && t.notReady !== undefined ? (t[what] - t.notReady) / 1000 : Number.NaN;
}
