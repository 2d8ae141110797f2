// Data plane over real loopback sockets: PROXY protocol v1/v2, source-CIDR firewall, source-IP
// affinity and least connections.
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { DataPlane } from '../../simulator/server/dataplane/data-plane.ts';
import { dataPlaneFor, freeVip, hold, request, rnd, startBackend, startBackends, type Backend } from '../../simulator/server/dataplane/test-support/harness.ts';
import { parseProxyHeader } from '../../simulator/api/proxy-protocol.ts';
import type { DataPlaneLoadBalancer } from '../../simulator/server/dataplane/types.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(count: number, over: Partial<DataPlaneLoadBalancer> = {}, proxyProtocol: 'none' | 'v1' | 'v2' = 'none') {
  const backends = await startBackends(count);
  cleanups.push(() => Promise.all(backends.map((b) => b.stop())).then(() => undefined));
  const healthCheck = { protocol: 'tcp' as const, port: null, path: '/', intervalMs: 100, timeoutMs: 1000, retries: 2 };
  const { vip, port, dp, lb, errors } = await dataPlaneFor(backends, { protocol: 'tcp', proxyProtocol, healthCheck }, over);
  cleanups.push(() => dp.close());
  expect(errors).toEqual([]);
  return { backends, vip, port, dp, lb };
}

/** A client address outside 127.1/16 and 127.2/16 (VIPs and backends). */
const clientIp = (second: number): string => `127.${second}.${rnd(0, 255)}.${rnd(1, 254)}`;

describe('PROXY protocol', () => {
  for (const version of ['v1', 'v2'] as const) {
    it(`sends a ${version} header with the client and VIP addresses before the payload`, async () => {
      const { backends, vip, port } = await setup(1, {}, version);
      const src = clientIp(4);
      const r = await request(vip, port, 'payload-bytes', src);
      expect(r.ok, r.error).toBe(true);
      const raw = backends[0]!.received.at(-1)!;
      const header = parseProxyHeader(raw);
      expect(header).toMatchObject({ version: version === 'v1' ? 1 : 2, protocol: 'TCP4', srcAddress: src, dstAddress: vip, dstPort: port });
      expect(header!.srcPort).toBeGreaterThan(0);
      expect(raw.subarray(header!.length).toString()).toBe('payload-bytes');
      expect(r.data).toBe(`b0:${raw.toString('latin1')}`);
    });
  }

  it('sends no header when disabled', async () => {
    const { backends, vip, port } = await setup(1);
    await request(vip, port, 'plain', clientIp(4));
    expect(backends[0]!.received.map(String)).toEqual(['plain']);
  });
});

describe('firewall', () => {
  it('refuses sources outside the allowed CIDRs at accept and counts them', async () => {
    const allowed = clientIp(5);
    const { backends, vip, port, dp, lb } = await setup(1, { allowedSourceCidrs: [`${allowed}/32`, '10.0.0.0/8'] });
    expect((await request(vip, port, 'in', allowed)).data).toBe('b0:in');
    const denied = await request(vip, port, 'out', clientIp(6));
    expect(denied.ok).toBe(false);
    expect(denied.error).toBe('ECONNRESET');
    expect(dp.stats(lb.id).denied).toBe(1);
    expect(backends[0]!.received.map(String)).toEqual(['in']);
    expect(await dp.apply([{ ...lb, allowedSourceCidrs: null }])).toEqual({ errors: [] });
    expect((await request(vip, port, 'now', clientIp(6))).data).toBe('b0:now');
  });

  it('reports invalid CIDRs and still enforces the valid ones', async () => {
    const { vip, port, dp, lb } = await setup(1);
    const { errors } = await dp.apply([{ ...lb, allowedSourceCidrs: ['bogus', '127.7.0.0/16'] }]);
    expect(errors).toEqual([{ lbId: lb.id, listenPort: port, message: 'invalid source CIDRs ignored: bogus' }]);
    expect((await request(vip, port, 'a', clientIp(7))).ok).toBe(true);
    expect((await request(vip, port, 'b', clientIp(8))).ok).toBe(false);
  });
});

