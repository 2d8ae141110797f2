// S5 LoadBalancer bursts (100 and 1000 Services arriving at a fixed rate; then with 2 s of injected LB latency against the
// workers' concurrency bound) and S12 the CCM's memory with N nodes and 1000 Services.
import { isLeaseOperation } from '../api-audit.ts';
import { controllerOf, countBy, operationOf } from '../calls.ts';
import { idleRssMb } from '../deployed-ccm.ts';
import type { BenchEnv, CcmEntry } from '../env.ts';
import { ensureNodes, ensureServices } from '../resident.ts';
import type { Scenario, ScenarioContext, ScenarioOutput } from '../scenario.ts';
import { createServices, deleteServices, serviceName, waitForIngress } from '../services.ts';
import { daemonSetPhase } from '../pods.ts';
import { figure } from '../stats.ts';
import type { Figure } from '../types.ts';

/** Apiserver writes per LB Service: the finalizer patch, the status patch, the event. */
const WRITES_PER_SERVICE = 3;
const LB_LATENCY_MS = 2000;
/**
 * A burst's Services arrive at this rate, on a schedule the same in every pass. Created as fast as the
 * apiserver takes them, 1 000 took 9-12 s (each allocates a NodePort and a ClusterIP), and the per-Service
 * figures, counted from each creation, moved by those seconds between passes: at the QPS floor a later
 * creation waits less of the same queue.
 */
const BURST_CREATES_PER_SECOND = 50;

interface Burst {
  readonly total: number;
  /** From the burst's start until the benchmark saw its last Service created (the schedule's length, unless the apiserver fell behind it). */
  readonly created: number;
  readonly perService: number[];
  readonly lbCalls: number;
  readonly byOperation: Record<string, number>;
}

async function burst(env: BenchEnv, prefix: string, count: number): Promise<Burst> {
  const names = Array.from({ length: count }, (_, i) => serviceName(prefix, i));
  const start = Date.now();
  await createServices(env, names, BURST_CREATES_PER_SECOND);
  await waitForIngress(env, names, 300_000 + count * 2000);
  const times = names.map((n) => env.services.times.get(n));
  const total = (Math.max(...times.map((t) => t?.ingress ?? start)) - start) / 1000;
  const created = (Math.max(...times.map((t) => t?.added ?? start)) - start) / 1000;
  const perService = times.map((t) => ((t?.ingress ?? start) - (t?.added ?? start)) / 1000);
  const calls = env.calls.ccmCalls(start).filter((c) => controllerOf(c) === 'service-lb-controller');
  const lbCalls = calls.filter((c) => c.path.startsWith('/v1/load_balancers')).length;
  return { total, created, perService, lbCalls, byOperation: countBy(calls, operationOf) };
}

async function sizeRuns(ctx: ScenarioContext, env: BenchEnv, count: number, keepLast: boolean): Promise<Burst[]> {
  const out: Burst[] = [];
  const runs = count >= 1000 ? ctx.opts.heavyRuns : ctx.opts.runs;
  for (let r = 1; r <= runs; r++) {
    const prefix = `s5n${count}r${r}`;
    const b = await burst(env, prefix, count);
    out.push(b);
    ctx.progress(`S5 run ${r}: ${count} Services with ingress in ${b.total.toFixed(1)} s (all created in ${b.created.toFixed(1)} s)`);
    const names = Array.from({ length: count }, (_, i) => serviceName(prefix, i));
    if (keepLast && r === runs) ctx.shared.residentServices.push(...names);
    else await deleteServices(env, names);
    await env.settle(2000);
  }
  return out;
}

function sizeFigures(ctx: ScenarioContext, env: BenchEnv, count: number, runs: readonly Burst[]): Figure[] {
  const p = env.options.profile;
  const target = count <= 100 ? 5 : 60 * (count / 1000);
  return [
    figure({
      scenario: 'S5',
      name: `${count} LB Services in a burst -> all with ingress`,
      unit: 's',
      samples: runs.map((b) => b.total),
      target,
      limit: (count * WRITES_PER_SERVICE) / p.kubeApiQps,
      limitNote: `QPS floor: ${count} x 3 writes at ${p.kubeApiQps} QPS`,
    }),
    figure({
      scenario: 'S5',
      name: `${count} LB Services: created -> ingress (per Service)`,
      unit: 's',
      samples: runs.flatMap((b) => b.perService),
      judge: 'p99',
      limitNote: '',
    }),
  ];
}

