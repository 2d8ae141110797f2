// What must differ between two runs of one scenario on two fresh sandboxes, replaced by the role it
// plays: a cloud id, an address from a pool, a Kubernetes UID or a node port becomes the name of the
// thing it belongs to (`server(diff-worker-1).id`, `lb(default/web).vip`), so two runs compare equal
// exactly when they did the same thing to the same objects.
import { defaultLoadBalancerName } from '../../src/cloud/load-balancer.ts';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { FirewallPolicy } from '../../simulator/api/schema/firewall-policies.ts';
import type { LoadBalancer } from '../../simulator/api/schema/load-balancers.ts';
import type { Network } from '../../simulator/api/schema/networks.ts';
import type { ServerGroup } from '../../simulator/api/schema/server-groups.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';

export class Roles {
  readonly #strings = new Map<string, string>();
  readonly #numbers = new Map<number, string>();
  #pattern: RegExp | undefined;

  /** Remembers that `raw` plays `role` (the first role learnt for a value wins: roles never move). */
  add(raw: string | null | undefined, role: string): void {
    if (!raw || this.#strings.has(raw)) return;
    this.#strings.set(raw, role);
    this.#pattern = undefined;
  }

  /** A port number, as a number and as text (firewall rules carry ports as strings). */
  addNumber(raw: number | undefined, role: string): void {
    if (raw === undefined || this.#numbers.has(raw)) return;
    this.#numbers.set(raw, role);
    this.add(String(raw), role);
  }

  servers(servers: readonly Server[]): void {
    for (const s of servers) {
      this.add(s.id, `server(${s.name}).id`);
      this.add(s.public_ipv4, `server(${s.name}).public_ipv4`);
      this.add(s.public_ipv6, `server(${s.name}).public_ipv6`);
      this.add(s.private_ipv4, `server(${s.name}).private_ipv4`);
      for (const n of s.private_networks) this.add(n.ip, `server(${s.name}).network_ip`);
    }
  }

  nodes(nodes: readonly V1Node[]): void {
    for (const n of nodes) {
      const name = n.metadata?.name ?? '?';
      this.add(n.metadata?.uid, `node(${name}).uid`);
      this.add(n.spec?.podCIDR, `node(${name}).podCIDR`);
    }
  }

  services(services: readonly V1Service[]): void {
    for (const s of services) {
      const name = `${s.metadata?.namespace}/${s.metadata?.name}`;
      this.add(s.metadata?.uid, `service(${name}).uid`);
      this.add(defaultLoadBalancerName(s), `service(${name}).lbName`);
      this.add(s.spec?.clusterIP, `service(${name}).clusterIP`);
      for (const p of s.spec?.ports ?? []) this.addNumber(p.nodePort, `service(${name}).nodePort(${p.port})`);
      this.addNumber(s.spec?.healthCheckNodePort, `service(${name}).healthCheckNodePort`);
    }
  }

  cloud(c: {
    loadBalancers: readonly LoadBalancer[];
    serverGroups: readonly ServerGroup[];
    firewallPolicies: readonly FirewallPolicy[];
    networks: readonly Network[];
  }): void {
    // LB names are learnt from their Services first; ids and addresses are named after those roles.
    for (const lb of c.loadBalancers) {
      const who = this.apply(lb.name);
      this.add(lb.id, `lb(${who}).id`);
      this.add(lb.public_ipv4, `lb(${who}).vip`);
      this.add(lb.public_ipv6, `lb(${who}).vip6`);
      this.add(lb.private_ipv4, `lb(${who}).private_ipv4`);
    }
    for (const g of c.serverGroups) this.add(g.id, `server_group(${this.apply(g.name)}).id`);
    for (const f of c.firewallPolicies) this.add(f.id, `firewall_policy(${this.apply(f.name)}).id`);
    for (const n of c.networks) {
      this.add(n.id, `network(${n.name}).id`);
      this.add(n.ip_range, `network(${n.name}).ip_range`);
      n.subnets.forEach((sub, i) => {
        this.add(sub.ip_range, `network(${n.name}).subnet(${i}).ip_range`);
        this.add(sub.gateway, `network(${n.name}).subnet(${i}).gateway`);
      });
      for (const r of n.routes) this.add(r.id, `route(${this.apply(r.name ?? r.destination)}).id`);
    }
  }

  /** `value` with every known value replaced by its role; numbers that are known ports by theirs. */
  apply(value: string): string {
    if (this.#strings.size === 0) return value;
    this.#pattern ??= new RegExp(
      // Longest first, whole tokens only: 127.0.0.1 must not eat the start of 127.0.0.12.
      `(?<![\\w.])(${[...this.#strings.keys()]
        .sort((a, b) => b.length - a.length)
        .map(escape)
        .join('|')})(?![\\w.])`,
      'g',
    );
    return value.replace(this.#pattern, (m) => this.#strings.get(m) ?? m);
  }

  applyNumber(value: number): string | number {
    return this.#numbers.get(value) ?? value;
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Fields that say when, not what: never compared. */
const WHEN = new Set([
  'created',
  'creationTimestamp',
  'lastTransitionTime',
  'lastHeartbeatTime',
  'timeAdded',
  'firstTimestamp',
  'lastTimestamp',
  'eventTime',
  'resourceVersion',
]);

/**
 * A JSON value as `path -> text` leaves, with roles applied to keys and values. Arrays of scalars are one
 * leaf (sorted: order carries no meaning in the fields compared), arrays of objects are keyed by their
 * position after sorting by their normalised text.
 */
export function flatten(roles: Roles, value: unknown, path: string, out: Map<string, string> = new Map()): Map<string, string> {
  if (value === null || value === undefined) {
    out.set(path, String(value));
  } else if (Array.isArray(value)) {
    flattenArray(roles, value, path, out);
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (!WHEN.has(k)) flatten(roles, v, `${path}/${roles.apply(k)}`, out);
  } else {
    out.set(path, scalar(roles, value));
  }
  return out;
}

function scalar(roles: Roles, value: unknown): string {
  if (typeof value === 'number') return String(roles.applyNumber(value));
  return typeof value === 'string' ? roles.apply(value) : String(value);
}

function flattenArray(roles: Roles, value: readonly unknown[], path: string, out: Map<string, string>): void {
  if (value.every((v) => v === null || typeof v !== 'object')) {
    out.set(
      path,
      `[${value
        .map((v) => scalar(roles, v))
        .sort()
        .join(', ')}]`,
    );
    return;
  }
  const items = value.map((v) => flatten(roles, v, ''));
  items.sort((a, b) => text(a).localeCompare(text(b)));
  items.forEach((item, i) => {
    for (const [k, v] of item) out.set(`${path}[${i}]${k}`, v);
  });
}

const text = (m: Map<string, string>): string => [...m].map(([k, v]) => `${k}=${v}`).join(';');