describe('target selection', () => {
  it('pins a source IP to one target with source_ip affinity', async () => {
    const { vip, port } = await setup(3, { sessionAffinity: 'source_ip' });
    const seen = new Set<string>();
    for (let c = 0; c < 8; c++) {
      const src = clientIp(9);
      const names = new Set<string>();
      for (let i = 0; i < 3; i++) names.add((await request(vip, port, 'x', src)).data.split(':')[0]!);
      expect(names.size).toBe(1);
      seen.add([...names][0]!);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('sends new connections to the target with the fewest active ones', async () => {
    const { backends, vip, port, dp, lb } = await setup(2, { algorithm: 'least_connections' });
    const held: net.Socket[] = [await hold(vip, port)];
    cleanups.push(() => {
      for (const s of held) s.destroy();
    });
    await waitFor(() => dp.counters(lb.id).get('b0')?.activeConnections === 1, { timeoutMs: 3_000, intervalMs: 10, description: 'held connection on b0' });
    const names: string[] = [];
    for (let i = 0; i < 4; i++) names.push((await request(vip, port, 'x')).data.split(':')[0]!);
    expect(names).toEqual(['b1', 'b1', 'b1', 'b1']);
    held.push(await hold(vip, port));
    await waitFor(() => dp.counters(lb.id).get('b1')?.activeConnections === 1, {
      timeoutMs: 3_000,
      intervalMs: 10,
      description: 'second held connection on b1',
    });
    expect(backends.map((b) => b.received.length)).toEqual([0, 4]);
  });
});

describe('forwarding edge cases', () => {
  it('resets the client when the chosen target refuses, and counts the attempt', async () => {
    const { backends, vip, port, dp, lb } = await setup(1);
    const closedPort = await freeVip().then((v) => v.port);
    const listener = { ...lb.listeners[0]!, destinationPort: closedPort, healthCheck: { ...lb.listeners[0]!.healthCheck, port: backends[0]!.port } };
    expect(await dp.apply([{ ...lb, listeners: [listener] }])).toEqual({ errors: [] });
    await waitFor(() => dp.health(lb.id)[0]?.status === 'healthy', { timeoutMs: 3_000, intervalMs: 10, description: 'healthy via the health check port' });
    const r = await request(vip, port, 'x');
    expect(r.ok).toBe(false);
    await waitFor(() => dp.counters(lb.id).get('b0')?.activeConnections === 0, { timeoutMs: 3_000, intervalMs: 10, description: 'attempt closed' });
    expect(dp.counters(lb.id).get('b0')).toMatchObject({ connections: 1, bytesIn: 0, bytesOut: 0 });
  });

  it('carries a large payload both ways with backpressure and exact byte counters', async () => {
    const { vip, port, dp, lb } = await setup(1);
    const payload = 'z'.repeat(4 * 1024 * 1024);
    const r = await request(vip, port, payload);
    expect(r.data.length).toBe(payload.length + 3);
    await waitFor(() => dp.counters(lb.id).get('b0')?.activeConnections === 0, { timeoutMs: 3_000, intervalMs: 10, description: 'closed' });
    expect(dp.counters(lb.id).get('b0')).toEqual({ connections: 1, activeConnections: 0, bytesIn: payload.length, bytesOut: payload.length + 3 });
  });
});

describe('IPv6 loopback', () => {
  it('forwards on an ::1 VIP and sends a TCP6 v2 header', async (ctx) => {
    let backend: Backend;
    try {
      backend = await startBackend('v6', '::1', 0);
    } catch {
      ctx.skip();
      return;
    }
    cleanups.push(() => backend.stop());
    const probe = await startBackend('free', '::1', 0);
    const listenPort = probe.port;
    await probe.stop();
    const dp = new DataPlane({ onHealthChange: () => undefined });
    cleanups.push(() => dp.close());
    const lb: DataPlaneLoadBalancer = {
      id: 'lb-v6',
      vip: '::1',
      algorithm: 'round_robin',
      sessionAffinity: 'none',
      allowedSourceCidrs: ['::1/128'],
      listeners: [
        {
          protocol: 'https',
          listenPort,
          destinationPort: backend.port,
          proxyProtocol: 'v2',
          healthCheck: { protocol: 'tcp', port: null, path: '/', intervalMs: 100, timeoutMs: 1000, retries: 2 },
        },
      ],
      targets: [{ id: 'v6', ip: '::1' }],
    };
    expect(await dp.apply([lb])).toEqual({ errors: [] });
    const r = await request('::1', listenPort, 'six');
    expect(r.ok, r.error).toBe(true);
    const raw = backend.received.at(-1)!;
    const header = parseProxyHeader(raw)!;
    expect(header).toMatchObject({ version: 2, protocol: 'TCP6', srcAddress: '0:0:0:0:0:0:0:1', dstAddress: '0:0:0:0:0:0:0:1', dstPort: listenPort });
    expect(raw.subarray(header.length).toString()).toBe('six');
  });
});
