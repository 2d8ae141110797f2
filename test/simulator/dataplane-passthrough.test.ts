// Data plane forwarding: a passthrough (network) load balancer hands a target the connection as addressed
// to its VIP, which on loopback means from the VIP's address to target:destinationPort; a proxy load
// balancer connects from the host's own address. The local runtime's kube-proxy stand-in tells LoadBalancer
// ingress IPs apart by that address.
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { DataPlane } from '../../simulator/server/dataplane/data-plane.ts';
import { freeVip, request } from '../../simulator/server/dataplane/test-support/harness.ts';
import type { DataPlaneLoadBalancer } from '../../simulator/server/dataplane/types.ts';
import { startSimcloudOnOwnPlan } from '../helpers/simcloud.ts';
import { serverBody, tcpService, unique } from './support.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A target on `ip` that answers every connection with the address it came from. */
async function peerEcho(ip: string): Promise<number> {
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    s.on('error', () => undefined);
    s.on('data', () => undefined);
    s.on('end', () => s.end(`${s.remoteAddress}>${s.localAddress}:${s.localPort}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: ip, port: 0, exclusive: true }, () => resolve());
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

async function lbWith(forwarding: DataPlaneLoadBalancer['forwarding'], targetIp: string, port: number): Promise<{ vip: string; listenPort: number }> {
  const { vip, port: listenPort } = await freeVip();
  const dp = new DataPlane({ onHealthChange: () => undefined });
  cleanups.push(() => dp.close());
  const lb: DataPlaneLoadBalancer = {
    id: `lb-${vip}`,
    vip,
    algorithm: 'round_robin',
    sessionAffinity: 'none',
    allowedSourceCidrs: null,
    listeners: [
      {
        protocol: 'tcp',
        listenPort,
        destinationPort: port,
        proxyProtocol: 'none',
        healthCheck: { protocol: 'tcp', port: null, path: '/', intervalMs: 100, timeoutMs: 1000, retries: 2 },
      },
    ],
    targets: [{ id: 't', ip: targetIp }],
    ...(forwarding === undefined ? {} : { forwarding }),
  };
  expect(await dp.apply([lb])).toEqual({ errors: [] });
  return { vip, listenPort };
}

describe('data plane forwarding', () => {
  it('passthrough: the target is reached on its destination port from the VIP', async () => {
    const targetIp = '127.2.0.41';
    const port = await peerEcho(targetIp);
    const { vip, listenPort } = await lbWith('passthrough', targetIp, port);
    const r = await request(vip, listenPort, 'x', '127.4.0.9');
    expect(r.ok, r.error).toBe(true);
    expect(r.data).toBe(`${vip}>${targetIp}:${port}`);
  });

  it('proxy (and no forwarding given): the target is reached from the host, not from the VIP', async () => {
    const targetIp = '127.2.0.42';
    const port = await peerEcho(targetIp);
    for (const forwarding of ['proxy', undefined] as const) {
      const { vip, listenPort } = await lbWith(forwarding, targetIp, port);
      const r = await request(vip, listenPort, 'x', '127.4.0.9');
      expect(r.ok, r.error).toBe(true);
      expect(r.data?.split('>')[0]).not.toBe(vip);
    }
  });
});

describe('a /v1 load balancer with forwarding passthrough', () => {
  it('is created and updated with its forwarding mode, and reaches its server from the VIP once passthrough', async () => {
    const sc = await startSimcloudOnOwnPlan();
    cleanups.push(() => sc.stop());
    const { server, action } = await sc.client.servers.create(serverBody({}));
    await sc.client.waitForAction(action.id);
    const port = await peerEcho(server.public_ipv4!);
    const listenPort = randomInt(30_000, 40_000);
    const created = await sc.client.loadBalancers.create({
      name: unique('lb'),
      services: [tcpService(listenPort, port)],
      targets: [{ kind: 'server', server_id: server.id }],
    });
    await sc.client.waitForAction(created.action.id);
    const vip = created.load_balancer.public_ipv4;
    expect(created.load_balancer.forwarding).toBe('proxy');
    const from = async (): Promise<string | undefined> => (await request(vip, listenPort, 'x', '127.0.0.1')).data?.split('>')[0];
    expect(await waitFor(from, { timeoutMs: 10_000, description: 'an answer through the proxy' })).not.toBe(vip);
    expect((await sc.client.loadBalancers.update(created.load_balancer.id, { forwarding: 'passthrough' })).forwarding).toBe('passthrough');
    expect(await waitFor(async () => ((await from()) === vip ? vip : undefined), { timeoutMs: 10_000, description: 'the VIP as the peer' })).toBe(vip);
  });
});
