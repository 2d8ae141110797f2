// The console's timeline: one ordered, bounded list of steps from four sources (simcloud API calls,
// simcloud resource changes, Kubernetes events, Kubernetes object changes), each tagged with the object it
// is about (`Node/<name>`, `Service/<ns>/<name>`, `Routes`, ...) so the UI can group them. Polls repeat
// (the lifecycle controller reads a NotReady node's server every period), so a read equal to one of the
// last steps of its group is folded into that step (count + last time) instead of adding a new one.

export const EntrySource = {
  cloudCall: 'cloud-call',
  cloudChange: 'cloud-change',
  kubeEvent: 'kube-event',
  kubeChange: 'kube-change',
} as const;
export type EntrySource = (typeof EntrySource)[keyof typeof EntrySource];

export const Severity = { normal: 'normal', warning: 'warning', error: 'error' } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export interface TimelineInput {
  readonly time: string;
  readonly source: EntrySource;
  readonly group: string;
  readonly controller: string | null;
  readonly method: string | null;
  /** `header`: the CCM sent the method with the call; `inferred`: guessed from the call order. */
  readonly methodSource?: 'header' | 'inferred' | null;
  readonly title: string;
  readonly explanation: string;
  readonly severity: Severity;
  /** May be folded into an equal recent step of the same group. */
  readonly foldable?: boolean;
}

export interface TimelineEntry extends Omit<TimelineInput, 'foldable'> {
  readonly id: number;
  readonly count: number;
  readonly lastTime: string;
}

/** How many recent steps of a group a repeated read may fold into. */
const FOLD_WINDOW = 6;

export class Timeline {
  readonly #entries: TimelineEntry[] = [];
  readonly #listeners = new Set<(e: TimelineEntry) => void>();
  readonly #max: number;
  #seq = 0;

  constructor(opts: { max?: number } = {}) {
    this.#max = opts.max ?? 2000;
  }

  /** Adds a step (or folds it) and tells every listener; returns the stored entry. */
  add(input: TimelineInput): TimelineEntry {
    const folded = input.foldable ? this.#fold(input) : undefined;
    const { foldable: _f, ...rest } = input;
    const entry = folded ?? { ...rest, id: ++this.#seq, count: 1, lastTime: input.time };
    if (!folded) {
      this.#entries.push(entry);
      if (this.#entries.length > this.#max) this.#entries.shift();
    }
    for (const l of this.#listeners) l(entry);
    return entry;
  }

  /** Entries in order; `afterId` returns only newer ones (and folded updates are not replayed). */
  list(afterId = 0): TimelineEntry[] {
    return this.#entries.filter((e) => e.id > afterId);
  }

  subscribe(fn: (e: TimelineEntry) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  clear(): void {
    this.#entries.length = 0;
  }

  #fold(input: TimelineInput): TimelineEntry | undefined {
    let seen = 0;
    for (let i = this.#entries.length - 1; i >= 0 && seen < FOLD_WINDOW; i--) {
      const e = this.#entries[i]!;
      if (e.group !== input.group) continue;
      seen++;
      if (e.title === input.title && e.method === input.method && e.source === input.source) {
        const updated = { ...e, count: e.count + 1, lastTime: input.time };
        this.#entries[i] = updated;
        return updated;
      }
    }
    return undefined;
  }
}
