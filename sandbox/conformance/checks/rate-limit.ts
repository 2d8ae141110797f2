// The rate-limit capability: for one window the cloud allows one request per token and answers every other
// with 429 and that provider's own headers (Retry-After; RateLimit-* or Linode's X-RateLimit-*, the reset a
// Unix time or seconds as the provider writes it). The limit is per token, so the announced time speaks for
// every caller of the CCM: a request sent after the CCM's first 429 and before the window ends is early,
// whichever controller sent it. One worker is held NotReady meanwhile so the CCM has cause to call. Passes
// when no request is early, some were limited, and the CCM converges (a call answered again) afterwards.
import type { ApiCallEvent } from '../../../simulator/api/schema/events.ts';
import { check, isCcmCall, until, type ConformanceContext } from '../context.ts';
import { converge, pickWorker, whileNotReady } from './api-faults.ts';
import { endpointList, holdFor } from './ccm-calls.ts';

/** When simcloud received a call (its event is published when answered). */
const receivedAt = (c: ApiCallEvent): number => Date.parse(c.time) - c.latency_ms;
/** A call already on its way when the CCM's first 429 reached it is not early. */
const IN_FLIGHT_MS = 100;

interface LimitWindow {
  readonly from: number;
  readonly to: number;
}

/** Holds the limit for one window, opened at once by a request of ours, and ends it before a second begins. */
async function limitFor(ctx: ConformanceContext, seconds: number): Promise<LimitWindow> {
  const rule = await ctx.sandbox.admin.addFault({ kind: 'rate_limit', limit: 1, window_seconds: seconds });
  const from = Date.now();
  try {
    const sim = ctx.sandbox.state.simcloud;
    await fetch(`${sim?.url ?? ''}/v1/zones`, {
      headers: { authorization: `Bearer ${sim?.token ?? ''}`, 'x-simcloud-caller': 'ccm-sandbox conformance rate-limit' },
    }).then((r) => r.body?.cancel());
    await holdFor(seconds * 1000);
  } finally {
    await ctx.sandbox.admin.deleteFault(rule.id);
  }
  return { from, to: from + seconds * 1000 };
}

/** The window as simcloud counted it: from the first call it received after the rule was added. */
function windowOf(calls: readonly ApiCallEvent[], w: LimitWindow, seconds: number): LimitWindow {
  const opener =
    calls
      .map(receivedAt)
      .filter((t) => t >= w.from - IN_FLIGHT_MS)
      .sort((a, b) => a - b)[0] ?? w.from;
  return { from: opener, to: opener + seconds * 1000 };
}

export async function rateLimit(ctx: ConformanceContext): Promise<string> {
  const seconds = Math.max(2, Math.round(ctx.windows.faultMs / 1000));
  const worker = await pickWorker(ctx);
  ctx.involve({ kind: 'Node', name: worker });
  const calls: ApiCallEvent[] = [];
  const stop = ctx.sandbox.subscribe((e) => {
    if (e.type === 'api_call') calls.push(e);
  });
  try {
    // The worker stays NotReady until the CCM is answered again: a settled CCM may otherwise call nothing at all.
    const held = await whileNotReady(ctx, worker, async () => {
      const w = await limitFor(ctx, seconds);
      await until(ctx, 'a CCM call answered again after the limit', () =>
        Promise.resolve(calls.some((c) => isCcmCall(c) && receivedAt(c) > w.to && c.status < 400)),
      );
      return w;
    });
    const converged = await converge(ctx);
    const w = windowOf(calls, held, seconds);
    const ccm = calls.filter((c) => isCcmCall(c) && receivedAt(c) >= w.from && receivedAt(c) < w.to);
    const limited = ccm.filter((c) => c.status === 429);
    const first = limited.map((c) => Date.parse(c.time)).sort((a, b) => a - b)[0];
    check(first !== undefined, `no CCM call met the limit in the ${seconds} s window (${ccm.length} calls), though Node ${worker} was NotReady`);
    const early = ccm.filter((c) => receivedAt(c) > first + IN_FLIGHT_MS);
    const at = (t: number): string => `+${((t - w.from) / 1000).toFixed(1)} s`;
    check(
      early.length === 0,
      `${early.length} requests before the announced time: the first 429 at ${at(first)} announced the window's end at ${at(w.to)}, then ${endpointList(early)}`,
    );
    if (converged instanceof Error) throw converged;
    return `${limited.length} calls answered 429 in the ${seconds} s window (${endpointList(limited)}), none sent before the announced time; converged after`;
  } finally {
    stop();
  }
}
