/**
 * Resolution of LB targets (server ids, label selectors, server groups, IPs) to addresses, and of the
 * source CIDRs allowed on a VIP. Selector results are cached until servers or groups change.
 */
import { matchesSelector, parseSelector } from '../api/schema/label-selector.ts';
import type { FirewallPolicyRec, LoadBalancerRec, ServerRec } from './store/state.ts';
import type { Store } from './store/store.ts';

export interface Resolved {
  /** Server id, or `ip:<address>`. */
  id: string;
  server_id: string | null;
  ip: string | null;
}

/** Address an LB uses for a server: its IP on the LB's network, else private, else public. */
export function targetIp(server: ServerRec, networkId: string | null): string | null {
  if (networkId !== null) {
    const onNet = server.private_networks.find((n) => n.network_id === networkId);
    return onNet?.ip ?? server.private_ipv4 ?? server.public_ipv4;
  }
  return server.public_ipv4 ?? server.private_ipv4;
}

function coversInbound(rule: FirewallPolicyRec['rules'][number]): boolean {
  return rule.direction === 'inbound' && (rule.protocol === 'tcp' || rule.protocol === 'any');
}

export class TargetView {
  readonly #store: Store;
  readonly #selectorCache = new Map<string, ServerRec[]>();

  constructor(store: Store) {
    this.#store = store;
    store.onChange((applied) => {
      if (applied.length === 0 || applied.some((c) => c.coll === 'servers' || c.coll === 'server_groups')) this.#selectorCache.clear();
    });
  }

  #bySelector(projectId: string, selector: string): ServerRec[] {
    const key = `${projectId}|${selector}`;
    let hit = this.#selectorCache.get(key);
    if (hit === undefined) {
      const reqs = parseSelector(selector);
      hit = this.#store.all('servers').filter((s) => s.project_id === projectId && matchesSelector(reqs, s.labels));
      this.#selectorCache.set(key, hit);
    }
    return hit;
  }

  #servers(lb: LoadBalancerRec, t: LoadBalancerRec['targets'][number]): ServerRec[] {
    const st = this.#store.state;
    if (t.kind === 'server') {
      const s = st.servers[t.server_id];
      return s !== undefined && s.project_id === lb.project_id ? [s] : [];
    }
    if (t.kind === 'label_selector') return this.#bySelector(lb.project_id, t.label_selector);
    if (t.kind !== 'server_group') return [];
    const g = st.server_groups[t.server_group_id];
    if (g === undefined || g.project_id !== lb.project_id) return [];
    return g.servers.map((id) => st.servers[id]).filter((s): s is ServerRec => s !== undefined);
  }

  /** Every distinct address the LB forwards to. */
  resolve(lb: LoadBalancerRec): Resolved[] {
    const out = new Map<string, Resolved>();
    for (const t of lb.targets) {
      if (t.kind === 'ip') {
        out.set(`ip:${t.ip}`, { id: `ip:${t.ip}`, server_id: null, ip: t.ip });
        continue;
      }
      for (const s of this.#servers(lb, t)) if (!out.has(s.id)) out.set(s.id, { id: s.id, server_id: s.id, ip: targetIp(s, lb.network_id) });
    }
    return [...out.values()];
  }

  /**
   * CIDRs allowed to reach the VIP: the LB's own source ranges if any; else the inbound tcp rules of
   * firewall policies applied to its server-group targets (a rule without sources allows all);
   * null = allow all. Rules are not port-specific here: the VIP filter is per LB.
   */
  allowedSources(lb: LoadBalancerRec): string[] | null {
    if (lb.source_ranges.length > 0) return lb.source_ranges;
    const groups = new Set(lb.targets.flatMap((t) => (t.kind === 'server_group' ? [t.server_group_id] : [])));
    const policies = this.#store.all('firewall_policies').filter((p) => p.server_group_id !== null && groups.has(p.server_group_id));
    if (policies.length === 0) return null;
    const cidrs = new Set<string>();
    for (const rule of policies.flatMap((p) => p.rules).filter(coversInbound)) {
      for (const c of rule.source_cidrs.length === 0 ? ['0.0.0.0/0'] : rule.source_cidrs) cidrs.add(c);
    }
    return [...cidrs];
  }
}