async function latencyRuns(ctx: ScenarioContext, env: BenchEnv): Promise<Figure> {
  const workers = env.options.profile.serviceWorkers;
  const count = 4 * workers;
  const ratios: number[] = [];
  for (let r = 1; r <= ctx.opts.heavyRuns; r++) {
    const rule = await env.admin.addFault({ kind: 'latency', latency_ms: LB_LATENCY_MS, match: { path: '/v1/load_balancers**' } });
    let b: Burst;
    try {
      b = await burst(env, `s5lat${r}`, count);
    } finally {
      await env.admin.deleteFault(rule.id);
    }
    // Each Ensure makes (lbCalls / count) calls that each wait 2 s: the workers bound the throughput.
    const bound = Math.ceil(count / workers) * (b.lbCalls / count) * (LB_LATENCY_MS / 1000);
    ratios.push((100 * bound) / b.total);
    ctx.progress(`S5 latency run ${r}: ${count} Services in ${b.total.toFixed(1)} s (bound ${bound.toFixed(1)} s)`);
    await deleteServices(
      env,
      Array.from({ length: count }, (_, i) => serviceName(`s5lat${r}`, i)),
    );
  }
  return figure({
    scenario: 'S5',
    name: `with ${LB_LATENCY_MS / 1000} s LB latency: share of the concurrency bound (${count} Services, ${workers} workers)`,
    unit: '%',
    samples: ratios,
    target: 80,
    direction: 'min',
    limit: 100,
    limitNote: 'bound = ceil(S / workers) x LB calls per Ensure x 2 s',
  });
}

export const S5: Scenario = {
  id: 'S5',
  title: `LB burst: 100 and 1000 LoadBalancer Services, created at ${BURST_CREATES_PER_SECOND}/s; with 2 s LB latency`,
  usesEnv: true,
  async run(ctx) {
    const env = await ctx.env();
    await ensureNodes(ctx, env, ctx.opts.nodes);
    const sizes = ctx.opts.smoke ? [Math.min(100, ctx.opts.nodes)] : [100, 1000];
    const figures: Figure[] = [];
    const calls: Record<string, Record<string, number>[]> = {};
    const created: Record<string, number[]> = {};
    for (const [i, count] of sizes.entries()) {
      const keep = i === sizes.length - 1 && ctx.selected.has('S12');
      const runs = await sizeRuns(ctx, env, count, keep);
      calls[String(count)] = runs.map((b) => b.byOperation);
      created[String(count)] = runs.map((b) => b.created);
      figures.push(...sizeFigures(ctx, env, count, runs));
    }
    if (!ctx.opts.smoke) figures.push(await latencyRuns(ctx, env));
    return { figures, details: { sizes, serviceControllerCallsByOperation: calls, createdSeconds: created }, runs: ctx.opts.runs };
  },
};

/** What one restart of the CCM (a full resync of every Service) cost, until it settled. */
interface Restart {
  readonly peakRssMb: number;
  readonly cpuSeconds: number;
  readonly requests: number;
  /** The new CCM's cloud calls over the window, by operation. */
  readonly cloudCalls: Record<string, number>;
}

/**
 * Restarts the CCM (full resync of every Service) and measures the new process until it settles: its peak
 * RSS, CPU and Kubernetes API requests. The windows open after the old CCM has stopped, so only the new one
 * is measured.
 */
async function ccmRestart(env: BenchEnv, services: readonly string[], how: CcmEntry): Promise<Restart> {
  await env.stopCcm();
  const close = env.sampler.window();
  const closeApi = env.audit.window();
  const started = Date.now();
  await env.startCcm(how);
  await waitForIngress(env, services, 120_000);
  // The window lasts until the CCM is idle on both sides: the resync's events (an EnsuringLoadBalancer and an
  // EnsuredLoadBalancer per Service) drain at the client's QPS long after its last cloud call. Waiting for an
  // event per Service instead never ends for a CCM whose event queue overflowed and dropped some, as
  // client-go's does past 1 000.
  const drain = ((services.length * 2) / env.options.profile.kubeApiQps) * 1000;
  if (!(await env.settle(5000, 120_000 + 2 * drain, started, { api: true })))
    throw new Error(`the CCM was still busy ${Math.round((Date.now() - started) / 1000)} s after its restart`);
  const ccm = close().ccm;
  // Leader election renews its lease every 2 s however long the window is: counted per second, not per restart.
  const counts = await closeApi();
  const leases = Object.values(counts.byController)
    .flatMap((ops) => Object.entries(ops))
    .filter(([operation]) => isLeaseOperation(operation))
    .reduce((n, [, c]) => n + c, 0);
  const requests = counts.total - leases;
  const cloudCalls = countBy(env.calls.ccmCalls(started), operationOf);
  return { peakRssMb: ccm?.peakRssMb ?? Number.NaN, cpuSeconds: ccm?.cpuSeconds ?? Number.NaN, requests, cloudCalls };
}

const S12_COMPARE_AS = 'S12 CCM peak RSS';

