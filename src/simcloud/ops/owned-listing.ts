/**
 * One listing of the cluster's load balancers, server groups and firewall policies, shared by a burst of
 * syncs over Services that already have theirs. A restarted CCM re-ensures every Service and a node change
 * updates every one; looked up one by one, that is one list call per kind and Service (3 000 calls for
 * 1 000 Services, most of a restart's CPU: benchmark S12).
 * - It answers only during a burst (`burst` lookups within `windowMs`): editing one Service never lists
 *   the whole cluster.
 * - A hit comes from a listing started at most `maxAgeMs` (30 s, the server list cache's bound) before
 *   the lookup. A Service this process wrote to since is dropped from it (also while a listing is in
 *   flight), so its next lookup asks the API. With 5 s, a restart at 1 000 nodes and the tuned profile
 *   outlasted the listing and listed two or three times, each listing 1 000 LBs with 1 000 resolved
 *   targets (3-4 CPU-seconds each).
 * - Anything it does not hold is answered `undefined` and the caller asks the API: "none exists" never
 *   comes from here. A listing that fails answers nothing; the next lookup lists again.
 */
import type { SimcloudClient } from '../../../simulator/api/client/index.ts';
import type { FirewallPolicy, ListMeta, ServerGroup } from '../../../simulator/api/schema/index.ts';
import type { CallContext } from '../../cloud/provider.ts';
import { realClock, type Clock } from '../../kube/clock.ts';
import { callOptions } from '../client.ts';
import type { LoadBalancerView } from './load-balancer.ts';
import { LABELS } from './naming.ts';

/** A Service's resources as listed; a kind it has none of (or that was not listed) is absent. */
export interface OwnedResources {
  loadBalancer?: LoadBalancerView;
  serverGroup?: ServerGroup;
  firewallPolicy?: FirewallPolicy;
}

/** The listing as the steps see it, bound to one cluster, Service and call. */
export interface OwnedLookup {
  lookup(): Promise<OwnedResources | undefined>;
  /** Call after every write to the Service's resources, failed ones too (they may have applied). */
  written(): void;
}

export interface OwnedListingOptions {
  readonly client: SimcloudClient;
  /** List server groups and firewall policies too (strategy `lb`), not only load balancers. */
  readonly withGroups: boolean;
  readonly clock?: Clock;
  /** Hits come from a listing at most this old (default 30 s). */
  readonly maxAgeMs?: number;
  /** Lookups within `windowMs` that make a burst (default 10 in 1 s). */
  readonly burst?: number;
  readonly windowMs?: number;
}

interface Snapshot {
  readonly cluster: string;
  readonly startedAt: number;
  readonly byUid: Map<string, OwnedResources>;
}

export class OwnedListing {
  readonly #client: SimcloudClient;
  readonly #withGroups: boolean;
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  readonly #burst: number;
  readonly #windowMs: number;
  /** Times of the last `burst` lookups. */
  #recent: number[] = [];
  #snapshot: Snapshot | undefined;
  #inflight: { cluster: string; startedAt: number; done: Promise<Snapshot> } | undefined;
  /** Services written to while the in-flight listing runs: left out of it. */
  #writtenDuringListing = new Set<string>();

  constructor(options: OwnedListingOptions) {
    this.#client = options.client;
    this.#withGroups = options.withGroups;
    this.#clock = options.clock ?? realClock;
    this.#maxAgeMs = options.maxAgeMs ?? 30_000;
    this.#burst = options.burst ?? 10;
    this.#windowMs = options.windowMs ?? 1_000;
  }

  /**
   * The view the steps use for one Service of `cluster`, in the call `ctx`. Writes are always marked;
   * lookups come from the listing only with `lookups` (else they answer nothing and the steps ask the API).
   */
  forService(cluster: string, uid: string, ctx: CallContext | undefined, lookups: boolean): OwnedLookup {
    return { lookup: () => (lookups ? this.lookup(cluster, uid, ctx) : Promise.resolve(undefined)), written: () => this.written(uid) };
  }

