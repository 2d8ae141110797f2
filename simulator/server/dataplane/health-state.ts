// Health status of one (listener, target) pair as a pure state machine.
//
// A target starts `unknown` and is eligible for traffic until its first check completes: that check
// decides (success -> healthy, failure -> unhealthy). Afterwards one success makes it healthy and
// `retries` consecutive failures (at least one) make it unhealthy.
import type { TargetHealthChange } from './types.ts';

export type HealthStatus = TargetHealthChange['status'];

export class HealthState {
  #status: HealthStatus;
  #failures = 0;
  #retries: number;

  constructor(retries: number, initial: HealthStatus = 'unknown') {
    this.#retries = Math.max(1, Math.floor(retries));
    this.#status = initial;
  }

  get status(): HealthStatus {
    return this.#status;
  }

  /** Records one check result; returns the new status on a transition, else null. */
  record(ok: boolean): HealthStatus | null {
    const next = ok ? this.#onSuccess() : this.#onFailure();
    if (next === this.#status) return null;
    this.#status = next;
    return next;
  }

  #onSuccess(): HealthStatus {
    this.#failures = 0;
    return 'healthy';
  }

  #onFailure(): HealthStatus {
    this.#failures += 1;
    if (this.#status === 'unknown' || this.#failures >= this.#retries) return 'unhealthy';
    return this.#status;
  }
}

/** Targets that may receive traffic: healthy ones and those not checked yet. */
export function isEligible(status: HealthStatus): boolean {
  return status !== 'unhealthy';
}
