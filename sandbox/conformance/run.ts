// The conformance run: one throwaway sandbox with the chosen CCM in its slot, the capabilities checked in
// order on it (each timed, with the cloud calls the CCM made meanwhile, and on failure the Events of what
// it looked at and the CCM's last log lines), then everything torn down. `npm run conformance` and the e2e
// suites both run this.
import { existsSync, readFileSync } from 'node:fs';
import { AppsV1Api, CoreV1Api, VersionApi, type CoreV1Event } from '@kubernetes/client-node';
import { buildRequester } from '../../simulator/api/client/client.ts';
import { PooledKubeConfig } from '../kube/pooled-kubeconfig.ts';
import type { CcmChoice } from '../ccm/slot.ts';
import type { CloudDescriptor } from '../cloud/descriptor.ts';
import type { RunFaults } from './args.ts';
import { cloudOf, type CloudKind } from '../cloud/registry.ts';
import type { RuntimeName } from '../runtimes/runtime.ts';
import { createThrowawaySandbox } from '../throwaway.ts';
import { pinnedVersions } from '../control-plane/binaries.ts';
import { SANDBOX_VERSION } from '../version.ts';
import { CAPABILITIES, CAPABILITY_INFO, DEFAULT_CAPABILITIES, withNeeds, type Capability } from './capabilities.ts';
import { nodeInit, lifecycle } from './checks/nodes.ts';
import { lbBasic, lbDelete, lbUpdate } from './checks/load-balancers.ts';
import { lbAnnotations } from './checks/annotations.ts';
import { lbTls } from './checks/tls.ts';
import { leak, routes } from './checks/routes.ts';
import { restart } from './checks/restart.ts';
import { upgrade } from './checks/upgrade.ts';
import { downDelete } from './checks/down-delete.ts';
import { neighbours } from './checks/neighbours.ts';
import { apiFaultsCheck } from './checks/api-faults.ts';
import { idleBudget } from './checks/idle-budget.ts';
import { rateLimit } from './checks/rate-limit.ts';
import { nodeChurn } from './checks/node-churn.ts';
import { trafficPolicy } from './checks/traffic-policy.ts';
import { inCluster } from './checks/in-cluster.ts';
import {
  CapabilityFailure,
  DEFAULT_ADVERSITY_WINDOWS,
  isCcmCall,
  NotOffered,
  type AdversityWindows,
  type ConformanceContext,
  type InvolvedObject,
  type Profile,
  type RunMemory,
} from './context.ts';
import { Verdict, type CapabilityResult, type ConformanceReport } from './report.ts';

/** Short controller periods for the CCMs the sandbox starts itself (ours, upstream's); a command CCM runs as given. */
export const FAST_CCM_ARGS: readonly string[] = ['--node-monitor-period=1s', '--route-reconciliation-period=2s'];

export interface ConformanceOptions {
  readonly cloud: CloudKind;
  readonly ccm: CcmChoice;
  readonly runtime: RuntimeName;
  readonly kubeconfig?: string;
  /** Check only these (and what they need); each of them must be offered. */
  readonly only?: readonly Capability[];
  /** Leave these out of a run without `only` (a suite that checks the others elsewhere). */
  readonly exclude?: readonly Capability[];
  /** Opt-in capabilities to check too in a run without `only`, each where the run's order puts it. */
  readonly include?: readonly Capability[];
  /** How long one condition may take. */
  readonly timeoutMs: number;
  /** Fault rules simcloud holds from its start, so the CCM meets them from its first call. */
  readonly faults?: RunFaults;
  /** What the run checks (context.ts `Profile`); default `kubernetes`. */
  readonly profile?: Profile;
  /** The adversity checks' windows and idle budget (defaults: DEFAULT_ADVERSITY_WINDOWS). */
  readonly windows?: Partial<AdversityWindows>;
  readonly progress?: (line: string) => void;
  /** `--upgrade-from`: the command line of the CCM the upgrade check starts from. */
  readonly upgradeFrom?: string;
  /** `--kubelet-provider-id`: the kubelets register with the cloud's `<cloud>://<id>` (SandboxOptions). */
  readonly kubeletProviderId?: boolean;
}

const CHECKS: Readonly<Record<Capability, (ctx: ConformanceContext) => Promise<string>>> = {
  'node-init': nodeInit,
  'lb-basic': lbBasic,
  'lb-update': lbUpdate,
  'lb-annotations': lbAnnotations,
  'lb-tls': lbTls,
  'lb-delete': lbDelete,
  lifecycle,
  routes,
  leak,
  restart,
  upgrade,
  'down-delete': downDelete,
  neighbours,
  'idle-budget': idleBudget,
  'api-faults': apiFaultsCheck,
  'rate-limit': rateLimit,
  'node-churn': nodeChurn,
  'traffic-policy': trafficPolicy,
  'in-cluster': inCluster,
};

const CCM_LOG_LINES = 25;

function tail(file: string | undefined, lines: number): string[] {
  if (!file || !existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-lines);
}

