// The data plane's UDP listeners over real loopback sockets: datagrams forwarded per client flow, the
// answers sent back from the VIP, flows spread over the targets, the firewall and passthrough.
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { dataPlaneFor, startUdpBackends, udpClient } from '../../simulator/server/dataplane/test-support/harness.ts';
import type { DataPlaneHealthCheck, DataPlaneLoadBalancer } from '../../simulator/server/dataplane/types.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(over: Partial<DataPlaneLoadBalancer> = {}, check: DataPlaneHealthCheck['protocol'] = 'none') {
  const backends = await startUdpBackends(2);
  cleanups.push(() => Promise.all(backends.map((b) => b.stop())).then(() => undefined));
  const healthCheck = { protocol: check, port: null, path: '/', intervalMs: 50, timeoutMs: 500, retries: 1 };
  const { vip, port, dp, lb, errors } = await dataPlaneFor(backends, { protocol: 'udp', proxyProtocol: 'none', healthCheck }, over);
  cleanups.push(() => dp.close());
  expect(errors).toEqual([]);
  await waitFor(() => dp.health(lb.id).filter((h) => h.status === 'healthy').length === 2 || undefined, {
    timeoutMs: 5000,
    description: 'both targets healthy',
  });
  const client = async (from?: string) => {
    const c = await udpClient(from);
    cleanups.push(() => c.close());
    return c;
  };
  return { backends, vip, port, dp, lb, client };
}

describe('DataPlane UDP', () => {
  it('forwards a flow to one target and its answers back from the VIP, and spreads new flows round robin', async () => {
    const { vip, port, dp, lb, client } = await setup();
    const a = await client();
    const first = await a.ask(vip, port, 'one');
    expect(first).toMatch(/^u[01]:one$/);
    // The same flow stays on its target.
    expect(await a.ask(vip, port, 'two')).toBe(`${first!.split(':')[0]}:two`);
    const b = await client();
    const other = await b.ask(vip, port, 'three');
    expect(other?.split(':')[0]).not.toBe(first!.split(':')[0]);
    const counters = [...dp.counters(lb.id).values()];
    expect(counters.reduce((n, c) => n + c.connections, 0)).toBe(2);
    expect(counters.reduce((n, c) => n + c.bytesIn, 0)).toBe('onetwothree'.length);
  });

  it('keeps a client address on one target under source_ip affinity, across flows', async () => {
    const { vip, port, client } = await setup({ sessionAffinity: 'source_ip' });
    const answers = await Promise.all([0, 1, 2].map(async () => (await (await client('127.0.0.1')).ask(vip, port, 'x'))?.split(':')[0]));
    expect(new Set(answers).size).toBe(1);
  });

  it('drops datagrams from a source outside the allowed CIDRs, and counts them', async () => {
    const { vip, port, dp, lb, client } = await setup({ allowedSourceCidrs: ['127.0.0.7/32'] });
    expect(await (await client('127.0.0.7')).ask(vip, port, 'in')).toMatch(/:in$/);
    const outside = await client('127.0.0.8');
    void outside.ask(vip, port, 'out', 100);
    await waitFor(() => dp.stats(lb.id).denied === 1 || undefined, { timeoutMs: 2000, description: 'one denied datagram' });
  });

  it('sends from the VIP when passthrough, so the target reads which VIP it was for', async () => {
    const { vip, port, backends, client } = await setup({ forwarding: 'passthrough' });
    expect(await (await client()).ask(vip, port, 'p')).toMatch(/:p$/);
    expect(backends.flatMap((b) => b.senders).map((s) => s.split(':')[0])).toEqual([vip]);
  });

  it('rebinds a listener whose transport changes from UDP to TCP on the same port', async () => {
    const { dp, lb } = await setup();
    const tcp = {
      ...lb,
      listeners: lb.listeners.map((l) => ({ ...l, protocol: 'tcp' as const, healthCheck: { ...l.healthCheck, protocol: 'tcp' as const } })),
    };
    expect((await dp.apply([tcp])).errors).toEqual([]);
    expect(dp.listening(lb.id)).toEqual([lb.listeners[0]!.listenPort]);
  });
});
