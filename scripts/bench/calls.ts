// Every simcloud API call, from the `/_sim/events` stream (the caller header names the controller and
// the object), so cloud cost is counted where it is made: per controller, per operation, per window.
import type { SimEvent } from '../../simulator/api/schema/events.ts';

export interface CallRecord {
  /** Epoch ms when simcloud finished the call. */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly caller: string;
  /** The cloud-provider method the CCM said the call belongs to (`X-Simcloud-Method`), '' when it did not. */
  readonly upstreamMethod: string;
}

/** Callers that are the sandbox or this benchmark, not the CCM. */
const NOT_CCM = /^(ccm-sandbox|ccm-bench)/;

export const isCcmCall = (c: CallRecord): boolean => !NOT_CCM.test(c.caller);

/** The controller part of a caller header (`cloud-node-controller node-1` -> `cloud-node-controller`). */
export const controllerOf = (c: CallRecord): string => c.caller.split(' ')[0] ?? c.caller;

/** `GET /v1/servers/srv-1` -> `GET /v1/servers/*` (ids collapsed, for per-operation counts). */
export function operationOf(c: CallRecord): string {
  return `${c.method} ${c.path.replace(/\?.*$/, '').replace(/\/[a-z]+-[0-9a-z]{6,}/g, '/*')}`;
}

export class CallLog {
  readonly #calls: CallRecord[] = [];

  handle(event: SimEvent): void {
    if (event.type !== 'api_call') return;
    this.#calls.push({
      at: Date.parse(event.time),
      method: event.method,
      path: event.path,
      status: event.status,
      caller: event.caller ?? '',
      upstreamMethod: event.upstream_method ?? '',
    });
  }

  /** The CCM's calls finished in [from, to). */
  ccmCalls(from: number, to = Infinity): CallRecord[] {
    return this.#calls.filter((c) => c.at >= from && c.at < to && isCcmCall(c));
  }

  /** Epoch ms of the CCM's latest call (0 when none). */
  lastCcmCallAt(): number {
    for (let i = this.#calls.length - 1; i >= 0; i--) {
      const c = this.#calls[i];
      if (c && isCcmCall(c)) return c.at;
    }
    return 0;
  }

  /** Drops calls older than `before` (memory stays flat over long runs). */
  trim(before: number): void {
    const keep = this.#calls.findIndex((c) => c.at >= before);
    this.#calls.splice(0, keep < 0 ? this.#calls.length : keep);
  }
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}
