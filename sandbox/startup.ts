// How `up` spends its time: the order its first steps run in (side by side wherever nothing orders them)
// and a record of each step, and of each phase inside one (etcd, kube-apiserver, machines created,
// kubelets registered, ...): when it started and how long it took, for state.json, the summary and the S15
// benchmark. Records of steps that ran at once overlap; startedAt tells.
import type { Clock } from '../src/kube/clock.ts';
import type { StepRecord } from './state.ts';

/** Receives each record once its step or phase has finished. */
export type RecordSink = (record: StepRecord) => void;

export type NowClock = Pick<Clock, 'now'>;

const SYSTEM_CLOCK: NowClock = { now: () => Date.now() };

/**
 * Runs `fn` and hands `sink` its record, with `detail(value)` when given. A failure is not recorded: the
 * error says what went wrong, and a duration up to a failure means little.
 */
export async function timed<T>(
  name: string,
  fn: () => Promise<T>,
  sink: RecordSink,
  options: { readonly clock?: NowClock; readonly detail?: (value: T) => string | undefined } = {},
): Promise<T> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const started = clock.now();
  const value = await fn();
  const detail = options.detail?.(value);
  sink({ name, startedAt: new Date(started).toISOString(), durationMs: clock.now() - started, ...(detail ? { detail } : {}) });
  return value;
}

/**
 * Waits for every branch, then fails with the first failure (in the order given). Unlike Promise.all, no
 * branch is still running when the caller starts cleaning up after a failure, so none starts a process
 * after the teardown has passed it by.
 */
export async function settleAll<T extends readonly unknown[]>(branches: readonly [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(branches as readonly Promise<unknown>[]);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** The wall time from the first record's start to the last one's end (overlapping records count once). */
export function spanMs(records: readonly StepRecord[]): number {
  const starts = records.map((r) => (r.startedAt ? Date.parse(r.startedAt) : Number.NaN));
  if (records.length === 0 || starts.some(Number.isNaN)) return records.reduce((sum, r) => sum + r.durationMs, 0);
  const ends = records.map((r, i) => (starts[i] ?? 0) + r.durationMs);
  return Math.max(...ends) - Math.min(...starts);
}

/** up()'s first steps, each given what it needs. */
export interface StartSteps<A> {
  /** The runtime's part that needs no cloud (local: the control plane); resolves once the cluster's API serves. */
  readonly prestart?: () => Promise<A>;
  readonly simcloud: () => Promise<unknown>;
  /** Needs simcloud; resolves with the whole cluster (its API access included). */
  readonly cluster: () => Promise<A>;
  /** Needs simcloud and the cluster's API. */
  readonly ccm: (access: A) => Promise<unknown>;
  /** The CCM waits for the whole cluster even with a prestart (one with an identity RBAC authorises). */
  readonly ccmNeedsCluster?: boolean;
}

/**
 * Runs the steps as soon as what each needs is there: prestart and simcloud at once; the cluster once
 * simcloud runs; the CCM once simcloud runs and the API serves (from prestart, else, or when it needs
 * the whole cluster, from the cluster step). Resolves when all four are done; on a failure, once none is still running.
 */
export async function startInOrder<A>(steps: StartSteps<A>): Promise<void> {
  const access = steps.prestart?.();
  const simcloud = steps.simcloud();
  const cluster = simcloud.then(() => steps.cluster());
  const api = access && steps.ccmNeedsCluster !== true ? settleAll([access, simcloud] as const).then(([a]) => a) : cluster;
  const ccm = api.then((a) => steps.ccm(a));
  await settleAll([simcloud, access ?? Promise.resolve(undefined), cluster, ccm]);
}
