import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LowdbStore } from './lowdb-store.ts';
import { SCHEMA_VERSION, type Change } from './state.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'simcloud-store-'));
  dirs.push(d);
  return join(d, 'state.json');
}

const project = (i: number): Change => ({ op: 'put', coll: 'projects', doc: { id: `prj-${i}`, name: `p${i}`, created: '2026-01-01T00:00:00.000Z' } });

describe('LowdbStore', () => {
  it('coalesces a burst of 1000 commits into a few file writes, each acknowledged only when durable', async () => {
    const path = await tmp();
    const store = await LowdbStore.open({ location: { kind: 'file', path } });
    const before = store.stats().file_writes;
    await Promise.all(Array.from({ length: 1000 }, (_, i) => store.commit([project(i)])));
    const writes = store.stats().file_writes - before;
    expect(store.stats().writes).toBe(1000);
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThanOrEqual(5);
    await store.close();
    const reopened = await LowdbStore.open({ location: { kind: 'file', path } });
    expect(Object.keys(reopened.state.projects)).toHaveLength(1000);
    await reopened.close();
  });

  it('recovers from the journal, drops a torn last line, and compacts on open', async () => {
    const path = await tmp();
    const store = await LowdbStore.open({ location: { kind: 'file', path } });
    await store.commit([project(1)]);
    await store.commit([project(2), { op: 'del', coll: 'projects', id: 'prj-1' }]);
    const journal = (await readdir(join(path, '..'))).find((n) => n.includes('.wal-'))!;
    await appendFile(join(path, '..', journal), '{"seq":99,"changes":[{"op":"put","coll":"projects","doc":{"id":"prj-torn"');
    // No close(): the process "died".
    const reopened = await LowdbStore.open({ location: { kind: 'file', path } });
    expect(Object.keys(reopened.state.projects)).toEqual(['prj-2']);
    const doc = JSON.parse(await readFile(path, 'utf8')) as { projects: object; schema_version: number };
    expect(Object.keys(doc.projects)).toEqual(['prj-2']);
    expect(doc.schema_version).toBe(SCHEMA_VERSION);
    expect((await readdir(join(path, '..'))).filter((n) => n.includes('.wal-'))).toHaveLength(1);
    await reopened.close();
    await store.close(); // the "dead" store's journal handle, released only after the checks
  });

  it('refuses a journal line that is not a journal record, saying what is wrong, and keeps the files', async () => {
    const path = await tmp();
    const store = await LowdbStore.open({ location: { kind: 'file', path } });
    await store.commit([project(1)]);
    const journal = join(
      path,
      '..',
      (await readdir(join(path, '..'))).find((n) => n.includes('.wal-'))!,
    );
    await appendFile(journal, '{"seq":99,"changes":[{"op":"put","coll":"nowhere","doc":{"id":"x"}}]}\n');
    const before = await readFile(journal, 'utf8');
    await expect(LowdbStore.open({ location: { kind: 'file', path } })).rejects.toThrow(/not a journal record: changes\.0\.coll/);
    expect(await readFile(journal, 'utf8')).toBe(before);
    await store.close();
  });

  it('migrates a version 1 document', async () => {
    const path = await tmp();
    await writeFile(path, JSON.stringify({ projects: {}, ip_blocks: { 'ipb-1': { id: 'ipb-1', assigned_to: null } } }));
    const store = await LowdbStore.open({ location: { kind: 'file', path } });
    expect(store.state.schema_version).toBe(SCHEMA_VERSION);
    expect(store.state.pools.lb_vip).toBe('127.1.0.0/16');
    expect(store.state.ip_blocks['ipb-1']!.status).toBe('unassigned');
    await store.close();
  });

  it('refuses a document from a newer simcloud', async () => {
    const path = await tmp();
    await writeFile(path, JSON.stringify({ schema_version: SCHEMA_VERSION + 1 }));
    await expect(LowdbStore.open({ location: { kind: 'file', path } })).rejects.toThrow(/newer/);
  });

  it('tells listeners what changed, with before and after', async () => {
    const store = await LowdbStore.open({ location: { kind: 'memory' } });
    const seen: unknown[] = [];
    store.onChange((c) => seen.push(c.map((x) => [x.coll, x.id, x.before === undefined, x.after === undefined])));
    await store.commit([project(1)]);
    await store.commit([{ op: 'del', coll: 'projects', id: 'prj-1' }]);
    expect(seen).toEqual([[['projects', 'prj-1', true, false]], [['projects', 'prj-1', false, true]]]);
  });

  it('journals a route added to a network as that route alone, and replays the routes as they were', async () => {
    const path = await tmp();
    const store = await LowdbStore.open({ location: { kind: 'file', path }, compactBytes: 64 * 1024 * 1024 });
    const route = (i: number): Record<string, unknown> => ({
      id: `rte-${i}`,
      name: null,
      destination: `10.${i >> 8}.${i & 255}.0/24`,
      gateway: '10.0.0.2',
      created: '2026-01-01T00:00:00.000Z',
    });
    let net: { id: string; routes: Record<string, unknown>[] } & Record<string, unknown> = {
      id: 'net-1',
      name: 'n',
      ip_range: '10.0.0.0/8',
      subnets: [],
      routes: [],
      labels: {},
      created: '2026-01-01T00:00:00.000Z',
    };
    const put = (doc: typeof net): Promise<void> => store.commit([{ op: 'put', coll: 'networks', doc }]);
    await put(net);
    for (let i = 0; i < 500; i++) {
      net = { ...net, routes: [...net.routes, route(i)] };
      await put(net);
    }
    net = { ...net, routes: net.routes.filter((r) => r.id !== 'rte-7') };
    await put(net);
    // Changed in place, then put again: written whole, not as a tail of itself.
    net.routes.push(route(900));
    net = { ...net };
    await put(net);
    // Changed in place, then extended into a new array: also whole, since the journal never saw 902.
    net.routes.push(route(902));
    net = { ...net, routes: [...net.routes, route(903)] };
    await put(net);
    net = { ...net, routes: [...net.routes, route(901)] };
    await Promise.all([put(net), store.commit([project(1)])]);
    const journal = (await readdir(join(path, '..'))).find((n) => n.includes('.wal-'))!;
    const bytes = (await readFile(join(path, '..', journal))).length;
    // 500 routes journaled whole, one more each time, would be about 13 MB.
    expect(bytes).toBeLessThan(400_000);
    // No close(): the process "died"; the journal alone brings the routes back.
    const reopened = await LowdbStore.open({ location: { kind: 'file', path } });
    expect(reopened.state.networks['net-1']).toEqual(net);
    expect(reopened.state.networks['net-1']!.routes.map((r) => r.id)).toEqual([
      ...Array.from({ length: 500 }, (_, i) => `rte-${i}`).filter((id) => id !== 'rte-7'),
      'rte-900',
      'rte-902',
      'rte-903',
      'rte-901',
    ]);
    await reopened.close();
    await store.close(); // the "dead" store's journal handle, released only after the checks
  });
});
