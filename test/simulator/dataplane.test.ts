// Data plane over real loopback sockets: forwarding, round robin, health checks, lifecycle.
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { DataPlane } from '../../simulator/server/dataplane/data-plane.ts';
import { realScheduler, type Scheduler } from '../../simulator/server/dataplane/health-checker.ts';
import { freeVip, hold, request, startBackend, startBackends, type Backend } from '../../simulator/server/dataplane/test-support/harness.ts';
import type { DataPlaneListener, DataPlaneLoadBalancer, TargetHealthChange } from '../../simulator/server/dataplane/types.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function listenerSpec(listenPort: number, destinationPort: number, over: Partial<DataPlaneListener> = {}): DataPlaneListener {
  return {
    protocol: 'tcp',
    listenPort,
    destinationPort,
    proxyProtocol: 'none',
    healthCheck: { protocol: 'tcp', port: null, path: '/', intervalMs: 50, timeoutMs: 1000, retries: 2 },
    ...over,
  };
}

async function setup(count = 3, over: Partial<DataPlaneListener> = {}) {
  const backends = await startBackends(count);
  cleanups.push(() => Promise.all(backends.map((b) => b.stop())).then(() => undefined));
  const { vip, port } = await freeVip();
  const events: TargetHealthChange[] = [];
  const dp = new DataPlane({ onHealthChange: (c) => events.push(c) });
  cleanups.push(() => dp.close());
  const lb: DataPlaneLoadBalancer = {
    id: `lb-${vip}`,
    vip,
    algorithm: 'round_robin',
    sessionAffinity: 'none',
    listeners: [listenerSpec(port, backends[0]!.port, over)],
    targets: backends.map((b) => ({ id: b.name, ip: b.ip })),
    allowedSourceCidrs: null,
  };
  return { backends, vip, port, dp, lb, events };
}

const statusOf = (dp: DataPlane, lbId: string, targetId: string) => dp.health(lbId).find((h) => h.targetId === targetId)?.status;

const allHealthy = (dp: DataPlane, lb: DataPlaneLoadBalancer) => () =>
  dp.health(lb.id).length === lb.targets.length && dp.health(lb.id).every((h) => h.status === 'healthy');

async function send(vip: string, port: number, n: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await request(vip, port, `req${i}`);
    expect(r.ok, r.error).toBe(true);
    names.push(r.data.split(':')[0]!);
  }
  return names;
}

