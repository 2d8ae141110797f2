import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig, RequestContext, HttpMethod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from './clock.ts';
import { perControllerCoreClients, rateLimitedAuth } from './api-client.ts';
import { TokenBucket } from './token-bucket.ts';

describe('rate-limited API auth', () => {
  it('holds requests beyond the burst until the bucket refills, then applies the credentials', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: true }],
      users: [{ name: 'u', token: 'secret-token' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const clock = new FakeClock();
    const auth = rateLimitedAuth(kc, new TokenBucket(1, 2, clock));
    const contexts = [0, 1, 2].map(() => new RequestContext('https://127.0.0.1:6443/api/v1/nodes', HttpMethod.GET));
    const done: number[] = [];
    contexts.forEach((ctx, i) => void Promise.resolve(auth.applySecurityAuthentication(ctx)).then(() => done.push(i)));
    await flushMicrotasks();
    expect(done).toEqual([0, 1]);
    await clock.advance(1000);
    expect(done).toEqual([0, 1, 2]);
    expect(contexts[2]?.getHeaders().Authorization).toBe('Bearer secret-token');
  });
});

describe('perControllerCoreClients', () => {
  it('gives each controller its own budget: one spent bucket holds back only its own controller', async () => {
    const agents: string[] = [];
    const server = createServer((req, res) => {
      agents.push(req.headers['user-agent'] ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const kc = new KubeConfig();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      kc.loadFromOptions({ clusters: [{ name: 'c', server: url, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
      const clock = new FakeClock();
      const coreFor = perControllerCoreClients(kc, { qps: 1, burst: 1 }, clock);
      const [node, route] = [coreFor('cloud-node-controller'), coreFor('node-route-controller')];
      await node.listNode();
      let second = false;
      const held = node.listNode().then(() => (second = true));
      await route.listNode();
      await flushMicrotasks();
      expect(second).toBe(false);
      expect(agents).toEqual(['simcloud-ccm/cloud-node-controller', 'simcloud-ccm/node-route-controller']);
      await clock.advance(1000);
      await held;
      expect(agents.at(-1)).toBe('simcloud-ccm/cloud-node-controller');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
