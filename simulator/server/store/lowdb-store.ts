/**
 * The lowdb Store. The document lives in a lowdb `JSONFile` (`new Low(new JSONFile(path), defaults)`,
 * never JSONFilePreset, which turns into memory under vitest), and every commit is first appended to
 * a journal (`<path>.wal-<generation>`, one JSON line per commit, its changes as journal.ts writes them):
 *   - group commit: commits arriving while a flush runs share the next append + fdatasync, so a burst
 *     of 1 000 commits costs a few file writes and a commit is acknowledged only once it is on disk;
 *   - compaction: when the journal grows, a new generation starts, the whole document is written
 *     through lowdb (temp file + rename), fsynced with its directory, then older journals are deleted;
 *   - recovery: load the document, replay the journals' records newer than its `seq` (a torn last line
 *     was never acknowledged and is dropped), migrate, then compact. Journals are replayed before the
 *     migration because they hold records of their document's version: the compaction that follows every
 *     open writes the migrated document before any record of the new version reaches a journal.
 * The document and its journals hold project tokens: they are written 0600, in a directory created 0700.
 * With `{ kind: 'memory' }` the document sits in lowdb's Memory adapter and commits resolve at once.
 */
import { chmod, mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Low, Memory } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { JournalEncoder, JournalRecord, replayChange, type JournalChange } from './journal.ts';
import { migrate } from './migrations.ts';
import {
  COLLECTIONS,
  applyChange,
  emptyState,
  type AppliedChange,
  type Change,
  type CollectionName,
  type Collections,
  type StateDoc,
  type StoredDoc,
} from './state.ts';
import type { ChangeListener, Store, StoreStats } from './store.ts';

export type StoreLocation = { kind: 'memory' } | { kind: 'file'; path: string };

export interface LowdbStoreOptions {
  location: StoreLocation;
  /** Document used when the file does not exist yet. */
  initial?: () => StateDoc;
  /** Journal size that triggers compaction (default 4 MiB). */
  compactBytes?: number;
}

