/**
 * ListWatch: one list-then-watch session over a collection (client-go's Reflector, one session of it),
 * the source a `SupervisedInformer` drives. `start()` lists, emits `add` per object and resolves; then it
 * watches from the list's resourceVersion with bookmarks, re-watching from the last version seen each
 * time the server ends a watch (its `timeoutSeconds`, 5-10 min as client-go picks). A watch that cannot
 * resume (410 Gone: the version was compacted) or breaks emits `error`, and the supervisor relists.
 *
 * `connect` is emitted on every (re)connect and bookmark: the stream is alive, even when no object changes.
 *
 * The list asks for a resourceVersion, as client-go's Reflector does: `0` for a first list (the apiserver
 * answers from its watch cache at once), the version a previous session reached for a relist (no older than
 * what was seen), and `''` (a consistent read) only when the apiserver no longer has that version. A
 * consistent read costs the apiserver a round trip to etcd and can wait for its watch cache to catch up;
 * upstream's informers make one only in that last case.
 */
import type { ErrorCallback, KubernetesListObject, KubernetesObject, ObjectCallback } from '@kubernetes/client-node';
import { z } from 'zod';
import { asObject, type KubeClient } from './api-client.ts';
import { KubeApiError } from './transport.ts';

const WatchEventTypes = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;
const WatchEvent = z.object({ type: z.enum(WatchEventTypes), object: z.record(z.string(), z.unknown()) });
const ErrorStatus = z.object({ code: z.number().optional(), reason: z.string().optional(), message: z.string().optional() });
const Bookmark = z.object({ metadata: z.object({ resourceVersion: z.string() }) });

type ObjectVerb = 'add' | 'update' | 'delete' | 'change';
const EventVerbs = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' } as const;
type SignalVerb = 'error' | 'connect';

export interface ListWatchOptions {
  /** The collection, e.g. `/api/v1/nodes`. */
  readonly path: string;
  /** Lists (rate-limited) through this client. */
  readonly client: KubeClient;
  /** Watches through this one (default `client`). */
  readonly watchClient?: KubeClient;
  /** Server-side watch timeout in seconds (default 300-600, random per watch, as client-go). */
  readonly timeoutSeconds?: () => number;
  /**
   * The list's resourceVersion (default `0`, any version the apiserver has cached): a relist passes the
   * `resourceVersion` the previous session reached; `''` is a consistent read.
   */
  readonly resourceVersion?: string;
}

/** A list at a version the apiserver cannot serve: compacted (410) or ahead of its cache (504, "Too large resource version"). */
const unavailableVersion = (err: unknown): boolean => err instanceof KubeApiError && (err.code === 410 || err.code === 504);

export class ListWatch<T extends KubernetesObject> {
  readonly #options: ListWatchOptions;
  readonly #objectCallbacks = new Map<ObjectVerb, Array<ObjectCallback<T>>>();
  readonly #signalCallbacks = new Map<SignalVerb, ErrorCallback[]>();
  readonly #abort = new AbortController();
  #resourceVersion: string;

  constructor(options: ListWatchOptions) {
    this.#options = options;
    this.#resourceVersion = options.resourceVersion ?? '0';
  }

  /** The newest version this session has seen (listed, watched or bookmarked): where a relist resumes. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  on(verb: ObjectVerb, cb: ObjectCallback<T>): void;
  on(verb: SignalVerb, cb: ErrorCallback): void;
  on(verb: ObjectVerb | SignalVerb, cb: ObjectCallback<T> | ErrorCallback): void {
    if (verb === 'error' || verb === 'connect') this.#signalCallbacks.set(verb, [...(this.#signalCallbacks.get(verb) ?? []), cb as ErrorCallback]);
    else this.#objectCallbacks.set(verb, [...(this.#objectCallbacks.get(verb) ?? []), cb as ObjectCallback<T>]);
  }

  /** Lists and emits the objects; resolves once they are emitted (the watch runs on). Rejects if the list fails. */
  async start(): Promise<void> {
    const list = await this.#list(this.#resourceVersion);
    this.#emitSignal('connect');
    for (const obj of list.items) this.#emitObject('add', obj);
    this.#resourceVersion = list.metadata?.resourceVersion ?? '';
    void this.#watchLoop();
  }

  /** Lists at `version`, and consistently when the apiserver cannot serve that version (client-go's fallback). */
  async #list(version: string): Promise<KubernetesListObject<T>> {
    const { client, path } = this.#options;
    const signal = this.#abort.signal;
    if (version === '') return client.list<T>(path, { signal });
    try {
      return await client.list<T>(path, { signal, query: { resourceVersion: version } });
    } catch (err) {
      if (!unavailableVersion(err) || signal.aborted) throw err;
      return client.list<T>(path, { signal });
    }
  }

  stop(): Promise<void> {
    this.#abort.abort();
    return Promise.resolve();
  }

  /** Watches from `#resourceVersion`, which each event and bookmark moves on. */
  async #watchLoop(): Promise<void> {
    const { path, client, watchClient = client, timeoutSeconds = () => Math.floor(300 * (1 + Math.random())) } = this.#options;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      const timeout = timeoutSeconds();
      try {
        let connected = false;
        const query = { resourceVersion: this.#resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: String(timeout) };
        await watchClient.watch({ path, query, signal, maxSilenceMs: (timeout + 60) * 1000 }, (value) => {
          if (!connected) {
            connected = true;
            this.#emitSignal('connect');
          }
          this.#resourceVersion = this.#handle(value, this.#resourceVersion);
        });
        if (!signal.aborted) this.#emitSignal('connect');
      } catch (err) {
        if (!signal.aborted) this.#emitSignal('error', err);
        return;
      }
    }
  }

  /** Applies one watch event; returns the resourceVersion to resume from. Throws to end the session. */
  #handle(value: unknown, rv: string): string {
    const event = WatchEvent.safeParse(value);
    if (!event.success) throw new KubeApiError(0, `watch ${this.#options.path}: not a watch event`);
    const { type, object } = event.data;
    if (type === 'ERROR') throw this.#watchError(object);
    if (type === 'BOOKMARK') {
      this.#emitSignal('connect');
      return Bookmark.safeParse(object).data?.metadata.resourceVersion ?? rv;
    }
    const obj = asObject<T>(object, `watch ${this.#options.path}`);
    this.#emitObject(EventVerbs[type], obj);
    return obj.metadata?.resourceVersion ?? rv;
  }

  /** An ERROR event's Status as the error that ends the session (410 Expired: relist). */
  #watchError(object: unknown): KubeApiError {
    const status = ErrorStatus.safeParse(object).data;
    return new KubeApiError(status?.code ?? 0, `watch ${this.#options.path}: ${status?.message ?? status?.reason ?? 'error'}`, status?.reason);
  }

  /** `change` follows every add, update and delete, as client-node's informer emits it. */
  #emitObject(verb: Exclude<ObjectVerb, 'change'>, obj: T): void {
    for (const cb of this.#objectCallbacks.get(verb) ?? []) cb(obj);
    for (const cb of this.#objectCallbacks.get('change') ?? []) cb(obj);
  }

  #emitSignal(verb: SignalVerb, err?: unknown): void {
    for (const cb of this.#signalCallbacks.get(verb) ?? []) cb(err);
  }
}
