// Keeps the sandbox's CCM running: when it exits, it is started again after an exponential backoff (1 s,
// 2 s, 4 s ... up to 30 s; back to 1 s once a run lasted a minute), as a kubelet restarts a crashing
// static pod. Time is the injected clock's, so tests drive the backoff without waiting. `stop` ends the
// supervision and the process, including a start that is under way.
import { realClock, sleepUnlessAborted, type Clock } from '../../src/kube/clock.ts';
import type { ExitInfo, ManagedProcess } from '../exec.ts';
import { exitText } from '../processes.ts';
import type { CcmExit } from './slot.ts';

export interface LaunchedCcm {
  readonly process: ManagedProcess;
  /** Where it serves /healthz and /metrics, when the sandbox knows. */
  readonly url: string | null;
}

export interface CcmBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
  /** A run at least this long resets the backoff. */
  readonly resetAfterMs: number;
}

export const CCM_RESTART_BACKOFF: CcmBackoff = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };

export interface SupervisedCcm {
  readonly pid: number | null;
  readonly url: string | null;
  readonly restarts: number;
  readonly lastExit: CcmExit | null;
}

export interface SupervisorOptions {
  /** Starts the CCM and resolves once it is up; rejects when it cannot (e.g. it exits during start-up). */
  readonly launch: () => Promise<LaunchedCcm>;
  readonly clock?: Clock;
  readonly backoff?: CcmBackoff;
  /** Every change of pid, restarts or last exit (state.json records it). */
  readonly onChange?: (state: SupervisedCcm) => void;
  /** One line per exit and restart, for the daemon's log. */
  readonly log?: (message: string) => void;
}

export function restartDelay(backoff: CcmBackoff, failures: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failures - 1));
}

export class CcmSupervisor {
  readonly #options: SupervisorOptions;
  readonly #clock: Clock;
  readonly #backoff: CcmBackoff;
  readonly #abort = new AbortController();
  #current: LaunchedCcm | undefined;
  #restarts = 0;
  #failures = 0;
  #lastExit: CcmExit | null = null;
  #loop: Promise<void> = Promise.resolve();

  private constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#backoff = options.backoff ?? CCM_RESTART_BACKOFF;
  }

  /** Starts the CCM (a failure here is the caller's: nothing is retried) and supervises it from then on. */
  static async start(options: SupervisorOptions): Promise<CcmSupervisor> {
    const supervisor = new CcmSupervisor(options);
    supervisor.#adopt(await options.launch());
    return supervisor;
  }

  get state(): SupervisedCcm {
    return { pid: this.#current?.process.pid ?? null, url: this.#current?.url ?? null, restarts: this.#restarts, lastExit: this.#lastExit };
  }

  get process(): ManagedProcess | undefined {
    return this.#current?.process;
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#current?.process.stop();
    await this.#loop;
    await this.#current?.process.stop();
  }

  #adopt(ccm: LaunchedCcm): void {
    this.#current = ccm;
    const started = this.#clock.now();
    this.#options.onChange?.(this.state);
    this.#loop = ccm.process.exited.then((info) => this.#exited(info, this.#clock.now() - started));
  }

  async #exited(info: ExitInfo, ranMs: number): Promise<void> {
    if (this.#abort.signal.aborted) return;
    this.#lastExit = { code: info.code, signal: info.signal, at: new Date(this.#clock.now()).toISOString() };
    this.#failures = ranMs >= this.#backoff.resetAfterMs ? 1 : this.#failures + 1;
    this.#options.onChange?.(this.state);
    await this.#restartAfterBackoff(info);
  }

  async #restartAfterBackoff(info: ExitInfo): Promise<void> {
    for (;;) {
      const delay = restartDelay(this.#backoff, this.#failures);
      this.#options.log?.(`the CCM exited (${exitText(info)}); restarting it in ${delay / 1000} s`);
      if (!(await sleepUnlessAborted(this.#clock, delay, this.#abort.signal))) return;
      try {
        const ccm = await this.#options.launch();
        this.#restarts += 1;
        if (this.#abort.signal.aborted) return void (await ccm.process.stop());
        this.#options.log?.(`the CCM runs again (pid ${ccm.process.pid}, restart ${this.#restarts})`);
        return this.#adopt(ccm);
      } catch (err) {
        this.#failures += 1;
        this.#options.log?.(`the CCM did not start again: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    }
  }
}
