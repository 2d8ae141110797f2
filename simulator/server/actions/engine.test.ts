// The action engine on a simulated clock that only moves by fast-forward: stage walk, progress,
// per-type delay overrides, stuck transitions and resume after a restart.
import { describe, expect, it } from 'vitest';
import { SimClock } from '../clock.ts';
import { FaultEngine } from '../faults.ts';
import { createMetrics } from '../metrics.ts';
import { LowdbStore } from '../store/lowdb-store.ts';
import type { ServerRec } from '../store/state.ts';
import { ActionEngine } from './engine.ts';

const server = (id: string): ServerRec => ({
  id,
  project_id: 'prj-1',
  name: id,
  status: 'initializing',
  server_type: 't',
  image: 'i',
  zone: 'z',
  region: 'r',
  labels: { app: 'x' },
  public_ipv4: null,
  public_ipv6: null,
  private_ipv4: null,
  private_networks: [],
  locked: true,
  created: '2026-01-01T00:00:00.000Z',
});

async function setup(delays = {}) {
  const store = await LowdbStore.open({ location: { kind: 'memory' } });
  const clock = new SimClock({ realNow: () => 0, start: 0 });
  const faults = new FaultEngine({ now: () => clock.now(), newId: () => 'flt-1' });
  const engine = new ActionEngine({ store, clock, faults, metrics: createMetrics(), delays, random: () => 0.5 });
  const start = async (id: string) => {
    const action = engine.begin({ command: 'create_server', projectId: 'prj-1', resourceId: id, id: `act-${id}` });
    await store.commit([
      { op: 'put', coll: 'servers', doc: server(id) },
      { op: 'put', coll: 'actions', doc: action },
    ]);
    engine.run(action);
    return action;
  };
  const settle = () => new Promise((r) => setImmediate(r));
  return { store, clock, faults, engine, start, settle };
}

describe('ActionEngine', () => {
  it('walks the stage table on simulated time, with progress and the lock', async () => {
    const { store, clock, start, settle } = await setup();
    await start('srv-1');
    const seen: string[] = [];
    for (const ms of [999, 1, 1000, 1000]) {
      clock.fastForward(ms);
      await settle();
      const s = store.state.servers['srv-1']!;
      seen.push(`${s.status}/${store.state.actions['act-srv-1']!.progress}/${s.locked}`);
    }
    expect(seen).toEqual(['initializing/0/true', 'starting/50/true', 'running/100/false', 'running/100/false']);
    expect(store.state.actions['act-srv-1']!.status).toBe('success');
    expect(store.state.actions['act-srv-1']!.finished).toBe(new Date(2000).toISOString());
  });

  it('ends a route action without rewriting its network: a stage that changes nothing on the resource writes nothing for it', async () => {
    const { store, clock, engine, settle } = await setup({ network: { delay_ms: 10, jitter_ms: 0 } });
    const routes = [{ id: 'rte-1', name: null, destination: '10.244.0.0/24', gateway: '10.0.0.2', created: '2026-01-01T00:00:00.000Z' }];
    const network = {
      id: 'net-1',
      project_id: 'prj-1',
      name: 'n',
      ip_range: '10.0.0.0/16',
      subnets: [],
      routes,
      labels: {},
      created: '2026-01-01T00:00:00.000Z',
    };
    const action = engine.begin({ command: 'add_route', projectId: 'prj-1', resourceId: 'net-1', id: 'act-1' });
    await store.commit([
      { op: 'put', coll: 'networks', doc: network },
      { op: 'put', coll: 'actions', doc: action },
    ]);
    const written: string[] = [];
    store.onChange((applied) => written.push(...applied.map((a) => `${a.coll}/${a.id}`)));
    engine.run(action);
    clock.fastForward(10);
    await settle();
    expect(store.state.actions['act-1']).toMatchObject({ status: 'success', progress: 100 });
    expect(written).toEqual(['actions/act-1']);
    expect(store.state.networks['net-1']).toBe(network);
  });

  it('uses per-type delay overrides', async () => {
    const { store, clock, start, settle } = await setup({ server: { delay_ms: 10, jitter_ms: 0 } });
    await start('srv-1');
    clock.fastForward(10);
    await settle();
    expect(store.state.servers['srv-1']!.status).toBe('starting');
    clock.fastForward(10);
    await settle();
    expect(store.state.servers['srv-1']!.status).toBe('running');
  });

  it('holds transitions while a stuck_transition rule matches', async () => {
    const { store, clock, faults, start, settle } = await setup({ server: { delay_ms: 10 } });
    const rule = faults.add({ kind: 'stuck_transition', match: { resource_type: 'server', label: 'app=x' } });
    await start('srv-1');
    clock.fastForward(60_000);
    await settle();
    expect(store.state.servers['srv-1']!.status).toBe('initializing');
    faults.remove(rule.id);
    for (let i = 0; i < 3; i++) {
      clock.fastForward(300);
      await settle();
    }
    expect(store.state.servers['srv-1']!.status).toBe('running');
  });

  it('resumes running actions from the resource status', async () => {
    const { store, clock, engine, start, settle } = await setup({ server: { delay_ms: 10 } });
    await start('srv-1');
    clock.fastForward(10);
    await settle();
    engine.cancelAll();
    expect(store.state.servers['srv-1']!.status).toBe('starting');
    engine.resumeAll();
    clock.fastForward(10);
    await settle();
    expect(store.state.servers['srv-1']!.status).toBe('running');
  });
});
