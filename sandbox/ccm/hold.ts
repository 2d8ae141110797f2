// Holding the CCM: its process (and its process group, for a command line run under /bin/sh) stopped with
// SIGSTOP and continued with SIGCONT. The console's node tour holds it so a learner sees a new Node with the
// uninitialized taint and the pods waiting for it, then lets it go. A hold ends by itself after HOLD_MAX_MS,
// and when the sandbox stops, so a closed browser never leaves the sandbox without its CCM.
export const HOLD_MAX_MS = 120_000;

/** Signals the process group of `pid`, or the process alone when it leads no group; false when it is gone. */
function signal(pid: number, sig: NodeJS.Signals): boolean {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, sig);
      return true;
    } catch {
      // not a group leader (or gone): try the process itself
    }
  }
  return false;
}

/** Runs `fn` after `ms` without keeping the process alive; returns how to cancel it. */
export type Schedule = (fn: () => void, ms: number) => () => void;

const unrefTimer: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

export class CcmHold {
  #pid: number | undefined;
  #cancel: (() => void) | undefined;
  readonly #schedule: Schedule;

  constructor(schedule: Schedule = unrefTimer) {
    this.#schedule = schedule;
  }

  get held(): boolean {
    return this.#pid !== undefined;
  }

  /** Stops the CCM with process id `pid`; a second hold of the same CCM only restarts the clock. */
  hold(pid: number): void {
    if (this.#pid !== undefined && this.#pid !== pid) this.release();
    if (!signal(pid, 'SIGSTOP')) throw new Error(`the CCM (pid ${pid}) is not running`);
    this.#pid = pid;
    this.#cancel?.();
    this.#cancel = this.#schedule(() => this.release(), HOLD_MAX_MS);
  }

  /** Lets the CCM run again; idempotent. */
  release(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    if (this.#pid !== undefined) signal(this.#pid, 'SIGCONT');
    this.#pid = undefined;
  }
}
