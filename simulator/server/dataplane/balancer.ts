// Target selection, pure: given the eligible targets of one listener (healthy or not yet checked)
// and the client's address, choose one. Round robin keeps a cursor; least connections takes the
// fewest active connections and rotates among ties; source-IP affinity uses rendezvous (highest
// random weight) hashing, so a client stays on its target for as long as that target stays
// eligible, and only the clients of a target that goes away are moved.
import type { DataPlaneLoadBalancer } from './types.ts';

export interface Candidate {
  id: string;
  activeConnections: number;
}

export type Algorithm = DataPlaneLoadBalancer['algorithm'];
export type SessionAffinity = DataPlaneLoadBalancer['sessionAffinity'];

export interface BalancerPolicy {
  algorithm: Algorithm;
  sessionAffinity: SessionAffinity;
}

/** FNV-1a followed by the murmur3 finalizer: cheap, well mixed, stable across processes. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function pickByAffinity(candidates: readonly Candidate[], sourceIp: string): Candidate | undefined {
  let best: Candidate | undefined;
  let bestWeight = -1;
  for (const c of candidates) {
    const weight = hash32(`${sourceIp}\u0000${c.id}`);
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && c.id < best.id)) {
      best = c;
      bestWeight = weight;
    }
  }
  return best;
}

export class Balancer {
  #policy: BalancerPolicy;
  #cursor = 0;

  constructor(policy: BalancerPolicy) {
    this.#policy = { ...policy };
  }

  get policy(): BalancerPolicy {
    return { ...this.#policy };
  }

  setPolicy(policy: BalancerPolicy): void {
    this.#policy = { ...policy };
  }

  /** The chosen target id, or null when there is no candidate. */
  pick(candidates: readonly Candidate[], sourceIp: string): string | null {
    if (candidates.length === 0) return null;
    if (this.#policy.sessionAffinity === 'source_ip') return pickByAffinity(candidates, sourceIp)?.id ?? null;
    const pool = this.#policy.algorithm === 'least_connections' ? leastLoaded(candidates) : candidates;
    const chosen = pool[this.#cursor % pool.length];
    this.#cursor = (this.#cursor + 1) % 0x7fffffff;
    return chosen?.id ?? null;
  }
}

function leastLoaded(candidates: readonly Candidate[]): Candidate[] {
  const min = Math.min(...candidates.map((c) => c.activeConnections));
  return candidates.filter((c) => c.activeConnections === min);
}
