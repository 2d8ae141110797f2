// Polling for a condition with a deadline, for start-up checks and tests. The condition returns a
// value (done) or undefined/false (not yet); the last error or observation goes into the timeout message.
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** What we are waiting for, for the timeout message: "kube-apiserver /readyz". */
  readonly description: string;
  readonly signal?: AbortSignal;
}

export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

export async function waitFor<T>(condition: () => Promise<T | undefined | false> | T | undefined | false, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let last = 'condition not met';
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const value = await condition();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() >= deadline) throw new WaitTimeoutError(`timed out after ${options.timeoutMs} ms waiting for ${options.description}: ${last}`);
    await sleep(options.intervalMs ?? 100);
  }
}
