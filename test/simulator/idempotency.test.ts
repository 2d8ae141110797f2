// Idempotency-Key against a real simcloud process: a repeat gets the first answer and creates nothing, another
// body under the same key is refused naming the header, and a client whose create times out under injected
// latency retries it without leaving a second server behind.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { serverBody, startContractProcess, unique } from './support.ts';

let sc: SimcloudProcess;
beforeAll(async () => {
  sc = await startContractProcess();
});
afterEach(async () => {
  await sc.admin.clearFaults();
});
afterAll(async () => {
  await sc?.stop();
});

function post(path: string, body: unknown, key: string): Promise<Response> {
  return fetch(`${sc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sc.token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
}

async function serversNamed(name: string): Promise<number> {
  return (await sc.client.servers.listAll({ name })).filter((s) => s.name === name).length;
}

describe('Idempotency-Key', () => {
  it('answers a repeated POST with the first answer and creates one resource', async () => {
    const body = serverBody();
    const key = unique('key');
    const first = await post('/v1/servers', body, key);
    const again = await post('/v1/servers', body, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = (await Promise.all([first.json(), again.json()])) as { server: { id: string } }[];
    expect(b!.server.id).toBe(a!.server.id);
    expect(await serversNamed(body.name)).toBe(1);
  });

  it('refuses the same key with another body, naming the header', async () => {
    const key = unique('key');
    expect((await post('/v1/servers', serverBody(), key)).status).toBe(201);
    const other = serverBody();
    const res = await post('/v1/servers', other, key);
    expect(res.status).toBe(400);
    const err = (await res.json()) as { error: { code: string; details: { fields: { name: string }[] } } };
    expect(err.error.code).toBe('invalid_input');
    expect(err.error.details.fields.map((f) => f.name)).toEqual(['Idempotency-Key']);
    expect(await serversNamed(other.name)).toBe(0);
  });

  it('refuses a malformed key naming the header', async () => {
    const res = await post('/v1/servers', serverBody(), 'x'.repeat(256));
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('Idempotency-Key');
  });

  it('carries out a retry after an injected error (the first attempt never reached the resource)', async () => {
    await sc.admin.addFault({ kind: 'error', status: 503, code: 'service_unavailable', count: 1, match: { method: 'POST', path: '/v1/servers' } });
    const body = serverBody();
    const key = unique('key');
    expect((await post('/v1/servers', body, key)).status).toBe(503);
    expect((await post('/v1/servers', body, key)).status).toBe(201);
    expect(await serversNamed(body.name)).toBe(1);
  });

  it('a create that times out is retried by the client without creating a second server', async () => {
    // The first attempt waits 1.5 s in the server, past the client's 300 ms timeout, and is carried out
    // after the retry (same key) was: it is answered from the retry's record. Without the key: two servers.
    await sc.admin.addFault({ kind: 'latency', latency_ms: 1500, count: 1, match: { method: 'POST', path: '/v1/servers' } });
    const client = sc.clientFor(sc.token, { timeoutMs: 300, retry: { maxRetries: 2, baseDelayMs: 10 } });
    const before = await replays();
    const body = serverBody();
    await client.servers.create(body);
    expect((await sc.admin.listFaults())[0]!.fired).toBe(1);
    await waitFor(async () => (await replays()) > before, { timeoutMs: 10_000, intervalMs: 50, description: 'the timed-out attempt answered from the record' });
    expect(await serversNamed(body.name)).toBe(1);
  });
});

async function replays(): Promise<number> {
  const text = await (await fetch(`${sc.url}/metrics`)).text();
  return Number(/^simcloud_idempotent_replays_total (\d+)/m.exec(text)?.[1] ?? 0);
}
