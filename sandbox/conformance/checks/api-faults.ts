// The api-faults capability: while the cloud fails the calls a CCM looks instances up with, every server is
// still there, so no Node may be deleted and none may get the shutdown taint (a CCM that reads a failed
// lookup as "not found" deletes Nodes: Linode's CCM PRs #99 and #570, kubernetes #71562). A CCM only asks
// about a Node that is not Ready, so one worker's kubelet is held silent (its server keeps running) for the
// whole run of faults: 500, 503, 403, a timeout, then the secondary call its cloud's CCM makes (a VPC's
// addresses on Linode), each for one window. Afterwards the worker comes back and everything must converge.
// A status the cloud's API says a server is gone with is no fault: where 403 is one (phoenixNAP), the run
// injects the 401 an expired or revoked token gets instead.
import type { FaultRuleInput } from '../../../simulator/api/schema/internal.ts';
import type { ApiCallEvent } from '../../../simulator/api/schema/events.ts';
import { check, CONTROL_PLANE_LABEL, hasTaint, listNodes, readyOf, SHUTDOWN_TAINT, UNINITIALIZED_TAINT, until, type ConformanceContext } from '../context.ts';
import { endpointList, holdFor, recordCcmCalls, watchNodes, type CallRecorder } from './ccm-calls.ts';

/** One fault of the run: its name in the report, the rule, and which of the CCM's answers it made. */
interface ApiFault {
  readonly name: string;
  readonly rule: FaultRuleInput;
  hit(call: ApiCallEvent): boolean;
}

/** The lookup itself: any GET of a server or of the server list, whatever API the cloud speaks. */
const LOOKUP = { method: 'GET', resource_type: 'server' } as const;

type FaultCode = 'server_error' | 'service_unavailable' | 'forbidden' | 'unauthorized';

function errorFault(status: number, code: FaultCode, match: FaultRuleInput['match']): ApiFault {
  return { name: `${status} ${code}`, rule: { kind: 'error', status, code, match }, hit: (c) => c.status === status && c.error_code === code };
}

/** The authorisation faults, the first one the cloud does not answer a gone server with being injected. */
const AUTHORISATION = [
  { status: 403, code: 'forbidden' },
  { status: 401, code: 'unauthorized' },
] as const;

/**
 * The authorisation fault for this cloud (none when each is a status its API says a server is gone with), and a
 * line per one passed over saying why: a CCM that reads such a status as gone is right to.
 */
export function authorisationFault(ctx: Pick<ConformanceContext, 'cloud'>): { fault?: (typeof AUTHORISATION)[number]; notInjected: string[] } {
  const gone = ctx.cloud.conformance.goneStatuses ?? [];
  const notInjected: string[] = [];
  for (const a of AUTHORISATION) {
    const why = gone.find((g) => g.status === a.status);
    if (why === undefined) return { fault: a, notInjected };
    notInjected.push(`${a.status} not injected: ${why.evidence}`);
  }
  return { notInjected };
}

/** The faults in run order, for a window of `windowMs`. */
export function apiFaults(ctx: Pick<ConformanceContext, 'cloud'>, windowMs: number): ApiFault[] {
  const auth = authorisationFault(ctx).fault;
  const faults: ApiFault[] = [
    errorFault(500, 'server_error', LOOKUP),
    errorFault(503, 'service_unavailable', LOOKUP),
    ...(auth === undefined ? [] : [errorFault(auth.status, auth.code, LOOKUP)]),
    // A request held for the whole window: the CCM's own timeout (or its context's) ends it first.
    {
      name: `timeout (answers held ${windowMs / 1000} s)`,
      rule: { kind: 'latency', latency_ms: windowMs, match: LOOKUP },
      hit: (c) => c.latency_ms >= windowMs / 2 || c.status === 0,
    },
  ];
  const secondary = ctx.cloud.conformance.lookupSecondary;
  if ('path' in secondary)
    faults.push({ ...errorFault(503, 'service_unavailable', { method: 'GET', path: secondary.path }), name: `503 on the secondary call (${secondary.what})` });
  return faults;
}

/** The worker whose kubelet is held silent: the last Ready, initialised worker by name. */
export async function pickWorker(ctx: ConformanceContext): Promise<string> {
  const workers = (await listNodes(ctx))
    .filter((n) => n.metadata?.labels?.[CONTROL_PLANE_LABEL] === undefined && readyOf(n) === 'True' && !hasTaint(n, UNINITIALIZED_TAINT) && n.spec?.providerID)
    .map((n) => n.metadata?.name ?? '')
    .sort();
  const name = workers.at(-1);
  check(name !== undefined, 'no Ready, initialised worker node to hold NotReady');
  return name;
}

/** When simcloud received the call: its event is published once it is answered. */
const receivedAt = (c: ApiCallEvent): number => Date.parse(c.time) - c.latency_ms;

/**
 * Holds each fault for one window. A call counts for the fault in force when simcloud received it, so a
 * call held by the timeout fault counts there though it is answered later (the recorder runs on past the
 * windows until the caller stops it).
 */
interface FaultWindow {
  readonly fault: ApiFault;
  readonly from: number;
  readonly to: number;
}