describe('DataPlane forwarding', () => {
  it('forwards TCP to the backends in round robin and counts per target', async () => {
    const { vip, port, dp, lb } = await setup();
    expect(await dp.apply([lb])).toEqual({ errors: [] });
    const r = await request(vip, port, 'hello');
    expect(r).toEqual({ ok: true, data: 'b0:hello' });
    const names = await send(vip, port, 6);
    expect(names).toEqual(['b1', 'b2', 'b0', 'b1', 'b2', 'b0']);
    await waitFor(() => [...dp.counters(lb.id).values()].every((c) => c.activeConnections === 0), {
      timeoutMs: 3_000,
      intervalMs: 10,
      description: 'connections to close',
    });
    const c = dp.counters(lb.id);
    expect(c.get('b0')).toEqual({ connections: 3, activeConnections: 0, bytesIn: 'hello'.length + 8, bytesOut: 'b0:hello'.length + 14 });
    expect(c.get('b1')!.connections).toBe(2);
  });

  it('marks a stopped backend unhealthy, sends it nothing, and brings it back', async () => {
    const { backends, vip, port, dp, lb, events } = await setup();
    await dp.apply([lb]);
    await waitFor(allHealthy(dp, lb), { timeoutMs: 3_000, intervalMs: 10, description: 'all healthy' });
    const b1 = backends[1]!;
    await b1.stop();
    await waitFor(() => statusOf(dp, lb.id, 'b1') === 'unhealthy', { timeoutMs: 3_000, intervalMs: 10, description: 'b1 unhealthy' });
    expect(events).toContainEqual({ lbId: lb.id, listenPort: port, targetId: 'b1', status: 'unhealthy' });
    const names = await send(vip, port, 6);
    expect(names.filter((n) => n === 'b1')).toEqual([]);
    expect(new Set(names)).toEqual(new Set(['b0', 'b2']));
    backends[1] = await startBackend('b1', b1.ip, b1.port);
    await waitFor(() => statusOf(dp, lb.id, 'b1') === 'healthy', { timeoutMs: 3_000, intervalMs: 10, description: 'b1 healthy again' });
    expect(new Set(await send(vip, port, 3))).toEqual(new Set(['b0', 'b1', 'b2']));
  });

  it('resets connections at once when no target is healthy', async () => {
    const { backends, vip, port, dp, lb } = await setup(2);
    await dp.apply([lb]);
    await Promise.all(backends.map((b) => b.stop()));
    await waitFor(() => dp.health(lb.id).every((h) => h.status === 'unhealthy'), { timeoutMs: 3_000, intervalMs: 10, description: 'all unhealthy' });
    const r = await request(vip, port, 'x');
    expect(r.ok).toBe(false);
    expect(dp.stats(lb.id).noTarget).toBe(1);
  });

  it('runs HTTP health checks against the path and follows a changed check in place', async () => {
    const http = [await startBackend('h0', `127.2.${Math.floor(Math.random() * 256)}.200`, 0, 'http')];
    cleanups.push(() => http[0]!.stop());
    const { vip, port } = await freeVip();
    const events: TargetHealthChange[] = [];
    const dp = new DataPlane({ onHealthChange: (c) => events.push(c) });
    cleanups.push(() => dp.close());
    const hc = { protocol: 'http' as const, port: null, path: '/healthz', intervalMs: 50, timeoutMs: 1000, retries: 2 };
    const lb: DataPlaneLoadBalancer = {
      id: 'lb-http',
      vip,
      algorithm: 'round_robin',
      sessionAffinity: 'none',
      allowedSourceCidrs: null,
      listeners: [listenerSpec(port, http[0]!.port, { protocol: 'http', healthCheck: hc })],
      targets: [{ id: 'h0', ip: http[0]!.ip }],
    };
    await dp.apply([lb]);
    await waitFor(() => statusOf(dp, lb.id, 'h0') === 'healthy', { timeoutMs: 3_000, intervalMs: 10, description: 'http healthy' });
    const bad = { ...lb, listeners: [listenerSpec(port, http[0]!.port, { protocol: 'http', healthCheck: { ...hc, path: '/broken' } })] };
    expect(await dp.apply([bad])).toEqual({ errors: [] });
    await waitFor(() => statusOf(dp, lb.id, 'h0') === 'unhealthy', { timeoutMs: 3_000, intervalMs: 10, description: 'http unhealthy' });
    expect(events.map((e) => e.status)).toEqual(['healthy', 'unhealthy']);
  });
});

