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
});