const eventLine = (e: CoreV1Event): string =>
  `${e.involvedObject.kind}/${e.involvedObject.name}: ${e.type ?? ''} ${e.reason ?? ''} (${e.source?.component ?? e.reportingComponent ?? '?'})${(e.count ?? 1) > 1 ? ` x${e.count}` : ''}: ${e.message ?? ''}`;

async function eventsOf(core: CoreV1Api, objects: readonly InvolvedObject[]): Promise<string[]> {
  const lines: string[] = [];
  for (const o of objects) {
    const fieldSelector = `involvedObject.kind=${o.kind},involvedObject.name=${o.name}`;
    const list = await core.listEventForAllNamespaces({ fieldSelector }).catch(() => undefined);
    lines.push(
      ...(list?.items ?? [])
        .sort((a, b) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? '')))
        .map(eventLine),
    );
  }
  return lines;
}

interface Step {
  readonly run: Capability[];
  readonly required: ReadonlySet<Capability>;
}

/** Skipped or not offered, when what the capability needs did not pass. */
function blocked(c: Capability, results: readonly CapabilityResult[]): CapabilityResult | undefined {
  const need = CAPABILITY_INFO[c].needs;
  const prior = need ? results.find((r) => r.capability === need) : undefined;
  if (!prior || prior.verdict === Verdict.pass) return undefined;
  const verdict = prior.verdict === Verdict.notOffered ? Verdict.notOffered : Verdict.skipped;
  return { capability: c, verdict, message: `needs ${need}, which is ${prior.verdict}`, durationMs: 0, cloudCalls: 0, events: [], ccmLog: [], writes: [] };
}

/**
 * Not offered because the cloud's descriptor says a CCM of this kind cannot offer it there (nothing in the cloud
 * to do it with), or because our Go CCM's provider for the cloud has no Routes.
 */
export function declaredNotOffered(cloud: CloudDescriptor, ccm: CcmChoice['kind'], c: Capability): CapabilityResult | undefined {
  const declared = cloud.conformance.notOffered?.[c];
  const reason = declared?.ccms.includes(ccm)
    ? declared.reason
    : c === 'routes' && ccm === 'upstream' && !cloud.upstream.routes
      ? `our Go CCM's ${cloud.upstream.provider} provider has no Routes`
      : undefined;
  return reason === undefined
    ? undefined
    : { capability: c, verdict: Verdict.notOffered, message: reason, durationMs: 0, cloudCalls: 0, events: [], ccmLog: [], writes: [] };
}

/** The run's sandbox: the nodes are not waited for (initialising them is the first capability). */
function runSandbox(o: ConformanceOptions): ReturnType<typeof createThrowawaySandbox> {
  const ccmArgs = o.ccm.kind === 'command' ? [] : FAST_CCM_ARGS;
  return createThrowawaySandbox(
    {
      name: 'conformance',
      runtime: o.runtime,
      workers: 2,
      lbStrategy: 'lb',
      ccm: o.ccm,
      cloud: o.cloud,
      waitForNodes: false,
      ccmArgs,
      ...(o.faults ? { simcloudArgs: [`--faults=${o.faults.file}`] } : {}),
      ...(o.kubeletProviderId ? { kubeletProviderId: true } : {}),
      ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}),
      ...(o.progress ? { progress: (m: string) => o.progress?.(`  ${m}`) } : {}),
    },
    'ccm-sandbox-conformance-',
  );
}

/** What the report says of the run itself, before any capability is checked. */
function reportBase(o: ConformanceOptions, started: number): Omit<ConformanceReport, 'durationMs' | 'error' | 'results'> {
  return {
    cloud: o.cloud,
    ccm: o.ccm.kind,
    profile: o.profile ?? 'kubernetes',
    command: o.ccm.kind === 'command' ? o.ccm.command : null,
    runtime: o.runtime,
    sandboxVersion: SANDBOX_VERSION,
    kubernetesVersion: o.runtime === 'local' ? pinnedVersions().kubernetes : 'unknown',
    faults: o.faults ? { file: o.faults.file, rules: [...o.faults.rules] } : null,
    startedAt: new Date(started).toISOString(),
  };
}

/** What a run checks: `only` and what it needs, else the defaults less `exclude`, plus `include`, in run order. */
function planOf(o: ConformanceOptions): Step {
  if (o.only?.length) return { run: withNeeds(o.only), required: new Set(o.only) };
  return { run: CAPABILITIES.filter((c) => (DEFAULT_CAPABILITIES.includes(c) && !o.exclude?.includes(c)) || o.include?.includes(c)), required: new Set() };
}

