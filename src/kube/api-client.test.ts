import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from './clock.ts';
import { asList, asObject, KubeClient, perControllerClients } from './api-client.ts';
import { TokenBucket } from './token-bucket.ts';
import { KubeApiError, KubeTransport } from './transport.ts';

const servers: Array<ReturnType<typeof createServer>> = [];
const transports: KubeTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) t.close();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** An apiserver stand-in answering every request with an empty NodeList and recording User-Agents. */
async function recordingApiserver(): Promise<{ transport: KubeTransport; agents: string[]; auth: string[] }> {
  const agents: string[] = [];
  const auth: string[] = [];
  const server = createServer((req, res) => {
    agents.push(req.headers['user-agent'] ?? '');
    auth.push(req.headers.authorization ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const transport = new KubeTransport({
    server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    source: 'test',
    insecureSkipTlsVerify: false,
    credentials: { kind: 'token', token: { data: 'secret-token' } },
  });
  transports.push(transport);
  return { transport, agents, auth };
}

describe('KubeClient', () => {
  it('holds requests beyond the burst until the bucket refills, then sends them with the credentials', async () => {
    const { transport, auth } = await recordingApiserver();
    const clock = new FakeClock();
    const client = new KubeClient(transport, new TokenBucket(1, 2, clock));
    const done: number[] = [];
    [0, 1, 2].forEach((i) => void client.list('/api/v1/nodes').then(() => done.push(i)));
    await expect.poll(() => done.length).toBe(2);
    await flushMicrotasks();
    expect(done).toHaveLength(2);
    await clock.advance(1000);
    await expect.poll(() => done.length).toBe(3);
    expect(auth).toEqual(['Bearer secret-token', 'Bearer secret-token', 'Bearer secret-token']);
  });
});

describe('perControllerClients', () => {
  it('gives each controller its own budget: one spent bucket holds back only its own controller', async () => {
    const { transport, agents } = await recordingApiserver();
    const clock = new FakeClock();
    const clientFor = perControllerClients(transport, { qps: 1, burst: 1 }, clock);
    const [node, route] = [clientFor('cloud-node-controller'), clientFor('node-route-controller')];
    await node.list('/api/v1/nodes');
    let second = false;
    const held = node.list('/api/v1/nodes').then(() => (second = true));
    await route.list('/api/v1/nodes');
    await flushMicrotasks();
    expect(second).toBe(false);
    expect(agents).toEqual(['simcloud-ccm/cloud-node-controller', 'simcloud-ccm/node-route-controller']);
    await clock.advance(1000);
    await held;
    expect(agents.at(-1)).toBe('simcloud-ccm/cloud-node-controller');
  });
});

describe('response checks', () => {
  it('hands on a named object unchanged and refuses one without metadata.name', () => {
    const node = { metadata: { name: 'n1', labels: { a: 'b' } }, spec: { providerID: 'x' } };
    expect(asObject(node, 'GET /api/v1/nodes/n1')).toBe(node);
    expect(() => asObject({ metadata: {} }, 'GET /api/v1/nodes/n1')).toThrow(KubeApiError);
    expect(() => asObject('<html>', 'GET /api/v1/nodes/n1')).toThrow(/not a Kubernetes object/);
  });

  it('refuses a list whose items are not named objects', () => {
    expect(asList({ metadata: { resourceVersion: '1' }, items: [{ metadata: { name: 'a' } }] }, 'GET /x').items).toHaveLength(1);
    expect(() => asList({ items: [{}] }, 'GET /x')).toThrow(/items\.0\.metadata|not a Kubernetes list/);
  });
});
