import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from './http-fetch.ts';

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); })));
});

async function server(handler: (req: IncomingMessage, body: string) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const s = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const out = handler(req, body);
      setTimeout(() => {
        res.writeHead(out.status, out.headers ?? {});
        res.end(out.body);
      }, out.delayMs ?? 0);
    });
  });
  s.on('connection', () => (connections += 1));
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, connections: () => connections };
}

describe('httpFetch', () => {
  it('sends the method, headers and body, and answers a Response with status, headers and body', async () => {
    const api = await server((req, body) => ({ status: 201, headers: { 'content-type': 'application/json', 'x-request-id': 'r1' }, body: JSON.stringify({ got: body, method: req.method, auth: req.headers.authorization }) }));
    const res = await httpFetch()(`${api.url}/v1/servers?x=1`, { method: 'POST', headers: { authorization: 'Bearer t' }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await res.json()).toEqual({ got: '{"a":1}', method: 'POST', auth: 'Bearer t' });
  });

  it('keeps connections alive across calls', async () => {
    const api = await server(() => ({ status: 200, body: '{}' }));
    const f = httpFetch();
    for (let i = 0; i < 10; i += 1) await (await f(`${api.url}/v1/servers`)).text();
    expect(api.connections()).toBe(1);
  });

  it('answers 204 with an empty body and passes error statuses through', async () => {
    const api = await server((req) => (req.method === 'DELETE' ? { status: 204 } : { status: 404, body: '{"error":{"code":"not_found"}}' }));
    const f = httpFetch();
    expect(await (await f(`${api.url}/x`, { method: 'DELETE' })).text()).toBe('');
    const missing = await f(`${api.url}/x`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'not_found' } });
  });

  it('rejects with the signal reason when the signal fires first', async () => {
    const api = await server(() => ({ status: 200, body: '{}', delayMs: 2000 }));
    const signal = AbortSignal.timeout(20);
    await expect(httpFetch()(`${api.url}/slow`, { signal })).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
