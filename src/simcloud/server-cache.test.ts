import { describe, expect, it } from 'vitest';
import type { Server } from '../../simulator/api/schema/index.ts';
import { FakeClock, flushMicrotasks } from '../kube/clock.ts';
import { freshServerLookup, ServerCache, type ServerLister } from './server-cache.ts';

const server = (n: number): Server => ({
  id: `srv-${n}`,
  name: `worker-${n}`,
  status: 'running',
  server_type: 'sc-small',
  image: 'img',
  zone: 'z',
  region: 'r',
  labels: {},
  public_ipv4: null,
  public_ipv6: null,
  private_ipv4: `10.0.0.${n}`,
  private_networks: [],
  locked: false,
  created: new Date(1_700_000_000_000 + n).toISOString(),
});

function fakeCloud(initial: number): ServerLister & { servers: Server[]; calls: string[] } {
  const servers = Array.from({ length: initial }, (_, i) => server(i + 1));
  const calls: string[] = [];
  return {
    servers,
    calls,
    all: () => {
      calls.push('all');
      return Promise.resolve([...servers]);
    },
    newest: (count) => {
      calls.push(`newest ${count}`);
      const sorted = [...servers].reverse();
      return Promise.resolve({ servers: sorted.slice(0, count), more: sorted.length > count });
    },
  };
}

