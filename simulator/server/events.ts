/** The event bus behind `/_sim/events`: API calls, resource changes and target health, numbered, with a replay buffer. */
import type { SimEvent } from '../api/schema/events.ts';

/** An event before the bus numbers and stamps it (distributed over the union, so each shape stays itself). */
export type SimEventInput = SimEvent extends infer E ? (E extends unknown ? Omit<E, 'seq' | 'time'> : never) : never;

export class EventBus {
  readonly #buffer: SimEvent[] = [];
  readonly #size: number;
  readonly #subscribers = new Set<(e: SimEvent) => void>();
  readonly #now: () => number;
  #seq = 0;

  constructor(opts: { size: number; now: () => number }) {
    this.#size = opts.size;
    this.#now = opts.now;
  }

  publish(input: SimEventInput): void {
    if (this.#subscribers.size === 0 && this.#size === 0) return;
    const event = { ...input, seq: ++this.#seq, time: new Date(this.#now()).toISOString() };
    this.#buffer.push(event);
    if (this.#buffer.length > this.#size) this.#buffer.shift();
    for (const s of this.#subscribers) s(event);
  }

  /** Events after `seq` still in the buffer. */
  since(seq: number): SimEvent[] {
    return this.#buffer.filter((e) => e.seq > seq);
  }

  subscribe(fn: (e: SimEvent) => void): () => void {
    this.#subscribers.add(fn);
    return () => this.#subscribers.delete(fn);
  }
}
