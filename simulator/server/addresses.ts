/**
 * An index of every address in use, kept in step with the store, so allocation and conflict checks
 * do not scan all servers. Scopes: `pub` (server public IPs and LB VIPs: real loopback addresses,
 * unique across projects), `pub6` (public IPv6 addresses of servers and LBs, data only), `net:<id>` (a private
 * network), `prj:<id>` (a server's private address given without a network, e.g. a kind container's IP) and
 * `blk` (the usable addresses of IP blocks: held for their owner whether or not anything uses them now, so a
 * pool never hands out an address someone reserved, such as a load balancer's VIP kept after it was deleted).
 */
import { firstFree, firstFreeV6 } from './ipam.ts';
import type { AppliedChange, IpBlockRec, LoadBalancerRec, ServerRec } from './store/state.ts';
import type { Store } from './store/store.ts';

type Entry = [scope: string, ip: string];

function serverEntries(s: ServerRec): Entry[] {
  const out: Entry[] = [];
  if (s.public_ipv4 !== null) out.push(['pub', s.public_ipv4]);
  if (s.public_ipv6 !== null) out.push(['pub6', s.public_ipv6]);
  for (const n of s.private_networks) out.push([`net:${n.network_id}`, n.ip]);
  if (s.private_ipv4 !== null && !s.private_networks.some((n) => n.ip === s.private_ipv4)) out.push([`prj:${s.project_id}`, s.private_ipv4]);
  return out;
}

function lbEntries(lb: LoadBalancerRec): Entry[] {
  const out: Entry[] = [['pub', lb.public_ipv4], ['pub6', lb.public_ipv6]];
  if (lb.network_id !== null && lb.private_ipv4 !== null) out.push([`net:${lb.network_id}`, lb.private_ipv4]);
  return out;
}

const blockEntries = (b: IpBlockRec): Entry[] => b.usable_addresses.map((ip) => ['blk', ip]);

const INDEXED = new Set(['servers', 'load_balancers', 'ip_blocks']);

export class AddressIndex {
  readonly #used = new Map<string, string>();

  constructor(store: Store) {
    this.#rebuild(store);
    store.onChange((applied) => (applied.length === 0 ? this.#rebuild(store) : this.#apply(applied)));
  }

  /** The owner id of `ip` in `scope`, if taken. */
  owner(scope: string, ip: string): string | undefined {
    return this.#used.get(`${scope}|${ip}`);
  }

  /** Lowest free host address of `cidr` in `scope` that no IP block holds. */
  allocate(scope: string, cidr: string, reserveGateway = false): string | null {
    return firstFree(cidr, (ip) => this.#used.has(`${scope}|${ip}`) || this.#used.has(`blk|${ip}`), reserveGateway);
  }

  /** First free IPv6 allocation of `cidr` in `scope`: the `::1` of each `/stepPrefix` (see firstFreeV6). */
  allocateV6(scope: string, cidr: string, stepPrefix: number): string | null {
    return firstFreeV6(cidr, stepPrefix, (ip) => this.#used.has(`${scope}|${ip}`));
  }

  #entries(coll: string, doc: unknown): Entry[] {
    if (coll === 'servers') return serverEntries(doc as ServerRec);
    if (coll === 'load_balancers') return lbEntries(doc as LoadBalancerRec);
    if (coll === 'ip_blocks') return blockEntries(doc as IpBlockRec);
    return [];
  }

  #apply(applied: readonly AppliedChange[]): void {
    for (const c of applied) {
      if (!INDEXED.has(c.coll)) continue;
      if (c.before !== undefined) for (const [scope, ip] of this.#entries(c.coll, c.before)) this.#used.delete(`${scope}|${ip}`);
      if (c.after !== undefined) for (const [scope, ip] of this.#entries(c.coll, c.after)) this.#used.set(`${scope}|${ip}`, c.id);
    }
  }

  #rebuild(store: Store): void {
    this.#used.clear();
    for (const s of store.all('servers')) for (const [scope, ip] of serverEntries(s)) this.#used.set(`${scope}|${ip}`, s.id);
    for (const lb of store.all('load_balancers')) for (const [scope, ip] of lbEntries(lb)) this.#used.set(`${scope}|${ip}`, lb.id);
    for (const b of store.all('ip_blocks')) for (const [scope, ip] of blockEntries(b)) this.#used.set(`${scope}|${ip}`, b.id);
  }
}