  async lookup(cluster: string, uid: string, ctx: CallContext | undefined): Promise<OwnedResources | undefined> {
    const now = this.#clock.now();
    // A burst's snapshot is not kept past its age: it is 1 000 Services' worth of resources.
    if (this.#snapshot && now - this.#snapshot.startedAt > this.#maxAgeMs) this.#snapshot = undefined;
    this.#recent.push(now);
    if (this.#recent.length > this.#burst) this.#recent.shift();
    const first = this.#recent[0] ?? now;
    if (this.#recent.length < this.#burst || now - first > this.#windowMs) return undefined;
    const snapshot = await this.#fresh(cluster, ctx).catch(() => undefined);
    return snapshot?.byUid.get(uid);
  }

  written(uid: string): void {
    this.#snapshot?.byUid.delete(uid);
    if (this.#inflight) this.#writtenDuringListing.add(uid);
  }

  async #fresh(cluster: string, ctx: CallContext | undefined): Promise<Snapshot> {
    // `lookup` has dropped a snapshot past its age.
    const snap = this.#snapshot;
    if (snap && snap.cluster === cluster) return snap;
    const inflight = this.#inflight;
    if (inflight && inflight.cluster === cluster) return inflight.done;
    const startedAt = this.#clock.now();
    this.#writtenDuringListing = new Set();
    const done = this.#list(cluster, startedAt, ctx).then((listed) => {
      for (const uid of this.#writtenDuringListing) listed.byUid.delete(uid);
      this.#snapshot = listed;
      return listed;
    });
    const entry = { cluster, startedAt, done };
    this.#inflight = entry;
    try {
      return await done;
    } finally {
      if (this.#inflight === entry) this.#inflight = undefined;
    }
  }

  async #list(cluster: string, startedAt: number, ctx: CallContext | undefined): Promise<Snapshot> {
    const base = { label_selector: `${LABELS.cluster}=${cluster}`, sort: 'created:asc' } as const;
    const opts = callOptions(ctx);
    const byUid = new Map<string, OwnedResources>();
    // Oldest first, as the direct lookups (`created:asc`, first match) pick.
    const add = <K extends keyof OwnedResources>(kind: K, item: NonNullable<OwnedResources[K]>): void => {
      const uid = item.labels[LABELS.serviceUid];
      if (uid === undefined) return;
      const entry = byUid.get(uid) ?? {};
      if (entry[kind] === undefined) entry[kind] = item;
      byUid.set(uid, entry);
    };
    // One page at a time, each trimmed before the next is read, so the snapshot's memory, not the pages', is
    // what stays: one string per server id for all groups. LBs come without their resolved targets (a target
    // per node, 117 kB of JSON per LB at 1 000 nodes), which nothing here reads. A page small next to the
    // young generation (2 MB semi-spaces as deployed) dies there in a scavenge; 25 LBs with targets (315 kB
    // of JSON at 100 nodes) outlived the scavenges of their own parse, were promoted, and a restart's pages
    // piled up 20 MB of old-generation garbage before a full GC: the CCM's peak RSS (docs/performance.md).
    const ids = new Map<string, string>();
    const interned = (id: string): string => ids.get(id) ?? (ids.set(id, id), id);
    const kinds: Promise<void>[] = [
      eachPage(
        (page) => this.#client.loadBalancers.listSummaries({ ...base, per_page: 50, page }, opts).then((r) => ({ items: r.load_balancers, meta: r.meta })),
        (view) => add('loadBalancer', view),
      ),
    ];
    if (this.#withGroups) {
      kinds.push(
        eachPage(
          (page) => this.#client.serverGroups.list({ ...base, per_page: 100, page }, opts).then((r) => ({ items: r.server_groups, meta: r.meta })),
          (group) => add('serverGroup', { ...group, servers: group.servers.map(interned) }),
        ),
        eachPage(
          (page) => this.#client.firewallPolicies.list({ ...base, per_page: 100, page }, opts).then((r) => ({ items: r.firewall_policies, meta: r.meta })),
          (policy) => add('firewallPolicy', policy),
        ),
      );
    }
    await Promise.all(kinds);
    return { cluster, startedAt, byUid };
  }
}

/** Reads every page in turn, handing each item to `use` before the next page is asked for. */
async function eachPage<T>(list: (page: number) => Promise<{ items: T[]; meta: ListMeta }>, use: (item: T) => void): Promise<void> {
  for (let page: number | null = 1; page !== null;) {
    const { items, meta } = await list(page);
    for (const item of items) use(item);
    page = meta.pagination.next_page;
  }
}

/** Runs a write and marks the Service written afterwards, whether or not it succeeded. */
export async function writing<T>(owned: OwnedLookup | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    owned?.written();
  }
}
