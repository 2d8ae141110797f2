import type { ErrorCallback, ObjectCallback, V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from './clock.ts';
import { SupervisedInformer, type ListWatchSource } from './informer.ts';

const logger = pino({ level: 'silent' });

type Callback = (arg?: unknown) => void;

/** A scripted ListWatch: `start` "lists" the given objects, then the test drives events. */
class FakeListWatch implements ListWatchSource<V1Node> {
  readonly callbacks = new Map<string, Callback[]>();
  stopped = false;
  private readonly initial: V1Node[];
  private readonly failStart: boolean;
  constructor(initial: V1Node[], failStart = false) {
    this.initial = initial;
    this.failStart = failStart;
  }
  on(verb: 'add' | 'update' | 'delete' | 'change', cb: ObjectCallback<V1Node>): void;
  on(verb: 'error' | 'connect', cb: ErrorCallback): void;
  on(verb: string, cb: ObjectCallback<V1Node> | ErrorCallback): void {
    this.callbacks.set(verb, [...(this.callbacks.get(verb) ?? []), cb as Callback]);
  }
  emit(verb: string, arg?: unknown): void {
    for (const cb of this.callbacks.get(verb) ?? []) cb(arg);
  }
  start(): Promise<void> {
    this.emit('connect');
    if (this.failStart) {
      this.emit('error', new Error('connection refused'));
      return Promise.resolve();
    }
    for (const obj of this.initial) this.emit('add', obj);
    return Promise.resolve();
  }
  stop(): Promise<void> {
    this.stopped = true;
    return Promise.resolve();
  }
}

const node = (name: string, rv: string): V1Node => ({ metadata: { name, resourceVersion: rv } });

function setup(lists: Array<{ items: V1Node[]; fail?: boolean }>): {
  informer: SupervisedInformer<V1Node>;
  clock: FakeClock;
  sessions: FakeListWatch[];
  log: string[];
} {
  const clock = new FakeClock();
  const sessions: FakeListWatch[] = [];
  const informer = new SupervisedInformer<V1Node>({
    name: 'nodes',
    logger,
    clock,
    silenceLimitMs: 60_000,
    makeListWatch: () => {
      const next = lists[Math.min(sessions.length, lists.length - 1)]!;
      const lw = new FakeListWatch(next.items, next.fail);
      sessions.push(lw);
      return lw;
    },
  });
  const log: string[] = [];
  informer.addEventHandler(
    {
      onAdd: (n) => log.push(`add ${n.metadata?.name}@${n.metadata?.resourceVersion}`),
      onUpdate: (o, n) => log.push(`update ${o.metadata?.name}@${o.metadata?.resourceVersion}->${n.metadata?.resourceVersion}`),
      onDelete: (n) => log.push(`delete ${n.metadata?.name}`),
    },
    30_000,
  );
  return { informer, clock, sessions, log };
}

describe('SupervisedInformer', () => {
  it('syncs, delivers (old, new) on update and serves the cache', async () => {
    const { informer, sessions, log } = setup([{ items: [node('a', '1')] }]);
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    expect(await informer.waitForSync(ac.signal)).toBe(true);
    sessions[0]!.emit('update', node('a', '2'));
    sessions[0]!.emit('delete', node('a', '2'));
    expect(log).toEqual(['add a@1', 'update a@1->2', 'delete a']);
    expect(informer.list()).toEqual([]);
    ac.abort();
    await running;
    expect(sessions[0]!.stopped).toBe(true);
  });

  it('caches and delivers objects without managedFields, as upstream informers trim them', async () => {
    const withFields = (rv: string): V1Node => ({
      metadata: { name: 'a', resourceVersion: rv, managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': {} } }] },
    });
    const { informer, sessions } = setup([{ items: [withFields('1')] }]);
    const delivered: V1Node[] = [];
    informer.addEventHandler({ onAdd: (n) => delivered.push(n), onUpdate: (_, n) => delivered.push(n) });
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    expect(await informer.waitForSync(ac.signal)).toBe(true);
    sessions[0]!.emit('update', withFields('2'));
    expect(delivered.map((n) => [n.metadata?.resourceVersion, n.metadata?.managedFields])).toEqual([
      ['1', undefined],
      ['2', undefined],
    ]);
    expect(informer.get('a')?.metadata).toEqual({ name: 'a', resourceVersion: '2' });
    ac.abort();
    await running;
  });

  it('restarts after an error with backoff and reports objects that vanished meanwhile as deletes', async () => {
    const { informer, clock, sessions, log } = setup([{ items: [node('a', '1'), node('b', '1')] }, { items: [node('a', '3')] }]);
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    await flushMicrotasks();
    sessions[0]!.emit('error', new Error('reset'));
    await clock.advance(999);
    expect(sessions).toHaveLength(1);
    await clock.advance(1);
    expect(sessions).toHaveLength(2);
    expect(log).toEqual(['add a@1', 'add b@1', 'update a@1->3', 'delete b']);
    expect(informer.get('a')?.metadata?.resourceVersion).toBe('3');
    ac.abort();
    await running;
  });

  it('backs off exponentially while the list keeps failing (1 s, 2 s, 4 s ...)', async () => {
    const { informer, clock, sessions } = setup([{ items: [], fail: true }]);
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    await flushMicrotasks();
    expect(informer.hasSynced()).toBe(false);
    await clock.advance(1000);
    expect(sessions).toHaveLength(2);
    await clock.advance(1999);
    expect(sessions).toHaveLength(2);
    await clock.advance(1);
    expect(sessions).toHaveLength(3);
    ac.abort();
    await running;
    expect(await informer.waitForSync(ac.signal)).toBe(false);
  });

  it('relists when silent too long', async () => {
    const { informer, clock, sessions } = setup([{ items: [node('a', '1')] }]);
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    await flushMicrotasks();
    await clock.advance(59_000);
    sessions[0]!.emit('connect');
    await clock.advance(59_000);
    expect(sessions).toHaveLength(1);
    await clock.advance(2_000);
    await clock.advance(1_000);
    expect(sessions).toHaveLength(2);
    ac.abort();
    await running;
  });

  it('resyncs every handler period with update(obj, obj)', async () => {
    const { informer, clock, log } = setup([{ items: [node('a', '1')] }]);
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    await flushMicrotasks();
    await clock.advance(30_000);
    expect(log).toEqual(['add a@1', 'update a@1->1']);
    ac.abort();
    await running;
  });
});