describe('ServerCache', () => {
  it('answers many lookups from one list', async () => {
    const cloud = fakeCloud(50);
    const cache = new ServerCache({ lister: cloud, clock: new FakeClock() });
    const found = await Promise.all(Array.from({ length: 50 }, (_, i) => cache.byName(`worker-${i + 1}`)));
    expect(found.every((s) => s !== undefined)).toBe(true);
    expect(await cache.byId('srv-7')).toMatchObject({ name: 'worker-7' });
    expect(cloud.calls).toEqual(['all']);
  });

  it('finds a server created after the snapshot with one incremental call, shared by a burst of misses', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(10);
    const cache = new ServerCache({ lister: cloud, clock, newestPage: 5 });
    await cache.byName('worker-1');
    await clock.advance(2000);
    cloud.servers.push(server(11), server(12));
    const both = Promise.all([cache.byName('worker-11'), cache.byName('worker-12')]);
    await clock.advance(1);
    expect((await both).map((s) => s?.id)).toEqual(['srv-11', 'srv-12']);
    expect(cloud.calls).toEqual(['all', 'newest 5']);
  });

  it('spaces refreshes by minIntervalMs and answers undefined only after a list taken after the lookup', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(3);
    const cache = new ServerCache({ lister: cloud, clock, minIntervalMs: 1000, refreshBurst: 1 });
    await cache.byName('worker-1');
    let answer: Server | undefined | null = null;
    void cache.byName('nope').then((s) => (answer = s));
    await flushMicrotasks();
    expect(answer).toBeNull();
    await clock.advance(1000);
    expect(answer).toBeUndefined();
    expect(cloud.calls).toEqual(['all', 'newest 100']);
  });

  it('lets a few refreshes start at once after a quiet spell, then spaces them by minIntervalMs', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(1);
    const cache = new ServerCache({ lister: cloud, clock, minIntervalMs: 1000, refreshBurst: 3 });
    await cache.byName('worker-1');
    for (const n of [2, 3]) {
      await clock.advance(50);
      cloud.servers.push(server(n));
      const found = cache.byName(`worker-${n}`);
      await clock.advance(1);
      expect(await found).toMatchObject({ id: `srv-${n}` });
    }
    await clock.advance(50);
    cloud.servers.push(server(4));
    let answer: Server | undefined | null = null;
    void cache.byName('worker-4').then((s) => (answer = s));
    await clock.advance(100);
    expect(answer).toBeNull();
    await clock.advance(1000);
    expect(answer).toMatchObject({ id: 'srv-4' });
    expect(cloud.calls).toEqual(['all', 'newest 100', 'newest 100', 'newest 100']);
  });

  it('relists everything when the snapshot is older than maxAgeMs, and when the newest page shows a gap', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(3);
    const cache = new ServerCache({ lister: cloud, clock, maxAgeMs: 30_000, newestPage: 2 });
    await cache.byName('worker-1');
    await clock.advance(31_000);
    await cache.byName('worker-2');
    expect(cloud.calls).toEqual(['all', 'all']);
    cloud.servers.push(server(4), server(5), server(6));
    await clock.advance(2000);
    const found = cache.byName('worker-4');
    await clock.advance(1);
    expect(await found).toMatchObject({ id: 'srv-4' });
    expect(cloud.calls).toEqual(['all', 'all', 'newest 2', 'all']);
  });

  it('relists a snapshot past its age at once, even while misses are being paced', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(2);
    const cache = new ServerCache({ lister: cloud, clock, minIntervalMs: 1000, refreshBurst: 1 });
    await cache.list(undefined, { maxAgeMs: 10_000 });
    await clock.advance(10_001);
    // A miss spends the pacing budget, as the node controller's misses do while nodes arrive.
    cloud.servers.push(server(3));
    const miss = cache.byName('worker-3');
    await clock.advance(1);
    expect(await miss).toMatchObject({ id: 'srv-3' });
    let listed: Server[] | undefined;
    void cache.list(undefined, { maxAgeMs: 10_000 }).then((l) => (listed = l));
    await flushMicrotasks();
    expect(listed).toHaveLength(3);
    expect(cloud.calls).toEqual(['all', 'newest 100', 'all']);
  });

  it('refreshes an unpaced miss at once while paced misses wait their turn', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(2);
    const cache = new ServerCache({ lister: cloud, clock, minIntervalMs: 1000, refreshBurst: 1 });
    await cache.byName('worker-1');
    await clock.advance(1000);
    // The node controller's miss spends the pacing budget.
    cloud.servers.push(server(3));
    const paced = cache.byName('worker-3');
    await clock.advance(1);
    expect(await paced).toMatchObject({ id: 'srv-3' });
    cloud.servers.push(server(4), server(5));
    let pacedAnswer: Server | undefined | null = null;
    let routeAnswer: Server | undefined | null = null;
    void cache.byName('worker-4').then((s) => (pacedAnswer = s));
    void cache.byName('worker-5', undefined, { paced: false }).then((s) => (routeAnswer = s));
    await clock.advance(1);
    expect(routeAnswer).toMatchObject({ id: 'srv-5' });
    expect(pacedAnswer).toBeNull();
    // At its turn, the paced miss finds its server in the unpaced refresh (started after it asked): no call of its own.
    await clock.advance(1000);
    expect(pacedAnswer).toMatchObject({ id: 'srv-4' });
    expect(cloud.calls).toEqual(['all', 'newest 100', 'newest 100']);
  });

  it('refreshes an unpaced listing at once after paced misses have spent the burst', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(2);
    const cache = new ServerCache({ lister: cloud, clock, minIntervalMs: 1000, refreshBurst: 1 });
    await cache.list();
    await clock.advance(1000);
    cloud.servers.push(server(3));
    const paced = cache.byName('worker-3');
    await clock.advance(1);
    expect(await paced).toMatchObject({ id: 'srv-3' });
    cloud.servers.push(server(4));
    let listed: Server[] | undefined;
    void cache.list(undefined, { complete: (l) => l.some((s) => s.id === 'srv-4'), paced: false }).then((l) => (listed = l));
    await clock.advance(1);
    expect(listed).toHaveLength(4);
    expect(cloud.calls).toEqual(['all', 'newest 100', 'newest 100']);
  });

  it('list() keeps an old snapshot when it is complete, refreshes when it is not', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(2);
    const cache = new ServerCache({ lister: cloud, clock });
    const hasAll = (ips: string[]) => (servers: readonly Server[]) => ips.every((ip) => servers.some((s) => s.private_ipv4 === ip));
    expect(await cache.list(undefined, { maxAgeMs: 300_000 })).toHaveLength(2);
    await clock.advance(60_000);
    expect(await cache.list(undefined, { maxAgeMs: 300_000, complete: hasAll(['10.0.0.1']) })).toHaveLength(2);
    cloud.servers.push(server(3));
    const listed = cache.list(undefined, { maxAgeMs: 300_000, complete: hasAll(['10.0.0.3']) });
    await clock.advance(1);
    expect(await listed).toHaveLength(3);
    expect(cloud.calls).toEqual(['all', 'newest 100']);
  });

  it('shares a full list already in flight with a later ask for a fresh snapshot (controllers starting together)', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(3);
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const cache = new ServerCache({ lister: { ...cloud, all: async () => (await gate, cloud.all()) }, clock });
    const first = cache.byName('worker-1');
    await clock.advance(5);
    let listed: Server[] | undefined;
    void cache.list(undefined, { maxAgeMs: 300_000 }).then((l) => (listed = l));
    release();
    await flushMicrotasks();
    expect(await first).toMatchObject({ id: 'srv-1' });
    expect(listed).toHaveLength(3);
    expect(cloud.calls).toEqual(['all']);
  });

  it('passes a failed refresh to the caller, and the next lookup tries again', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(1);
    let fail = true;
    const cache = new ServerCache({ lister: { ...cloud, all: () => (fail ? Promise.reject(new Error('server_error')) : cloud.all()) }, clock });
    await expect(cache.byName('worker-1')).rejects.toThrow('server_error');
    fail = false;
    await clock.advance(1000);
    expect(await cache.byName('worker-1')).toMatchObject({ id: 'srv-1' });
  });
});

describe('freshServerLookup', () => {
  it('answers power state from one recent list and asks the API directly for a server missing from it', async () => {
    const clock = new FakeClock();
    const cloud = fakeCloud(3);
    const cache = new ServerCache({ lister: cloud, clock });
    const direct: string[] = [];
    const lookup = freshServerLookup(
      cache,
      {
        getServer: (id) => {
          direct.push(id);
          return Promise.resolve(undefined);
        },
        findServerByName: () => Promise.resolve(undefined),
      },
      2000,
    );
    expect((await lookup.getServer('srv-1'))?.status).toBe('running');
    expect((await lookup.getServer('srv-2'))?.name).toBe('worker-2');
    expect(await lookup.getServer('srv-9')).toBeUndefined();
    expect(cloud.calls).toEqual(['all']);
    expect(direct).toEqual(['srv-9']);
    await clock.advance(2500);
    await lookup.getServer('srv-1');
    expect(cloud.calls).toEqual(['all', 'all']);
  });
});
