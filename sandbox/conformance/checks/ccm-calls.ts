// What the adversity checks watch while they hold a condition: the CCM's cloud calls (from simcloud's event
// stream, grouped per endpoint) and the Nodes it may touch (deleted, or tainted as shut down). Both record
// from start() to stop(); a check reads them afterwards and names what it saw.
import type { V1Node } from '@kubernetes/client-node';
import type { ApiCallEvent } from '../../../simulator/api/schema/events.ts';
import { hasTaint, isCcmCall, listNodes, SHUTDOWN_TAINT, type ConformanceContext } from '../context.ts';

export interface CallRecorder {
  readonly calls: readonly ApiCallEvent[];
  stop(): void;
}

/** Records every CCM call simcloud answers from now until stop(). */
export function recordCcmCalls(ctx: Pick<ConformanceContext, 'sandbox'>): CallRecorder {
  const calls: ApiCallEvent[] = [];
  const stop = ctx.sandbox.subscribe((e) => {
    if (isCcmCall(e)) calls.push(e);
  });
  return { calls, stop };
}

const API_VERSION = /^v\d+$/;

/** `GET /hcloud/v1/servers/{id}`: the method and the path with every id segment (one holding a digit, not an API version) as {id}. */
export function endpointOf(call: Pick<ApiCallEvent, 'method' | 'path'>): string {
  const path = call.path.split('?')[0] ?? '';
  const segments = path.split('/').map((s) => (/\d/.test(s) && !API_VERSION.test(s) ? '{id}' : s));
  return `${call.method} ${segments.join('/')}`;
}

/** Calls per endpoint, most first. */
export function perEndpoint(calls: readonly Pick<ApiCallEvent, 'method' | 'path'>[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(endpointOf(c), (counts.get(endpointOf(c)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** `GET /v1/servers/{id} x3, GET /v1/servers x1`, or `none`. */
export function endpointList(calls: readonly Pick<ApiCallEvent, 'method' | 'path'>[]): string {
  const list = perEndpoint(calls);
  return list.length ? list.map(([e, n]) => `${e} x${n}`).join(', ') : 'none';
}

/** A Node the CCM touched while it should not have: deleted, or given the shutdown taint. */
export interface TouchedNode {
  readonly node: string;
  readonly what: 'deleted' | 'shutdown taint';
  /** What was going on (the fault in force). */
  readonly during: string;
}

export interface NodeWatch {
  readonly touched: readonly TouchedNode[];
  stop(): Promise<void>;
}

const NODE_POLL_MS = 250;

/**
 * Watches the Nodes there are now: one that disappears or gains the shutdown taint is recorded once, with
 * `during()` at the moment it was seen. A re-registered Node (its kubelet came back) does not undo a deletion.
 */
export async function watchNodes(ctx: Pick<ConformanceContext, 'core'>, during: () => string): Promise<NodeWatch> {
  const initial = new Set((await listNodes(ctx)).map((n) => n.metadata?.name ?? ''));
  const touched: TouchedNode[] = [];
  const seen = new Set<string>();
  const note = (node: string, what: TouchedNode['what']): void => {
    if (seen.has(`${node} ${what}`)) return;
    seen.add(`${node} ${what}`);
    touched.push({ node, what, during: during() });
  };
  const uids = new Map<string, string>();
  const lookAt = (name: string, n: V1Node | undefined): void => {
    if (n === undefined) return note(name, 'deleted');
    const uid = n.metadata?.uid ?? '';
    // Back under a new uid: it was deleted in between.
    if (uids.has(name) && uids.get(name) !== uid) note(name, 'deleted');
    uids.set(name, uid);
    if (hasTaint(n, SHUTDOWN_TAINT)) note(name, 'shutdown taint');
  };
  const look = async (): Promise<void> => {
    const nodes: V1Node[] = await listNodes(ctx).catch(() => []);
    if (nodes.length === 0) return;
    const byName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
    for (const name of initial) lookAt(name, byName.get(name));
  };
  await look();
  let running = true;
  const loop = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, NODE_POLL_MS));
      await look();
    }
  })();
  return {
    touched,
    stop: async () => {
      running = false;
      await loop;
      await look();
    },
  };
}

/** Resolves after `ms`: the checks' windows are time by definition (a quiet minute, a fault held for 10 s). */
export const holdFor = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
