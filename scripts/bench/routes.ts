// Route creation as simcloud saw it: successful POST /v1/networks/<id>/routes by the node-route
// controller (its caller header names the node), and duplicate-create conflicts (409).
import type { CallRecord } from './calls.ts';

const ROUTE_POST = /^\/v1\/networks\/[^/]+\/routes\/?$/;
const PREFIX = 'node-route-controller ';

export function routeCreates(calls: readonly CallRecord[]): { created: Map<string, number>; conflicts: number } {
  const created = new Map<string, number>();
  let conflicts = 0;
  for (const c of calls) {
    if (c.method !== 'POST' || !ROUTE_POST.test(c.path) || !c.caller.startsWith(PREFIX)) continue;
    if (c.status === 409) conflicts += 1;
    const node = c.caller.slice(PREFIX.length);
    if (c.status < 300 && !created.has(node)) created.set(node, c.at);
  }
  return { created, conflicts };
}
