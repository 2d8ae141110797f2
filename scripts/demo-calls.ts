// What `npm run demo` says about the CCM's cloud calls: each call is attributed to the cloud-provider
// interface method behind it (the method header the CCM sent, else the console's inference from the
// controller and the call order), and a step lists the calls of its own methods apart from those other
// controllers made meanwhile (the route controller's CreateRoute during the load balancer step belongs to
// Routes). A sentence about a method is printed only when a call of that method was observed.
import { CallExplainer, type ApiCall } from '../sandbox/console/explain.ts';
import type { CloudMethod } from '../src/cloud/provider.ts';

/** The interface of `k8s.io/cloud-provider` each method belongs to, for `InstancesV2.InstanceMetadata`. */
const INTERFACE: Readonly<Record<CloudMethod, string>> = {
  Initialize: 'Interface',
  InstanceExists: 'InstancesV2',
  InstanceShutdown: 'InstancesV2',
  InstanceMetadata: 'InstancesV2',
  GetLoadBalancer: 'LoadBalancer',
  EnsureLoadBalancer: 'LoadBalancer',
  UpdateLoadBalancer: 'LoadBalancer',
  EnsureLoadBalancerDeleted: 'LoadBalancer',
  ListRoutes: 'Routes',
  CreateRoute: 'Routes',
  DeleteRoute: 'Routes',
};

export const qualified = (m: CloudMethod): string => `${INTERFACE[m]}.${m}`;

/** One CCM call with the method it belongs to (null when neither the CCM nor the call order says). */
export interface AttributedCall {
  readonly call: ApiCall;
  readonly method: CloudMethod | null;
  readonly controller: string | null;
  /** The demo step it arrived during (0-based). */
  readonly step: number;
}

/** The sandbox's own callers (harness, status, console, this demo) are not the CCM. */
export const isCcmCaller = (caller: string | null): boolean => !(caller ?? '').startsWith('ccm-sandbox') && !(caller ?? '').startsWith('demo');

/** Attributes calls in arrival order (the explainer keeps each caller's burst). */
export class CallLedger {
  readonly #explainer = new CallExplainer();
  readonly calls: AttributedCall[] = [];
  step = 0;

  /** Paths the demo itself called, to know the stream has caught up with a moment (see `flush` in demo.ts). */
  readonly own = new Set<string>();

  add(call: ApiCall): void {
    const x = this.#explainer.explain(call);
    if ((call.caller ?? '').startsWith('demo')) this.own.add(call.path);
    if (!isCcmCaller(call.caller)) return;
    this.calls.push({ call, method: x.method, controller: x.controller, step: this.step });
  }

  /** How many calls of `method` were seen (in `step` when given). */
  count(method: CloudMethod, step?: number): number {
    return this.calls.filter((c) => c.method === method && (step === undefined || c.step === step)).length;
  }
}

const line = (c: AttributedCall): string => `${c.call.method} ${c.call.path.split('?')[0]} -> ${c.call.status}`;

function byMethod(calls: readonly AttributedCall[]): Map<CloudMethod | null, AttributedCall[]> {
  const out = new Map<CloudMethod | null, AttributedCall[]>();
  for (const c of calls) out.set(c.method, [...(out.get(c.method) ?? []), c]);
  return out;
}

/**
 * The lines a step prints about the calls made while it ran: those of its own methods (each named with its
 * interface and a few example requests), then, apart, what other methods ran meanwhile.
 */
export function stepCallLines(calls: readonly AttributedCall[], own: readonly CloudMethod[], examples = 4): string[] {
  const groups = byMethod(calls);
  const mine = own.filter((m) => groups.has(m));
  const lines = [`cloud calls for ${own.map(qualified).join(' / ')}: ${mine.reduce((n, m) => n + (groups.get(m)?.length ?? 0), 0)}`];
  for (const m of mine) {
    const list = groups.get(m) ?? [];
    lines.push(`  ${qualified(m)} x${list.length}: ${list.slice(0, examples).map(line).join(', ')}${list.length > examples ? ', ...' : ''}`);
  }
  const others = [...groups.entries()].filter(([m]) => m === null || !own.includes(m));
  if (others.length > 0) {
    const said = others.map(([m, list]) => `${m === null ? 'calls naming no method' : qualified(m)} x${list.length}`);
    lines.push(`meanwhile, not this step's: ${said.join(', ')}`);
  }
  return lines;
}
