// etcd holds every Secret of the cluster and listens on loopback, which any local user and any web page
// can reach. It takes only clients of its own CA: plain HTTP (what a page's fetch or form sends) is
// dropped unanswered, TLS without a client certificate or with one from the cluster CA (an admin's, a
// CCM's) fails the handshake; the apiserver's certificate works and the cluster serves.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../helpers/control-plane.ts';
import { raw } from './support.ts';

function tlsGet(url: string, client: { cert?: string; key?: string }, ca: string): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, { ca, ...client, timeout: 5000, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end('{"key":"Zm9v","value":"YmFy"}');
  });
}

describe('etcd of the local control plane', () => {
  let c: TestCluster;
  let base: string;
  const pki = (f: string): string => readFileSync(join(c.controlPlane.dir, 'pki', f), 'utf8');

  beforeAll(async () => {
    c = await startTestCluster();
    base = `127.0.0.1:${c.controlPlane.ports.etcdClient}`;
  });

  afterAll(async () => {
    await c?.controlPlane.stop();
  });

  it('drops plain HTTP (a cross-site text/plain POST to the v3 gateway) without an answer', async () => {
    const put = raw(`http://${base}/v3/kv/put`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"key":"Zm9v","value":"YmFy"}' });
    await expect(put).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it("refuses TLS clients without a certificate or with one from the cluster CA, and takes the apiserver's", async () => {
    const url = `https://${base}/v3/kv/range`;
    const etcdCa = pki('etcd-ca.crt');
    const none = await tlsGet(url, {}, etcdCa);
    expect('error' in none || none.status >= 400, JSON.stringify(none)).toBe(true);
    const clusterCaClient = await tlsGet(url, { cert: pki('apiserver.crt'), key: pki('apiserver.key') }, etcdCa);
    expect('error' in clusterCaClient, JSON.stringify(clusterCaClient)).toBe(true);
    expect(await tlsGet(url, { cert: pki('etcd-client.crt'), key: pki('etcd-client.key') }, etcdCa)).toEqual({ status: 200 });
    expect((await c.core.listNamespace()).items.length).toBeGreaterThan(0);
  });
});