export async function runConformance(o: ConformanceOptions): Promise<ConformanceReport> {
  const started = Date.now();
  const cloud = cloudOf(o.cloud);
  const plan = planOf(o);
  const { sandbox, stop } = runSandbox(o);
  const base = reportBase(o, started);
  try {
    // The CCM's calls are recorded from the start: node initialisation happens while the sandbox comes up.
    const ccmCalls: number[] = [];
    const unsubscribe = sandbox.subscribe((e) => {
      if (isCcmCall(e)) ccmCalls.push(Date.parse(e.time));
    });
    try {
      await sandbox.up();
    } catch (err) {
      unsubscribe();
      const ccmLog = tail(sandbox.state.logs.ccm, CCM_LOG_LINES);
      const error = [err instanceof Error ? err.message : String(err), ...(ccmLog.length ? ['CCM log (last lines):', ...ccmLog] : [])].join('\n');
      const results = plan.run.map((c): CapabilityResult => ({
        capability: c,
        verdict: Verdict.fail,
        message: 'not checked: the sandbox did not come up',
        durationMs: 0,
        cloudCalls: 0,
        events: [],
        ccmLog: [],
        writes: [],
      }));
      return { ...base, durationMs: Date.now() - started, error, results };
    }
    const deps = runDeps(sandbox, cloud);
    const kubernetesVersion = await deps.version.getCode().then(
      (v) => v.gitVersion,
      () => base.kubernetesVersion,
    );
    const results = await checkAll(o, deps, plan, ccmCalls).finally(unsubscribe);
    return { ...base, kubernetesVersion, durationMs: Date.now() - started, error: null, results };
  } finally {
    await stop();
  }
}

interface RunDeps {
  readonly sandbox: ConformanceContext['sandbox'];
  readonly cloud: ConformanceContext['cloud'];
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  /** The API server's /version: the Kubernetes the CCM runs against, whatever the runtime. */
  readonly version: VersionApi;
  readonly api: ConformanceContext['api'];
  readonly memory: RunMemory;
}

function runDeps(sandbox: ConformanceContext['sandbox'], cloud: ConformanceContext['cloud']): RunDeps {
  const kc = new PooledKubeConfig();
  kc.loadFromFile(sandbox.cluster?.kubeconfigPath ?? '');
  const sim = sandbox.state.simcloud;
  const api = buildRequester({ endpoint: sim?.url ?? '', token: sim?.token ?? '', caller: 'ccm-sandbox conformance' });
  return { sandbox, cloud, core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api), version: kc.makeApiClient(VersionApi), api, memory: {} };
}

/** When the CCM was started: node initialisation is timed from there. */
function ccmStartedAt(sandbox: ConformanceContext['sandbox']): number {
  const step = sandbox.state.steps.find((s) => s.name.startsWith('ccm'));
  return step?.startedAt ? Date.parse(step.startedAt) : Date.now();
}

async function checkAll(o: ConformanceOptions, deps: RunDeps, plan: Step, ccmCalls: readonly number[]): Promise<CapabilityResult[]> {
  const results: CapabilityResult[] = [];
  for (const c of plan.run) {
    const t0 = c === 'node-init' ? ccmStartedAt(deps.sandbox) : Date.now();
    o.progress?.(`${c} ...`);
    const result = declaredNotOffered(deps.cloud, o.ccm.kind, c) ?? blocked(c, results) ?? (await checkOne(o, deps, c, plan.required.has(c)));
    const t1 = Date.now();
    const done = { ...result, durationMs: t1 - t0, cloudCalls: ccmCalls.filter((t) => t >= t0 && t <= t1).length };
    o.progress?.(`${c}: ${done.verdict} in ${(done.durationMs / 1000).toFixed(1)} s`);
    results.push(done);
  }
  return results;
}

async function checkOne(o: ConformanceOptions, deps: RunDeps, c: Capability, required: boolean): Promise<CapabilityResult> {
  const involved: InvolvedObject[] = [];
  const writes: CapabilityResult['writes'] = [];
  const ctx: ConformanceContext = {
    ...deps,
    namespace: 'default',
    timeoutMs: o.timeoutMs,
    required,
    profile: o.profile ?? 'kubernetes',
    writes,
    windows: { ...DEFAULT_ADVERSITY_WINDOWS, ...o.windows },
    ...(o.upgradeFrom ? { upgradeFrom: o.upgradeFrom } : {}),
    involve: (x) => {
      if (!involved.some((y) => y.kind === x.kind && y.name === x.name)) involved.push(x);
    },
  };
  const ccmLogFile = deps.sandbox.state.logs.ccm;
  const result = { capability: c, durationMs: 0, cloudCalls: 0, events: [], ccmLog: [], writes };
  try {
    return { ...result, verdict: Verdict.pass, message: await CHECKS[c](ctx) };
  } catch (err) {
    if (err instanceof NotOffered) return { ...result, verdict: Verdict.notOffered, message: err.message };
    // An API error is as much a failure of the capability as a wrong value: the run goes on.
    const message = err instanceof CapabilityFailure || err instanceof Error ? err.message : String(err);
    return { ...result, verdict: Verdict.fail, message, events: await eventsOf(ctx.core, involved), ccmLog: tail(ccmLogFile, CCM_LOG_LINES) };
  }
}
