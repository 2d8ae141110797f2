/**
 * An index of every address in use, kept in step with the store, so allocation and conflict checks
 * do not scan all servers. Scopes: `pub` (server public IPs and LB VIPs: real loopback addresses,
 * unique across projects), `pub6` (public IPv6 addresses of servers and LBs, data only), `net:<id>` (a private
 * network), `prj:<id>` (a server's private address given without a network, e.g. a kind container's IP) and
 * `blk` (the usable addresses of IP blocks: held for their owner whether or not anything uses them now, so a
 * pool never hands out an address someone reserved, such as a load balancer's VIP kept after it was deleted).
 *
 * Public addresses (`pub`) and IP blocks rotate through their pools (next-fit from the last one handed out),
 * as a cloud's large public pool does: an address just released is not the next caller's, so a client
 * still holding it (a stale Service status, a second DELETE of a reserved address) does not meet someone
 * else's new resource. The cursor lives in memory: a restarted simcloud starts again from the pool's start.
 */
import { ipToInt, parseCidr, type Range } from '../../lib/ip.ts';
import { firstFree, firstFreeRange, firstFreeV6 } from './ipam.ts';
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
  const out: Entry[] = [
    ['pub', lb.public_ipv4],
    ['pub6', lb.public_ipv6],
  ];
  if (lb.network_id !== null && lb.private_ipv4 !== null) out.push([`net:${lb.network_id}`, lb.private_ipv4]);
  return out;
}

const blockEntries = (b: IpBlockRec): Entry[] => b.usable_addresses.map((ip) => ['blk', ip]);

const INDEXED = new Set(['servers', 'load_balancers', 'ip_blocks']);

export class AddressIndex {
  readonly #used = new Map<string, string>();
  /** Per rotating pool: where the next search starts (an offset into the range, or a block pool's address). */
  readonly #next = new Map<string, number>();

  constructor(store: Store) {
    this.#rebuild(store);
    store.onChange((applied) => (applied.length === 0 ? this.#rebuild(store) : this.#apply(applied)));
  }

  /** The owner id of `ip` in `scope`, if taken. */
  owner(scope: string, ip: string): string | undefined {
    return this.#used.get(`${scope}|${ip}`);
  }

  /** A free host address of `cidr` in `scope` that no IP block holds: the lowest, or in `pub` the next after the last one handed out. */
  allocate(scope: string, cidr: string, reserveGateway = false): string | null {
    const key = `${scope}|${cidr}`;
    const rotating = scope === 'pub';
    const ip = firstFree(
      cidr,
      (a) => this.#used.has(`${scope}|${a}`) || this.#used.has(`blk|${a}`),
      reserveGateway,
      rotating ? this.#next.get(key) : undefined,
    );
    if (ip !== null && rotating) this.#next.set(key, ipToInt(ip) - parseCidr(cidr).base + 1);
    return ip;
  }

  /** A free `/prefix` of the IP block pool `pool`, overlapping none of `taken`: the next after the last one handed out. */
  allocateRange(pool: string, prefix: number, taken: readonly Range[]): Range | null {
    const key = `blocks|${pool}`;
    const range = firstFreeRange(pool, prefix, taken, this.#next.get(key));
    if (range !== null) this.#next.set(key, range.base + 2 ** (32 - prefix));
    return range;
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
