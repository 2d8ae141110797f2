// A container's log as the kubelet serves it (GET /containerLogs, kubelet-api.ts): the bytes one run of the
// process wrote to its log file (runtime.ts appends every run of a container to one file, so a run is a byte
// range of it), cut by the kubelet's options: tailLines, sinceSeconds/sinceTime, timestamps, limitBytes and
// follow (new lines as they are written, until the run ends). The process writes the file itself (its
// stdout and stderr are the file), so a line's time is when the file was seen to grow past its first byte:
// LogIndex keeps those marks, fed by an fs watch and by every read.
import { closeSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import type { Clock } from '../../../src/kube/clock.ts';

export interface LogOptions {
  readonly follow?: boolean;
  /** The last N lines only (0: none of what is written so far). */
  readonly tailLines?: number | undefined;
  /** At most this many bytes in all, the timestamps included. */
  readonly limitBytes?: number | undefined;
  /** Each line prefixed with its time (RFC 3339, as Go's RFC3339Nano prints it) and a space. */
  readonly timestamps?: boolean;
  /** Lines written before this time (ms since the epoch) are left out. */
  readonly sinceMs?: number | undefined;
}

/** One run of a container: the byte range of the log file it wrote (`end` once it has exited). */
export interface LogRun {
  /** The container ID the kubelet reports for this run. */
  readonly containerId: string;
  readonly start: number;
  end: number | undefined;
  /** Settles once the run has ended and `end` is set. */
  readonly ended: Promise<void>;
}

/** A new run starting at the file's current end; `finish()` ends it at the file's end then. */
export function startRun(index: LogIndex, containerId: string): LogRun & { finish(): void } {
  let resolve: () => void = () => undefined;
  const ended = new Promise<void>((r) => (resolve = r));
  const run = {
    containerId,
    start: index.observe(),
    end: undefined as number | undefined,
    ended,
    finish(): void {
      if (run.end !== undefined) return;
      run.end = index.observe();
      resolve();
    },
  };
  return run;
}

/** When each byte of a log file was first seen: a mark (size, time) each time the file is seen to have grown. */
export class LogIndex {
  readonly file: string;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #marks: { size: number; at: number }[];
  readonly #listeners = new Set<() => void>();
  #watcher: FSWatcher | undefined;

  constructor(file: string, clock: Pick<Clock, 'now'>) {
    this.file = file;
    this.#clock = clock;
    // What is in the file already belongs to earlier runs (or earlier pods of the same name): never served.
    this.#marks = [{ size: fileSize(file), at: clock.now() }];
  }

  /** Looks at the file's size now; a growth is marked and announced. Answers the size. */
  observe(): number {
    const size = fileSize(this.file);
    const last = this.#marks.at(-1)!;
    if (size > last.size) {
      const at = this.#clock.now();
      // Growths seen within one millisecond are one mark: a chatty process's index stays small.
      if (at === last.at && this.#marks.length > 1) last.size = size;
      else this.#marks.push({ size, at });
      for (const fn of [...this.#listeners]) fn();
    }
    return Math.max(size, last.size);
  }

  /** When the byte at `offset` was first seen (now, if not yet). */
  timeOf(offset: number): number {
    const marks = this.#marks;
    let [lo, hi] = [0, marks.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid]!.size > offset) hi = mid;
      else lo = mid + 1;
    }
    return marks[lo]?.at ?? this.#clock.now();
  }

  /** Calls `fn` at each growth until the returned function is called. */
  onGrowth(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Observes the file on every change the kernel reports (inotify), so followers see lines as they come. */
  watch(): void {
    if (this.#watcher) return;
    this.#watcher = watch(this.file, { persistent: false }, () => this.observe());
    this.#watcher.on('error', () => this.close());
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function readRange(file: string, from: number, to: number): Buffer {
  if (to <= from) return Buffer.alloc(0);
  const buf = Buffer.alloc(to - from);
  const fd = openSync(file, 'r');
  try {
    let done = 0;
    while (done < buf.length) {
      const n = readSync(fd, buf, done, buf.length - done, from + done);
      if (n === 0) break;
      done += n;
    }
    return buf.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

const NEWLINE = 0x0a;

/** Where the last `n` lines of `buf` start (a last line without its newline counts). */
export function tailStart(buf: Buffer, n: number): number {
  if (n <= 0) return buf.length;
  let i = buf.length - 1;
  if (buf[i] === NEWLINE) i -= 1;
  for (let seen = 0; i >= 0; i -= 1) if (buf[i] === NEWLINE && ++seen === n) return i + 1;
  return 0;
}

/** Go's RFC3339Nano of a millisecond time: UTC, the fraction without its trailing zeros. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

export type LogSink = (chunk: Buffer) => void;

/**
 * Writes the run's log to `sink` as the kubelet would and resolves when done: at once, or with `follow` when
 * the run has ended (and its last bytes are written), the byte limit is reached or `signal` aborts.
 */
export async function streamLog(
  log: { readonly index: LogIndex; readonly run: LogRun },
  options: LogOptions,
  sink: LogSink,
  signal: AbortSignal,
): Promise<void> {
  const { index, run } = log;
  let budget = options.limitBytes ?? Infinity;
  /** Writes the whole lines of [from, to) (and a last partial one when `final`); answers where it stopped. */
  const write = (from: number, to: number, final: boolean): number => {
    const buf = readRange(index.file, from, to);
    let start = 0;
    while (start < buf.length && budget > 0) {
      const nl = buf.indexOf(NEWLINE, start);
      if (nl < 0 && !final) break;
      const end = nl < 0 ? buf.length : nl + 1;
      const at = index.timeOf(from + start);
      if (options.sinceMs === undefined || at >= options.sinceMs) {
        const line = options.timestamps ? Buffer.concat([Buffer.from(`${rfc3339Nano(at)} `), buf.subarray(start, end)]) : buf.subarray(start, end);
        const out = line.length > budget ? line.subarray(0, budget) : line;
        budget -= out.length;
        sink(out);
      }
      start = end;
    }
    return from + start;
  };
  const ended = (): boolean => run.end !== undefined;
  const upTo = (): number => run.end ?? index.observe();
  let end = upTo();
  let pos = run.start;
  if (options.tailLines !== undefined) pos += tailStart(readRange(index.file, run.start, end), options.tailLines);
  pos = write(pos, end, ended());
  if (!options.follow) return;
  while (budget > 0 && !signal.aborted) {
    if (ended()) {
      write(pos, run.end!, true);
      return;
    }
    // A partial last line waits for its end: only a growth past what was read is worth another look.
    const size = upTo();
    if (size > end) pos = write(pos, (end = size), false);
    else await nextChange(index, run, signal);
  }
}

/** Resolves at the log's next growth, the run's end or the abort, whichever comes first. */
function nextChange(index: LogIndex, run: LogRun, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      off();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const off = index.onGrowth(done);
    signal.addEventListener('abort', done, { once: true });
    void run.ended.then(done);
  });
}
