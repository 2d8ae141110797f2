import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogIndex, rfc3339Nano, startRun, streamLog, tailStart, type LogOptions, type LogRun } from './logs.ts';

const T0 = Date.parse('2026-11-29T04:00:00.000Z');

describe('container logs', () => {
  let dir: string;
  let file: string;
  let now: number;
  let index: LogIndex;
  const clock = { now: (): number => now };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'logs-'));
    file = join(dir, 'ns_pod_c.log');
    now = T0;
    // A line of an earlier pod of the same name: never part of this container's log.
    writeFileSync(file, 'an earlier pod\n');
    index = new LogIndex(file, clock);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Appends `text` at `at` (ms after T0), seen by the index then. */
  const write = (text: string, at: number): void => {
    now = T0 + at;
    appendFileSync(file, text);
    index.observe();
  };

  const read = async (run: LogRun, options: LogOptions = {}): Promise<string> => {
    const chunks: Buffer[] = [];
    await streamLog({ index, run }, options, (c) => chunks.push(c), new AbortController().signal);
    return Buffer.concat(chunks).toString();
  };

  it('serves one run of the container: its own lines, a last partial one once the run has ended', async () => {
    const first = startRun(index, 'process://u/c/0');
    write('one\ntwo\n', 1000);
    first.finish();
    const second = startRun(index, 'process://u/c/1');
    write('three\nfour', 2000);
    expect(await read(first)).toBe('one\ntwo\n');
    expect(await read(second)).toBe('three\n');
    second.finish();
    expect(await read(second)).toBe('three\nfour');
  });

  it('keeps the last tailLines lines (0: none)', async () => {
    const run = startRun(index, 'id');
    write('a\nb\nc\n', 1000);
    expect(await read(run, { tailLines: 2 })).toBe('b\nc\n');
    expect(await read(run, { tailLines: 5 })).toBe('a\nb\nc\n');
    expect(await read(run, { tailLines: 0 })).toBe('');
    expect(tailStart(Buffer.from('a\nb\npartial'), 1)).toBe(4);
  });

  it('cuts at limitBytes, the timestamps counted', async () => {
    const run = startRun(index, 'id');
    write('hello\nworld\n', 1500);
    expect(await read(run, { limitBytes: 8 })).toBe('hello\nwo');
    expect(await read(run, { limitBytes: 31, timestamps: true })).toBe('2026-11-29T04:00:01.5Z hello\n20');
  });

  it('prefixes each line with the time it was written and leaves out those before sinceMs', async () => {
    const run = startRun(index, 'id');
    write('early\n', 1000);
    write('late\nlater\n', 61_000);
    expect(await read(run, { timestamps: true })).toBe('2026-11-29T04:00:01Z early\n2026-11-29T04:01:01Z late\n2026-11-29T04:01:01Z later\n');
    expect(await read(run, { sinceMs: T0 + 60_000 })).toBe('late\nlater\n');
    expect(await read(run, { sinceMs: T0 + 60_000, tailLines: 1 })).toBe('later\n');
  });

  it('follows new lines as they are written and ends when the run ends', async () => {
    const run = startRun(index, 'id');
    write('first\n', 1000);
    const chunks: string[] = [];
    let seen: () => void = () => undefined;
    const following = streamLog(
      { index, run },
      { follow: true },
      (c) => {
        chunks.push(c.toString());
        seen();
      },
      new AbortController().signal,
    );
    const next = (): Promise<void> => new Promise((r) => (seen = r));
    expect(chunks).toEqual(['first\n']);
    const second = next();
    write('second\nthird with', 2000);
    await second;
    expect(chunks.join('')).toBe('first\nsecond\n');
    write('out its end', 3000);
    run.finish();
    await following;
    expect(chunks.join('')).toBe('first\nsecond\nthird without its end');
  });

  it('ends a follow when its client goes away', async () => {
    const run = startRun(index, 'id');
    const abort = new AbortController();
    const following = streamLog({ index, run }, { follow: true }, () => undefined, abort.signal);
    abort.abort();
    await following;
    expect(run.end).toBeUndefined();
  });

  it('prints times as Go prints RFC3339Nano', () => {
    expect([T0, T0 + 120, T0 + 7].map(rfc3339Nano)).toEqual(['2026-11-29T04:00:00Z', '2026-11-29T04:00:00.12Z', '2026-11-29T04:00:00.007Z']);
  });
});
