/**
 * The action engine: runs each action through its command's stage table on the simulated clock,
 * committing the resource's status at each stage and the action's progress. Transitions wait while
 * a stuck_transition fault matches. Running actions found at start-up resume where they stopped.
 */
import type { Action, ActionCommand } from '../../api/schema/actions.ts';
import type { ResourceRef } from '../../api/schema/common.ts';
import type { TransitionDelay } from '../../api/schema/internal.ts';
import type { Clock } from '../clock.ts';
import type { FaultEngine } from '../faults.ts';
import type { Metrics } from '../metrics.ts';
import type { ActionRec, Change } from '../store/state.ts';
import type { Store } from '../store/store.ts';
import { LIFECYCLES, type Lifecycle, type Stage } from './lifecycles.ts';

export interface EngineDeps {
  store: Store;
  clock: Clock;
  faults: FaultEngine;
  metrics: Metrics;
  delays: Record<string, TransitionDelay>;
  random?: () => number;
  onError?: (err: unknown) => void;
}

export interface BeginSpec {
  command: ActionCommand;
  projectId: string;
  /** The resource that follows the stages (first in `resources`). */
  resourceId: string;
  resources?: ResourceRef[];
  id: string;
}

type Doc = { id: string; labels?: Record<string, string>; status?: string; locked?: boolean };

const STUCK_RECHECK_MS = 250;

export class ActionEngine {
  readonly #deps: EngineDeps;
  readonly #timers = new Set<number>();
  #stopped = false;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
  }

  /** Per-type overrides set through `/_sim/time`. */
  get delays(): Record<string, TransitionDelay> {
    return this.#deps.delays;
  }

  /** The action record for a new action (the caller commits it with its own changes, then calls `run`). */
  begin(spec: BeginSpec): ActionRec {
    const lc = LIFECYCLES[spec.command];
    return {
      id: spec.id,
      project_id: spec.projectId,
      command: spec.command,
      status: 'running',
      progress: 0,
      started: new Date(this.#deps.clock.now()).toISOString(),
      finished: null,
      resources: spec.resources ?? [{ id: spec.resourceId, type: lc.resourceType }],
      error: null,
    };
  }

  /** The first stage's state, for the caller's initial commit. */
  firstState(command: ActionCommand): string {
    return LIFECYCLES[command].stages[0]!.state;
  }

  /** Schedules the action's remaining stages. */
  run(action: Action): void {
    const lc = LIFECYCLES[action.command];
    const resource = this.#resource(lc, action);
    const index =
      resource !== undefined && lc.setsStatus
        ? Math.max(
            0,
            lc.stages.findIndex((st) => st.state === resource.status),
          )
        : 0;
    this.#schedule(action.id, lc, index);
  }

  /** Resumes every running action (after a restart or snapshot load). */
  resumeAll(): void {
    for (const a of this.#deps.store.all('actions')) if (a.status === 'running') this.run(a);
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) this.#deps.clock.clearTimer(t);
    this.#timers.clear();
  }

  /** Clears timers but keeps running (reset, snapshot load). */
  cancelAll(): void {
    for (const t of this.#timers) this.#deps.clock.clearTimer(t);
    this.#timers.clear();
  }

  #delay(lc: Lifecycle, stage: Stage): number {
    const o = this.#deps.delays[lc.resourceType];
    const delay = o?.delay_ms ?? stage.delayMs;
    const jitter = o?.jitter_ms ?? (o?.delay_ms !== undefined ? 0 : stage.jitterMs);
    return Math.max(0, delay + (jitter === 0 ? 0 : ((this.#deps.random ?? Math.random)() * 2 - 1) * jitter));
  }

  #schedule(actionId: string, lc: Lifecycle, index: number): void {
    if (this.#stopped) return;
    const stage = lc.stages[index]!;
    const at = this.#deps.clock.now() + this.#delay(lc, stage);
    const timer = this.#deps.clock.setTimer(at, () => {
      this.#timers.delete(timer);
      this.#advance(actionId, lc, index).catch((err: unknown) => this.#deps.onError?.(err));
    });
    this.#timers.add(timer);
  }

  #resource(lc: Lifecycle, action: Action): Doc | undefined {
    const ref = action.resources[0];
    return ref === undefined ? undefined : (this.#deps.store.state[lc.coll] as Record<string, Doc>)[ref.id];
  }

  async #advance(actionId: string, lc: Lifecycle, index: number): Promise<void> {
    const action = this.#deps.store.state.actions[actionId];
    if (action?.status !== 'running') return;
    const resource = this.#resource(lc, action);
    if (this.#heldByFault(lc, resource)) return this.#recheck(actionId, lc, index);
    const nextIndex = index + 1;
    const next = lc.stages[nextIndex]!;
    // A delete started meanwhile owns the resource now: this action ends without touching it.
    const superseded = resource?.status === 'deleting' && !action.command.startsWith('delete_');
    const final = superseded || next.next === null;
    const progress = superseded ? 100 : Math.round((nextIndex / (lc.stages.length - 1)) * 100);
    await this.#deps.store.commit(this.#enter({ lc, action, resource: superseded ? undefined : resource, next, final, progress }));
    if (final) this.#finished(action);
    else this.#schedule(actionId, lc, nextIndex);
  }

  #heldByFault(lc: Lifecycle, resource: Doc | undefined): boolean {
    return resource !== undefined && this.#deps.faults.isStuck(lc.resourceType, resource.labels ?? {});
  }

  /** Looks again after a while: the stuck_transition rule may be gone by then. */
  #recheck(actionId: string, lc: Lifecycle, index: number): void {
    const timer = this.#deps.clock.setTimer(this.#deps.clock.now() + STUCK_RECHECK_MS, () => {
      this.#timers.delete(timer);
      this.#advance(actionId, lc, index).catch((err: unknown) => this.#deps.onError?.(err));
    });
    this.#timers.add(timer);
  }

  #enter(a: { lc: Lifecycle; action: ActionRec; resource: Doc | undefined; next: Stage; final: boolean; progress: number }): Change[] {
    const changes: Change[] = [];
    const { lc, resource, next, final } = a;
    if (resource !== undefined && next.state === 'deleted') changes.push({ op: 'del', coll: lc.coll, id: resource.id });
    else if (resource !== undefined) changes.push(...stageChange(lc, resource, next.state, !final));
    const done = final ? { status: 'success' as const, finished: new Date(this.#deps.clock.now()).toISOString() } : {};
    changes.push({ op: 'put', coll: 'actions', doc: { ...a.action, progress: a.progress, ...done } });
    return changes;
  }

  #finished(action: Action): void {
    this.#deps.metrics.actions.inc({ command: action.command, status: 'success' });
    const seconds = (this.#deps.clock.now() - Date.parse(action.started)) / 1000;
    this.#deps.metrics.actionDuration.observe({ command: action.command }, seconds);
  }
}

/**
 * The resource's write for entering a stage: its status (when the lifecycle sets one) and its lock. A stage
 * that changes neither writes nothing: a network's route actions would otherwise rewrite, and journal, the
 * whole network (every route of it) as each one ends.
 */
function stageChange(lc: Lifecycle, resource: Doc, state: string, locked: boolean): Change[] {
  const status = lc.setsStatus && resource.status !== state ? { status: state } : {};
  const lock = 'locked' in resource && resource.locked !== locked ? { locked } : {};
  if (!('status' in status) && !('locked' in lock)) return [];
  return [{ op: 'put', coll: lc.coll, doc: { ...resource, ...status, ...lock } }];
}
