// Input checks of one load balancer before the data plane touches sockets, pure. Anything that would
// make node:net throw (bad ports), resolve names through DNS (a VIP or target that is not an IP
// literal) or, with `loopbackOnly` (the default), send traffic off 127.0.0.0/8 / ::1 is rejected and
// reported; valid parts still go ahead.
import net from 'node:net';
import { isLoopback } from '../../../lib/ip.ts';
import type { DataPlaneListener, DataPlaneLoadBalancer, DataPlaneTarget } from './types.ts';

export interface ValidationIssue {
  listenPort: number;
  message: string;
}

export interface ValidatedLoadBalancer {
  /** Listeners that may be bound, in input order. */
  listeners: DataPlaneListener[];
  /** Targets that may be checked and receive traffic, deduplicated by id. */
  targets: DataPlaneTarget[];
  issues: ValidationIssue[];
}

export function isPort(p: unknown): boolean {
  return typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
}

/** Why an address may not be used, or null when it may. */
export function addressProblem(ip: string, loopbackOnly: boolean): string | null {
  if (net.isIP(ip) === 0) return `${JSON.stringify(ip)} is not an IP address`;
  if (loopbackOnly && !isLoopback(ip)) return `${ip} is not a loopback address`;
  return null;
}

function listenerProblem(l: DataPlaneListener, seen: Set<number>): string | null {
  if (!isPort(l.listenPort)) return `invalid listen port ${l.listenPort}`;
  if (seen.has(l.listenPort)) return `duplicate listen port ${l.listenPort}`;
  if (!isPort(l.destinationPort)) return `invalid destination port ${l.destinationPort}`;
  if (l.healthCheck.port !== null && !isPort(l.healthCheck.port)) return `invalid health check port ${l.healthCheck.port}`;
  return null;
}

function validTargets(lb: DataPlaneLoadBalancer, loopbackOnly: boolean, problems: string[]): DataPlaneTarget[] {
  const byId = new Map<string, DataPlaneTarget>();
  for (const t of lb.targets) {
    const problem = addressProblem(t.ip, loopbackOnly);
    if (problem !== null) problems.push(`target ${t.id} skipped: ${problem}`);
    else if (!byId.has(t.id)) byId.set(t.id, { id: t.id, ip: t.ip });
  }
  return [...byId.values()];
}

export function validateLoadBalancer(lb: DataPlaneLoadBalancer, loopbackOnly: boolean): ValidatedLoadBalancer {
  const issues: ValidationIssue[] = [];
  const vipProblem = addressProblem(lb.vip, loopbackOnly);
  if (vipProblem !== null) {
    return { listeners: [], targets: [], issues: lb.listeners.map((l) => ({ listenPort: l.listenPort, message: `VIP ${vipProblem}` })) };
  }
  const lbProblems: string[] = [];
  const targets = validTargets(lb, loopbackOnly, lbProblems);
  const listeners: DataPlaneListener[] = [];
  const seen = new Set<number>();
  for (const l of lb.listeners) {
    const problem = listenerProblem(l, seen);
    seen.add(l.listenPort);
    if (problem !== null) issues.push({ listenPort: l.listenPort, message: problem });
    else listeners.push(l);
  }
  for (const l of listeners) for (const message of lbProblems) issues.push({ listenPort: l.listenPort, message });
  return { listeners, targets, issues };
}