async function runFaults(ctx: ConformanceContext, setPhase: (p: string) => void): Promise<FaultWindow[]> {
  const windows: FaultWindow[] = [];
  for (const fault of apiFaults(ctx, ctx.windows.faultMs)) {
    setPhase(fault.name);
    const rule = await ctx.sandbox.admin.addFault(fault.rule);
    const from = Date.now();
    try {
      await holdFor(ctx.windows.faultMs);
    } finally {
      await ctx.sandbox.admin.deleteFault(rule.id);
    }
    windows.push({ fault, from, to: Date.now() });
  }
  return windows;
}

/** When the last answer a latency fault held is due: its window's end, plus the hold and a second's slack. */
export function heldAnswersDue(windows: readonly Pick<FaultWindow, 'fault' | 'to'>[], holdMs: number): number {
  return Math.max(0, ...windows.filter((w) => w.fault.rule.kind === 'latency').map((w) => w.to + holdMs + 1000));
}

/** Each fault with the CCM calls it answered, why a fault was not injected, and why there was no secondary call where there is none. */
function hitsOf(ctx: ConformanceContext, windows: readonly FaultWindow[], calls: CallRecorder): string[] {
  const seen = windows.map(({ fault, from, to }) => {
    const hits = calls.calls.filter((c) => receivedAt(c) >= from && receivedAt(c) <= to && fault.hit(c));
    return `${fault.name}: ${hits.length} calls hit (${endpointList(hits)})`;
  });
  const secondary = ctx.cloud.conformance.lookupSecondary;
  const noSecondary = 'none' in secondary ? [`no secondary lookup call to fail: ${secondary.none}`] : [];
  return [...seen, ...authorisationFault(ctx).notInjected, ...noSecondary];
}

/** Every Node Ready, initialised and untainted: the count, or the error saying which are not. */
export async function converge(ctx: ConformanceContext): Promise<number | Error> {
  return until(ctx, 'every Node back Ready and initialised, none tainted as shut down', async () => {
    const nodes = await listNodes(ctx);
    const bad = nodes.filter((n) => readyOf(n) !== 'True' || hasTaint(n, UNINITIALIZED_TAINT) || hasTaint(n, SHUTDOWN_TAINT) || !n.spec?.providerID);
    if (bad.length) throw new Error(`not converged: ${bad.map((n) => n.metadata?.name).join(', ')}`);
    return nodes.length;
  }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
}

/**
 * Runs `fn` with `worker` held NotReady (its kubelet silent, its server running), so the CCM keeps asking
 * the cloud about it every node-monitor period; the kubelet is released whatever happens.
 */
export async function whileNotReady<T>(ctx: ConformanceContext, worker: string, fn: () => Promise<T>): Promise<T> {
  const runtime = ctx.sandbox.runtime;
  check(runtime?.silenceKubelet !== undefined, `the ${ctx.sandbox.options.runtime} runtime cannot hold a kubelet silent while its machine runs`);
  try {
    await runtime.silenceKubelet(worker, true);
    await until(ctx, `Node ${worker} to go NotReady once its kubelet is silent`, async () => readyOf(await ctx.core.readNode({ name: worker })) !== 'True');
    return await fn();
  } finally {
    await runtime.silenceKubelet(worker, false);
  }
}

/** The worker held NotReady through every fault. */
async function underFaults(ctx: ConformanceContext, worker: string, setPhase: (p: string) => void): Promise<FaultWindow[]> {
  return whileNotReady(ctx, worker, async () => {
    const windows = await runFaults(ctx, setPhase);
    setPhase('after the faults');
    return windows;
  });
}

export async function apiFaultsCheck(ctx: ConformanceContext): Promise<string> {
  const worker = await pickWorker(ctx);
  ctx.involve({ kind: 'Node', name: worker });
  let phase = `${worker} going NotReady, no fault yet`;
  const watch = await watchNodes(ctx, () => phase);
  const calls = recordCcmCalls(ctx);
  // The recorder runs on while the Nodes converge: calls the timeout fault held are answered after its window.
  const windows = await underFaults(ctx, worker, (p) => (phase = p)).catch(async (err: unknown) => {
    calls.stop();
    await watch.stop();
    throw err;
  });
  const converged = await converge(ctx);
  // Nodes may converge before a lookup the timeout fault held is answered: record until the last one is due.
  await holdFor(Math.max(0, heldAnswersDue(windows, ctx.windows.faultMs) - Date.now()));
  calls.stop();
  await watch.stop();
  const seen = hitsOf(ctx, windows, calls);
  // What the CCM did during the faults is the finding; not converging afterwards comes second.
  const touched = watch.touched.map((t) => `Node ${t.node} ${t.what === 'deleted' ? 'deleted' : 'got the shutdown taint'} during ${t.during}`);
  check(touched.length === 0, `${touched.join('; ')} while every server kept running. ${seen.join('; ')}`);
  if (converged instanceof Error) throw converged;
  return `${worker} held NotReady; ${seen.join('; ')}; no Node deleted or tainted, ${converged} Nodes converged`;
}
