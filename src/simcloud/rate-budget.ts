/**
 * A client-wide request budget for the CCM's simcloud client. simcloud, like most clouds,
 * answers with `RateLimit-Remaining` / `RateLimit-Reset` and, over budget, 429 + `Retry-After`. Retrying
 * each call on its own after Retry-After sends every waiting worker back at
 * the same instant: at 1 request/s per token, 96 % of the CCM's calls were 429s. This gate admits
 * calls one at a time against the budget the server last reported: while it is spent, calls wait for the
 * reset; after a reset one call goes first and its answer tells how many may follow. It is the client's
 * attempt gate: a 429 still happening (another client on the token) is retried by the client's one retry
 * layer, whose next attempt passes this gate again.
 * Without RateLimit headers (no budget) nothing waits after the first answer.
 */
import { isApiError, type AttemptGate, type HeaderReader } from '../../simulator/api/client/index.ts';
import { realClock, sleep, type Clock } from '../kube/clock.ts';

export class RateBudget {
  readonly #clock: Clock;
  /** Calls the server still allows in this window; undefined = not known yet, Infinity = no budget. */
  #remaining: number | undefined;
  #resetAt = 0;
  /** One call is finding out the budget; the others wait for its answer. */
  #probing = false;
  readonly #waiters: (() => void)[] = [];

  constructor(clock: Clock = realClock) {
    this.#clock = clock;
  }

  /** Waits until a call may be sent, and counts it. */
  async admit(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.#probing) {
        await new Promise<void>((resolve) => this.#waiters.push(resolve));
        continue;
      }
      const now = this.#clock.now();
      if (this.#remaining === undefined || (this.#remaining <= 0 && now >= this.#resetAt)) {
        this.#probing = true;
        return;
      }
      if (this.#remaining > 0) {
        this.#remaining -= 1;
        return;
      }
      await sleep(this.#clock, this.#resetAt - now, signal);
    }
  }

  /** A successful answer: its RateLimit headers (null when absent: no budget). */
  answered(remaining: number | null, resetMs: number | null): void {
    this.#remaining = remaining ?? Infinity;
    if (remaining !== null) this.#resetAt = this.#clock.now() + (resetMs ?? 1000);
    this.#release();
  }

  /** A 429: nothing more until Retry-After. */
  limited(retryAfterMs: number): void {
    this.#remaining = 0;
    this.#resetAt = this.#clock.now() + retryAfterMs;
    this.#release();
  }

  /** Another failure says nothing about the budget: the next call finds out again if this one was asking. */
  failed(): void {
    this.#release();
  }

  #release(): void {
    this.#probing = false;
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

function headerNumber(headers: HeaderReader, name: string): number | null {
  const v = headers.get(name);
  const n = v === null ? Number.NaN : Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The budget as the client's attempt gate: learns from RateLimit headers and 429s. */
export function rateBudgetGate(clock: Clock = realClock): AttemptGate {
  const budget = new RateBudget(clock);
  return {
    admit: (signal) => budget.admit(signal),
    settled: (res, err) => {
      if (res) {
        const reset = headerNumber(res.headers, 'ratelimit-reset');
        budget.answered(headerNumber(res.headers, 'ratelimit-remaining'), reset === null ? null : reset * 1000);
      } else if (isApiError(err, 'rate_limit_exceeded')) {
        budget.limited(err.retryAfterMs ?? 1000);
      } else {
        budget.failed();
      }
    },
  };
}
