// What a scenario gets (the options, the shared environment, progress output, the resident nodes and
// Services later scenarios reuse) and what it returns (figures and details; the runner adds CPU and RSS).
import type { BenchEnv } from './env.ts';
import type { CreatedServer } from './nodes.ts';
import type { BenchOptions, Figure, ScenarioId } from './types.ts';

export interface Shared {
  /** Ready worker nodes kept between scenarios (S2's last run leaves them). */
  resident: CreatedServer[];
  /** LoadBalancer Services kept between scenarios (S5's last burst leaves them for S12). */
  residentServices: string[];
}

export interface ScenarioContext {
  readonly opts: BenchOptions;
  readonly env: () => Promise<BenchEnv>;
  readonly progress: (message: string) => void;
  readonly shared: Shared;
  /** Scenarios also selected in this invocation (to keep state for a later one). */
  readonly selected: ReadonlySet<ScenarioId>;
}

export interface ScenarioOutput {
  readonly figures: Figure[];
  readonly details: Record<string, unknown>;
  /** How many runs were made (some scenarios run once by design). */
  readonly runs: number;
}

export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** Whether it needs the shared environment (S15 and S10 bring their own). */
  readonly usesEnv: boolean;
  /**
   * It reports the CCM's CPU and API requests per operation itself: the whole window's totals are not added
   * as figures (they stay in the per-process and per-controller tables).
   */
  readonly ownTotals?: boolean;
  run(ctx: ScenarioContext): Promise<ScenarioOutput>;
}
