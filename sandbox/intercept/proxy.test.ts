import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInterceptCa } from './ca.ts';
import { startInterceptProxy, type InterceptProxy } from './proxy.ts';

const HOSTS = [
  { name: 'api.example-cloud.test', mount: '/persona', paths: ['/v1'] },
  { name: 'plain.example-cloud.test', mount: '', paths: ['/v4'] },
];

interface Seen {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

describe('the interception proxy', () => {
  let upstream: Server;
  let proxy: InterceptProxy;
  let caPem: string;
  const seen: Seen[] = [];
  const logged: string[] = [];
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' }).end(JSON.stringify({ url: req.url }));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const ca = await createInterceptCa(HOSTS.map((h) => h.name));
    caPem = ca.certPem;
    const sink = new Writable({
      write: (chunk: Buffer, _e, done) => {
        logged.push(chunk.toString());
        done();
      },
    });
    proxy = await startInterceptProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      hosts: HOSTS,
      ca,
      logger: pino({ level: 'debug' }, sink),
    });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => upstream.close(r));
  });

  /** CONNECT `target`: the status, and the socket when it is 200. */
  function connectTo(target: string): Promise<{ status: number; socket: Socket }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: target, headers: { host: target } });
      req.on('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
      req.on('error', reject);
      req.end();
    });
  }

  /** One request inside a tunnel to `name`, verified against the CA: status and body. */
  async function inTunnel(name: string, path: string, host = name): Promise<{ status: number; body: string }> {
    const { status, socket } = await connectTo(`${name}:443`);
    expect(status).toBe(200);
    const tls = tlsConnect({ socket, servername: name, ca: caPem });
    await new Promise<void>((r, j) => tls.once('secureConnect', r).once('error', j));
    tls.write(`GET ${path} HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer secret-token\r\nconnection: close\r\n\r\n`);
    const raw = await new Promise<string>((r) => {
      let out = '';
      tls.on('data', (d: Buffer) => (out += d.toString())).on('end', () => r(out));
    });
    return { status: Number(raw.slice(9, 12)), body: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
  }

  it('forwards a request to the persona with the path mounted and the client token passed on, no query in the log', async () => {
    const r = await inTunnel('api.example-cloud.test', '/v1/servers?token=in-query');
    expect(r.status).toBe(200);
    expect(seen.at(-1)?.url).toBe('/persona/v1/servers?token=in-query');
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer secret-token');
    expect(seen.at(-1)?.headers.host).toBe(`127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    expect(logged.join('')).not.toMatch(/in-query|secret-token/);
  });

  it('refuses a CONNECT to any other host or port with 403 and reaches nothing', async () => {
    const before = seen.length;
    for (const target of [
      'example.com:443',
      'api.example-cloud.test:80',
      '127.0.0.1:443',
      `127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      'x.api.example-cloud.test:443',
    ]) {
      const { status, socket } = await connectTo(target).catch(() => ({ status: 403, socket: undefined }));
      socket?.destroy();
      expect(status, target).toBe(403);
    }
    expect(seen.length).toBe(before);
  });

  it('refuses a foreign Host, a path outside the API roots and dot segments inside a tunnel', async () => {
    const before = seen.length;
    expect((await inTunnel('api.example-cloud.test', '/v1/servers', 'attacker.example')).status).toBe(403);
    expect((await inTunnel('api.example-cloud.test', '/v1/servers', 'plain.example-cloud.test')).status).toBe(403);
    expect((await inTunnel('plain.example-cloud.test', '/_sim/health')).status).toBe(404);
    expect((await inTunnel('plain.example-cloud.test', '/v4/../_sim/health')).status).toBe(404);
    expect((await inTunnel('plain.example-cloud.test', '/v4/%2e%2e/_sim')).status).toBe(404);
    expect(seen.length).toBe(before);
    expect((await inTunnel('plain.example-cloud.test', '/v4/linode/instances')).status).toBe(200);
  });

  it('answers anything but CONNECT on its own port with 405, after the Host check', async () => {
    const get = (host: string): Promise<number> =>
      new Promise((resolve, reject) => {
        request({ host: '127.0.0.1', port: proxy.port, path: '/', headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    expect(await get('attacker.example')).toBe(403);
    expect(await get(`127.0.0.1:${proxy.port}`)).toBe(405);
  });
});
