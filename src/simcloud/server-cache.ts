/**
 * A server list cache with invalidation, so node initialisation and address refreshes do not cost one
 * API call per node (benchmark S3: <= 0.05 calls per node initialisation; upstream's pattern costs N calls
 * every 5 minutes at rest).
 *
 * - A lookup answers from a snapshot at most `maxAgeMs` old; an older snapshot is relisted in full first.
 * - A miss (a server created after the snapshot) triggers a refresh that started after the lookup did:
 *   one call for the newest page (`sort=created:desc`), or a full relist when that page holds nothing
 *   known. So `undefined` means "not in a list taken after you asked", as authoritative as a GET.
 * - Refreshes are single-flight. Refreshes for misses, after `refreshBurst` in quick succession, start at
 *   most every `minIntervalMs` (a relist for age is not paced: it comes at most once per age): a burst of
 *   misses (1 000 nodes registering) shares one call per interval, while the first registrations after a
 *   quiet spell are answered at once. With one spacing alone, a worker that
 *   had caught up with the arrivals sat idle for up to an interval at the start of every burst, while
 *   its Kubernetes API budget filled up and overflowed (upstream looks each server up directly).
 *   A caller that misses at most once per pass (the route controller, its lookups and its listing) asks
 *   `{ paced: false }`: behind the node controller's paced misses, the routes of the nodes registered just
 *   before a pass waited a second.
 * Status is not served from here: InstanceExists/InstanceShutdown stay direct calls (the lifecycle
 * controller acts on them).
 */
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { Server } from '../../simulator/api/schema/index.ts';
import type { CallContext } from '../cloud/provider.ts';
import { realClock, sleep, type Clock } from '../kube/clock.ts';
import { TokenBucket } from '../kube/token-bucket.ts';
import { callOptions, toCloudServer } from './client.ts';
import type { ServerLookup } from './instances.ts';

export interface ServerLister {
  /** Every server (all pages). */
  all(ctx?: CallContext): Promise<Server[]>;
  /** The newest `count` servers, newest first, and whether older ones exist. */
  newest(count: number, ctx?: CallContext): Promise<{ servers: Server[]; more: boolean }>;
}

export function serverLister(client: SimcloudClient): ServerLister {
  return {
    all: (ctx) => client.servers.listAll({}, callOptions(ctx)),
    newest: async (count, ctx) => {
      const { servers, meta } = await client.servers.list({ sort: 'created:desc', per_page: count }, callOptions(ctx));
      return { servers, more: meta.pagination.next_page !== null };
    },
  };
}

export interface ServerCacheOptions {
  readonly lister: ServerLister;
  readonly clock?: Clock;
  /** Hits older than this relist everything first (default 30 s). */
  readonly maxAgeMs?: number;
  /** Refreshes start at most this often (default 1 s), after the burst below. */
  readonly minIntervalMs?: number;
  /** Refreshes that may start in quick succession after a quiet spell (default 10). */
  readonly refreshBurst?: number;
  /** Page size of the incremental refresh (default 100). */
  readonly newestPage?: number;
}

export interface LookupOptions {
  /** Accept a snapshot this old (default: the cache's maxAgeMs). */
  readonly maxAgeMs?: number;
  /** A miss waits its turn among the paced refreshes (default true); false refreshes at once. */
  readonly paced?: boolean;
}

export interface ListOptions extends LookupOptions {
  /** When the snapshot does not satisfy this, refresh (once) before answering. */
  readonly complete?: (servers: readonly Server[]) => boolean;
}

export class ServerCache {
  readonly #opts: Required<Omit<ServerCacheOptions, 'lister' | 'clock' | 'minIntervalMs' | 'refreshBurst'>>;
  /** Paces refreshes: `refreshBurst` at once, then one per `minIntervalMs`. */
  readonly #refreshes: TokenBucket;
  readonly #lister: ServerLister;
  readonly #clock: Clock;
  #byId = new Map<string, Server>();
  #idByName = new Map<string, string>();
  #fullAt = -Infinity;
  #completedStartAt = -Infinity;
  #inflight: { startedAt: number; full: boolean; done: Promise<void> } | undefined;

  constructor(options: ServerCacheOptions) {
    this.#lister = options.lister;
    this.#clock = options.clock ?? realClock;
    this.#opts = { maxAgeMs: options.maxAgeMs ?? 30_000, newestPage: options.newestPage ?? 100 };
    this.#refreshes = new TokenBucket(1000 / (options.minIntervalMs ?? 1000), options.refreshBurst ?? 10, this.#clock);
  }

  byName(name: string, ctx?: CallContext, lookup: LookupOptions = {}): Promise<Server | undefined> {
    return this.#find(() => this.#byId.get(this.#idByName.get(name) ?? ''), ctx, lookup);
  }

  byId(id: string, ctx?: CallContext, lookup: LookupOptions = {}): Promise<Server | undefined> {
    return this.#find(() => this.#byId.get(id), ctx, lookup);
  }