describe('DataPlane lifecycle', () => {
  it('apply() twice is a no-op and target changes keep established connections', async () => {
    const { backends, vip, port, dp, lb, events } = await setup(2);
    await dp.apply([lb]);
    await waitFor(allHealthy(dp, lb), { timeoutMs: 3_000, intervalMs: 10, description: 'all healthy' });
    const held = await hold(vip, port);
    const reply = new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      held.on('data', (c: Buffer) => chunks.push(c));
      held.on('end', () => resolve(Buffer.concat(chunks).toString()));
    });
    const before = events.length;
    expect(await dp.apply([structuredClone(lb)])).toEqual({ errors: [] });
    expect(await dp.apply([{ ...lb, targets: lb.targets.slice(1), algorithm: 'least_connections' }])).toEqual({ errors: [] });
    expect(events.length).toBe(before);
    held.end('still-here');
    expect(await reply).toBe('b0:still-here');
    expect(await send(vip, port, 2)).toEqual(['b1', 'b1']);
    expect([...dp.counters(lb.id).keys()]).toEqual(['b1']);
    expect(backends[0]!.received.map(String)).toContain('still-here');
  });

  it('removing an LB closes its listener and resets its connections', async () => {
    const { vip, port, dp, lb } = await setup(1);
    await dp.apply([lb]);
    const held = await hold(vip, port);
    const closed = new Promise((resolve) => held.once('close', resolve));
    held.on('error', () => undefined);
    expect(await dp.apply([])).toEqual({ errors: [] });
    await closed;
    expect((await request(vip, port, 'x')).error).toBe('ECONNREFUSED');
    expect(dp.health(lb.id)).toEqual([]);
    expect(dp.counters(lb.id).size).toBe(0);
  });

  it('moves a listener to a new port and reports bind failures without throwing', async () => {
    const { vip, port, dp, lb } = await setup(1);
    const other = await freeVip();
    const moved = { ...lb, listeners: [listenerSpec(other.port, lb.listeners[0]!.destinationPort)] };
    await dp.apply([lb]);
    expect(await dp.apply([moved])).toEqual({ errors: [] });
    expect((await request(vip, port, 'x')).error).toBe('ECONNREFUSED');
    expect(dp.listening(lb.id)).toEqual([other.port]);
    const clash = { ...moved, id: 'clash' };
    const bad = { ...moved, id: 'bad', vip: 'not-an-ip' };
    const { errors } = await dp.apply([moved, clash, bad]);
    expect(errors.map((e) => [e.lbId, e.listenPort])).toEqual([
      ['bad', other.port],
      ['clash', other.port],
    ]);
    expect(errors[1]!.message).toMatch(/EADDRINUSE/);
    expect((await request(vip, other.port, 'ok')).data).toBe('b0:ok');
  });

  it('rebinds on a VIP change, retries a failed bind on the next apply and serialises concurrent applies', async () => {
    const { port, dp, lb } = await setup(1);
    const blocker = await freeVip();
    const moved = { ...lb, vip: blocker.vip, listeners: [{ ...lb.listeners[0]!, listenPort: blocker.port }] };
    const squatter = { ...moved, id: 'squatter' };
    await dp.apply([lb]);
    expect(dp.listening(lb.id)).toEqual([port]);
    const [first, second] = await Promise.all([dp.apply([squatter]), dp.apply([squatter, moved])]);
    expect(first.errors).toEqual([]);
    expect(second.errors.map((e) => e.lbId)).toEqual([lb.id]);
    expect(dp.listening(lb.id)).toEqual([]);
    expect((await request(lb.vip, port, 'x')).error).toBe('ECONNREFUSED');
    expect(await dp.apply([moved])).toEqual({ errors: [] });
    expect(dp.listening(lb.id)).toEqual([blocker.port]);
    expect((await request(blocker.vip, blocker.port, 'moved')).data).toBe('b0:moved');
    expect((await request(lb.vip, port, 'x')).error).toBe('ECONNREFUSED');
  });

  it('close() leaves nothing open', async () => {
    const backends: Backend[] = await startBackends(2);
    cleanups.push(() => Promise.all(backends.map((b) => b.stop())).then(() => undefined));
    const baseline = process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length;
    const { vip, port } = await freeVip();
    const live = new Set<unknown>();
    const scheduler: Scheduler = {
      set: (fn, ms) => {
        const h = realScheduler.set(() => {
          live.delete(h);
          fn();
        }, ms);
        live.add(h);
        return h;
      },
      clear: (h) => {
        live.delete(h);
        realScheduler.clear(h);
      },
    };
    const dp = new DataPlane({ onHealthChange: () => undefined, scheduler });
    const lb: DataPlaneLoadBalancer = {
      id: 'lb-close',
      vip,
      algorithm: 'round_robin',
      sessionAffinity: 'none',
      allowedSourceCidrs: null,
      listeners: [listenerSpec(port, backends[0]!.port)],
      targets: backends.map((b) => ({ id: b.name, ip: b.ip })),
    };
    await dp.apply([lb]);
    const held = await hold(vip, port);
    held.on('error', () => undefined);
    await waitFor(() => backends.some((b) => b.open.size > 0), { timeoutMs: 3_000, intervalMs: 10, description: 'backend connection' });
    expect(live.size).toBeGreaterThan(0);
    await dp.close();
    expect(live.size).toBe(0);
    held.destroy();
    expect((await request(vip, port, 'x')).error).toBe('ECONNREFUSED');
    await waitFor(() => backends.every((b) => b.open.size === 0), { timeoutMs: 3_000, intervalMs: 10, description: 'backend sockets closed' });
    await waitFor(() => process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length <= baseline, {
      timeoutMs: 3_000,
      intervalMs: 10,
      description: 'no TCP handles left',
    });
    const accepted = backends.map((b) => b.accepted);
    expect((await dp.apply([lb])).errors[0]!.message).toBe('data plane is closed');
    expect((await request(vip, port, 'x')).error).toBe('ECONNREFUSED');
    expect(backends.map((b) => b.accepted)).toEqual(accepted);
  });
});
