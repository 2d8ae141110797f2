import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { selfSignedCertificate } from '../../src/serving.ts';
import { PooledKubeConfig } from './pooled-kubeconfig.ts';

interface FakeApiserver {
  readonly url: string;
  /** TLS connections accepted so far. */
  connections(): number;
  /** Connections still open. */
  open(): number;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
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

async function fakeApiserver(): Promise<FakeApiserver> {
  const server = createServer(await selfSignedCertificate(), (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [] }));
  });
  servers.push(server);
  let accepted = 0;
  let open = 0;
  server.on('secureConnection', (socket) => {
    accepted += 1;
    open += 1;
    socket.on('close', () => {
      open -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    connections: () => accepted,
    open: () => open,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type ClientCert = { cert: string; key: string };
const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

function kubeConfigFor(url: string, client: ClientCert): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u', certData: b64(client.cert), keyData: b64(client.key) }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('PooledKubeConfig', () => {
  it('reuses kept-alive connections instead of opening one per API call', async () => {
    const api = await fakeApiserver();
    const kc = kubeConfigFor(api.url, await selfSignedCertificate());
    const core = kc.makeApiClient(CoreV1Api);
    for (let i = 0; i < 20; i += 1) await core.listNamespace();
    // undici's pool may add a second client while the first finishes a response; without pooling it is 20.
    expect(api.connections()).toBeLessThanOrEqual(2);
    await kc.close();
  });

  it('opens a new pool when the credentials change and closes the old one', async () => {
    const api = await fakeApiserver();
    const kc = kubeConfigFor(api.url, await selfSignedCertificate());
    await kc.makeApiClient(CoreV1Api).listNamespace();
    const before = api.connections();

    const user = kc.getCurrentUser();
    if (!user) throw new Error('no user');
    // A rotated client certificate: the next request must not reuse a connection made with the old one.
    const rotated = await selfSignedCertificate();
    kc.users = kc.users.map((u) => (u.name === user.name ? { ...u, certData: b64(rotated.cert), keyData: b64(rotated.key) } : u));
    await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(api.connections()).toBe(before + 1);
    // The old pool drains and closes; only the new connection stays open.
    await expect.poll(() => api.open()).toBe(1);
    await kc.close();
  });

  it('close() ends its connections', async () => {
    const api = await fakeApiserver();
    const kc = kubeConfigFor(api.url, await selfSignedCertificate());
    await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(api.open()).toBe(1);
    await kc.close();
    await expect.poll(() => api.open()).toBe(0);
  });
});