  /** From a snapshot at most `maxAgeMs` old, without refreshing on a miss (the caller falls back to a GET). */
  async peek(key: { id?: string; name?: string }, ctx: CallContext | undefined, maxAgeMs: number): Promise<Server | undefined> {
    const asked = this.#clock.now();
    if (asked - this.#fullAt > maxAgeMs) await this.#refreshAfter(asked, ctx, { maxAgeMs, strict: false });
    return this.#byId.get(key.id ?? this.#idByName.get(key.name ?? '') ?? '');
  }

  async list(ctx?: CallContext, options: ListOptions = {}): Promise<Server[]> {
    const asked = this.#clock.now();
    const maxAgeMs = options.maxAgeMs ?? this.#opts.maxAgeMs;
    if (asked - this.#fullAt > maxAgeMs) await this.#refreshAfter(asked, ctx, { maxAgeMs, strict: false });
    if (options.complete && !options.complete([...this.#byId.values()])) await this.#refreshAfter(asked, ctx, { maxAgeMs, strict: true, paced: options.paced });
    return [...this.#byId.values()];
  }

  async #find(get: () => Server | undefined, ctx: CallContext | undefined, lookup: LookupOptions): Promise<Server | undefined> {
    const asked = this.#clock.now();
    const { maxAgeMs = this.#opts.maxAgeMs, paced } = lookup;
    if (asked - this.#fullAt > maxAgeMs) await this.#refreshAfter(asked, ctx, { maxAgeMs, strict: false });
    const hit = get();
    if (hit) return hit;
    await this.#refreshAfter(asked, ctx, { maxAgeMs, strict: true, paced });
    return get();
  }

  /**
   * Returns once the snapshot is fresh enough, starting a refresh if needed: a full relist when the last
   * one is older than `maxAgeMs`, else the newest page. An age check (not strict) is met by any full list
   * started within `maxAgeMs` of the ask, one already in flight included: the controllers starting
   * together share the first list instead of the second waiting `minIntervalMs` for one of its own. A
   * miss (strict) needs a refresh started after the ask: one started in the same millisecond may have
   * missed the server.
   */
  async #refreshAfter(asked: number, ctx: CallContext | undefined, o: { maxAgeMs: number; strict: boolean; paced?: boolean | undefined }): Promise<void> {
    const fresh = o.strict ? (): boolean => this.#completedStartAt > asked : (): boolean => asked - this.#fullAt <= o.maxAgeMs;
    while (!fresh()) {
      const inflight = this.#inflight;
      if (inflight) {
        if (o.strict ? inflight.startedAt > asked : inflight.full) return inflight.done;
        await inflight.done.catch(() => undefined);
        continue;
      }
      const now = this.#clock.now();
      // Only misses are paced: a snapshot past its age is relisted at once. Pacing it made each route pass
      // that relisted wait up to a second behind the node controller's misses (tuned profile, 1 000 nodes).
      const wait = o.strict ? Math.max(o.paced === false ? 0 : this.#refreshes.waitMs(), asked + 1 - now) : 0;
      if (wait > 0) {
        await sleep(this.#clock, wait, ctx?.signal);
        continue;
      }
      await this.#start(ctx, this.#clock.now() - this.#fullAt > o.maxAgeMs);
    }
  }

  #start(ctx: CallContext | undefined, full: boolean): Promise<void> {
    const startedAt = this.#clock.now();
    this.#refreshes.tryTake();
    const done = (full ? this.#full(ctx) : this.#incremental(ctx)).then(() => {
      this.#completedStartAt = Math.max(this.#completedStartAt, startedAt);
    });
    const entry = { startedAt, full, done };
    this.#inflight = entry;
    void done
      .finally(() => {
        if (this.#inflight === entry) this.#inflight = undefined;
      })
      .catch(() => undefined);
    return done;
  }

  async #full(ctx: CallContext | undefined): Promise<void> {
    const startedAt = this.#clock.now();
    const servers = await this.#lister.all(ctx);
    this.#byId = new Map();
    this.#idByName = new Map();
    for (const s of servers) this.#put(s);
    this.#fullAt = startedAt;
  }

  async #incremental(ctx: CallContext | undefined): Promise<void> {
    const { servers, more } = await this.#lister.newest(this.#opts.newestPage, ctx);
    const overlaps = servers.some((s) => this.#byId.has(s.id));
    for (const s of servers) this.#put(s);
    // Nothing known on the newest page and more beyond it: a gap we cannot see, so relist everything.
    if (more && !overlaps) await this.#full(ctx);
  }

  #put(s: Server): void {
    this.#byId.set(s.id, s);
    this.#idByName.set(s.name, s.id);
  }
}

/** `ServerLookup` answered from the cache (InstanceMetadata: node initialisation and address refresh). */
export function cachedServerLookup(cache: ServerCache): ServerLookup {
  return {
    getServer: async (id, ctx) => {
      const s = await cache.byId(id, ctx);
      return s && toCloudServer(s);
    },
    findServerByName: async (name, ctx) => {
      const s = await cache.byName(name, ctx);
      return s && toCloudServer(s);
    },
  };
}

/**
 * Existence and power state: from a list at most `maxAgeMs` old (one list shared by a lifecycle pass over
 * many NotReady nodes, instead of two calls per node); a server missing from it is asked for directly, so
 * "does not exist" always comes from the API itself.
 */
export function freshServerLookup(cache: ServerCache, direct: ServerLookup, maxAgeMs: number): ServerLookup {
  return {
    getServer: async (id, ctx) => {
      const s = await cache.peek({ id }, ctx, maxAgeMs);
      return s ? toCloudServer(s) : direct.getServer(id, ctx);
    },
    findServerByName: async (name, ctx) => {
      const s = await cache.peek({ name }, ctx, maxAgeMs);
      return s ? toCloudServer(s) : direct.findServerByName(name, ctx);
    },
  };
}