/** Per restart, CPU and requests: compared between the CCMs (the scenario's whole window is not, see `ownTotals`). */
function restartCosts(restarts: readonly Restart[], what: string): Figure[] {
  return [
    {
      ...figure({ scenario: 'S12', name: `CCM CPU seconds per restart, ${what}`, unit: 's', samples: restarts.map((r) => r.cpuSeconds), limitNote: '' }),
      compareAs: 'S12 CCM CPU seconds per restart',
    },
    {
      ...figure({
        scenario: 'S12',
        name: `Kubernetes API requests per restart, leader election's Lease excluded, ${what}`,
        unit: 'requests',
        samples: restarts.map((r) => r.requests),
        limitNote: '',
      }),
      compareAs: 'S12 Kubernetes API requests per restart',
    },
  ];
}

/** The upstream Go CCM over the same restarts: one static binary, nothing to deploy differently. */
async function upstreamS12(ctx: ScenarioContext, env: BenchEnv, what: string): Promise<ScenarioOutput> {
  const restarts: Restart[] = [];
  for (let r = 1; r <= ctx.opts.runs; r++) restarts.push(await ccmRestart(env, ctx.shared.residentServices, {}));
  const peaks = restarts.map((r) => r.peakRssMb);
  const f = figure({ scenario: 'S12', name: `upstream Go CCM peak RSS, ${what}`, unit: 'MB', samples: peaks, limitNote: '' });
  return {
    figures: [{ ...f, compareAs: S12_COMPARE_AS }, ...restartCosts(restarts, what)],
    details: { upstreamMb: peaks, restartCloudCalls: restarts.map((r) => r.cloudCalls) },
    runs: peaks.length,
  };
}

export const S12: Scenario = {
  id: 'S12',
  title: 'memory: CCM RSS with N nodes and 1000 LoadBalancer Services',
  usesEnv: true,
  // Ours restarts once more than upstream (in the sandbox's form) and runs a DaemonSet: the window's totals differ in work.
  ownTotals: true,
  async run(ctx) {
    const env = await ctx.env();
    const services = ctx.opts.smoke ? 100 : 1000;
    await ensureNodes(ctx, env, ctx.opts.nodes);
    await ensureServices(ctx, env, services);
    const what = `${ctx.opts.nodes} nodes + ${services} Services (restart, full resync)`;
    if (env.ccmKind === 'upstream') return upstreamS12(ctx, env, what);
    // --compare compares the restarts only: the DaemonSet and the sandbox's form are left to the plain bench.
    const pods = ctx.opts.compare ? { figures: [], details: {} } : await daemonSetPhase(env, ctx.progress);
    const deployed = await env.deployedEntry();
    // The floor of S12: the bundle as deployed (flags, environment, code cache) once loaded, a `--help` run.
    const idleMb = Math.round(await idleRssMb(deployed));
    // Three restarts of the deployed form (its peak moves by ~10 MB between runs); judged on the highest.
    const restarts: Restart[] = [];
    for (let r = 1; r <= ctx.opts.runs; r++) restarts.push(await ccmRestart(env, ctx.shared.residentServices, deployed));
    const shipped = restarts.map((r) => r.peakRssMb);
    const sandboxed = ctx.opts.compare ? Number.NaN : (await ccmRestart(env, ctx.shared.residentServices, {})).peakRssMb;
    const target = ctx.opts.nodes > 1000 ? 300 : 150;
    const figures = [
      {
        ...figure({
          scenario: 'S12',
          name: `CCM peak RSS as deployed (deploy/: bundle, code cache, image flags, Deployment env), ${what}`,
          unit: 'MB',
          samples: shipped,
          target,
          limit: idleMb,
          limitNote: `the deployed bundle loaded, no cluster: ${idleMb} MB RSS`,
          note: deployed.label,
        }),
        compareAs: S12_COMPARE_AS,
      },
      ...restartCosts(restarts, `as deployed, ${what}`),
      ...(Number.isNaN(sandboxed)
        ? []
        : [
            figure({
              scenario: 'S12',
              name: `CCM peak RSS as the sandbox runs it (node src/main.ts, no flags), ${what}`,
              unit: 'MB',
              samples: [sandboxed],
              limitNote: 'type stripping and unbundled sources: +60 MB at start; V8 sizes its heap from the 24 GiB machine',
            }),
          ]),
      ...pods.figures,
    ];
    return {
      figures,
      details: {
        deployedMb: shipped,
        deployedNodeArgs: deployed.nodeArgs,
        deployedEnv: deployed.env,
        sandboxMb: sandboxed,
        pods: pods.details,
        restartCloudCalls: restarts.map((r) => r.cloudCalls),
      },
      runs: shipped.length,
    };
  },
};