interface Pending {
  line: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class LowdbStore implements Store {
  readonly #db: Low<StateDoc>;
  readonly #location: StoreLocation;
  readonly #compactBytes: number;
  readonly #listeners = new Set<ChangeListener>();
  #wal: FileHandle | undefined;
  #walGen = 0;
  #walBytes = 0;
  #pending: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #compacting: Promise<void> | undefined;
  #writes = 0;
  readonly #journal = new JournalEncoder();
  #fileWrites = 0;
  #index = new Map<CollectionName, Map<string, StoredDoc>>();

  private constructor(db: Low<StateDoc>, opts: LowdbStoreOptions) {
    this.#db = db;
    this.#location = opts.location;
    this.#compactBytes = opts.compactBytes ?? 4 * 1024 * 1024;
  }

  static async open(opts: LowdbStoreOptions): Promise<LowdbStore> {
    const initial = opts.initial ?? (() => emptyState());
    const loc = opts.location;
    const adapter = loc.kind === 'file' ? new JSONFile<StateDoc>(loc.path) : new Memory<StateDoc>();
    if (loc.kind === 'file') await mkdir(dirname(loc.path), { recursive: true, mode: 0o700 });
    const db = new Low<StateDoc>(adapter, initial());
    const store = new LowdbStore(db, opts);
    await db.read();
    if (loc.kind === 'file') await store.#recover(loc.path);
    db.data = migrate(db.data);
    if (loc.kind === 'file') await store.#compact();
    store.#reindex();
    return store;
  }

  get state(): StateDoc {
    return this.#db.data;
  }

  all<C extends CollectionName>(coll: C): Collections[C][] {
    return [...this.#index.get(coll)!.values()] as unknown as Collections[C][];
  }

  #reindex(): void {
    for (const c of COLLECTIONS) this.#index.set(c, new Map(Object.entries(this.#db.data[c]) as [string, StoredDoc][]));
  }

  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stats(): StoreStats {
    const path = this.#location.kind === 'file' ? this.#location.path : null;
    return { kind: this.#location.kind, path, writes: this.#writes, file_writes: this.#fileWrites };
  }

  commit(changes: Change[]): Promise<void> {
    if (changes.length === 0) return Promise.resolve();
    const state = this.#db.data;
    state.seq++;
    const journaled: JournalChange[] = [];
    const applied: AppliedChange[] = [];
    for (const c of changes) {
      // Each change is encoded against the state it applies to (an earlier change of the commit included).
      if (this.#location.kind === 'file') journaled.push(this.#journal.encode(state, c));
      const a = applyChange(state, c);
      if (a !== null) applied.push(a);
    }
    for (const a of applied) {
      const idx = this.#index.get(a.coll)!;
      if (a.after === undefined) idx.delete(a.id);
      else idx.set(a.id, a.after);
    }
    this.#emit(applied);
    this.#writes++;
    if (this.#location.kind === 'memory') return Promise.resolve();
    const line = JSON.stringify({ seq: state.seq, changes: journaled }) + '\n';
    const done = new Promise<void>((resolve, reject) => this.#pending.push({ line, resolve, reject }));
    this.#kick();
    return done;
  }

  async replace(doc: StateDoc): Promise<void> {
    const before = this.#db.data;
    doc.seq = before.seq + 1;
    this.#db.data = doc;
    this.#reindex();
    this.#emit([]);
    this.#writes++;
    if (this.#location.kind === 'file') await this.#compact();
    else await this.#db.write();
  }

  async close(): Promise<void> {
    await this.#drain();
    await this.#compacting;
    await this.#wal?.close();
    this.#wal = undefined;
  }

  #emit(applied: readonly AppliedChange[]): void {
    for (const l of this.#listeners) l(applied);
  }

  /** Starts a flush unless one runs; the running one starts the next when it ends. */
  #kick(): void {
    if (this.#flushing !== undefined) return;
    this.#flushing = this.#flushLoop().finally(() => {
      this.#flushing = undefined;
      if (this.#pending.length > 0) this.#kick();
    });
  }

  async #flushLoop(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        const data = batch.map((p) => p.line).join('');
        await this.#wal!.write(data);
        await this.#wal!.datasync();
        this.#walBytes += Buffer.byteLength(data);
        this.#fileWrites++;
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
      if (this.#walBytes > this.#compactBytes && this.#compacting === undefined) {
        this.#compacting = this.#compact().finally(() => {
          this.#compacting = undefined;
        });
      }
    }
  }

  async #drain(): Promise<void> {
    while (this.#flushing !== undefined || this.#pending.length > 0) {
      if (this.#flushing === undefined) this.#kick();
      await this.#flushing;
    }
  }

  #walPath(gen: number): string {
    const path = (this.#location as { path: string }).path;
    return `${path}.wal-${String(gen).padStart(8, '0')}`;
  }

  async #journals(path: string): Promise<{ gen: number; file: string }[]> {
    const prefix = `${basename(path)}.wal-`;
    const names = await readdir(dirname(path)).catch(() => [] as string[]);
    return names
      .filter((n) => n.startsWith(prefix))
      .map((n) => ({ gen: Number(n.slice(prefix.length)), file: join(dirname(path), n) }))
      .filter((j) => Number.isInteger(j.gen))
      .sort((a, b) => a.gen - b.gen);
  }

  async #recover(path: string): Promise<void> {
    const journals = await this.#journals(path);
    for (const j of journals) this.#replay(await readFile(j.file, 'utf8'));
    this.#walGen = journals.at(-1)?.gen ?? 0;
  }

  #replay(text: string): void {
    const state = this.#db.data;
    // The document is not migrated yet: a collection it lacks gets an empty map, so a record can land.
    for (const c of COLLECTIONS) (state as Partial<StateDoc>)[c] ??= {};
    for (const line of text.split('\n')) {
      if (line === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        return; // a torn tail: never acknowledged
      }
      const parsed = JournalRecord.safeParse(json);
      if (!parsed.success)
        throw new Error(
          `journal line after seq ${state.seq} is not a journal record: ${parsed.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.')}: ${i.message}`)
            .join('; ')}`,
        );
      const record: { seq: number; changes: JournalChange[] } = parsed.data;
      if (record.seq <= state.seq) continue;
      for (const c of record.changes) replayChange(state, c, record.seq);
      state.seq = record.seq;
    }
  }

  /** New journal generation, then the whole document through lowdb, then drop older journals. */
  async #compact(): Promise<void> {
    const path = (this.#location as { path: string }).path;
    const next = await open(this.#walPath(this.#walGen + 1), 'a', 0o600);
    await fsyncPath(dirname(path)); // the new journal's name must survive too
    await this.#drain();
    // No await from here to db.write(): the journal swap and the document's serialisation see the
    // same seq, so every later commit lands in the new journal.
    const old = this.#wal;
    this.#wal = next;
    this.#walGen++;
    this.#walBytes = 0;
    const written = this.#db.write();
    await written;
    await chmod(path, 0o600); // lowdb's temp file + rename takes the umask's mode
    await old?.close();
    await fsyncPath(path);
    await fsyncPath(dirname(path));
    this.#fileWrites++;
    for (const j of await this.#journals(path)) if (j.gen < this.#walGen) await rm(j.file, { force: true });
  }
}
