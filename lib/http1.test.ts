import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Error, Http1Pool, originOf, type Http1Request } from './http1.ts';

const servers: Array<HttpServer | NetServer> = [];
const pools: Http1Pool[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const p of pools.splice(0)) p.destroy();
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          if ('closeAllConnections' in s) s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

function pool(port: number): Http1Pool {
  const p = new Http1Pool({ protocol: 'http:', host: '127.0.0.1', port });
  pools.push(p);
  return p;
}

const get = (path: string, extra: Partial<Http1Request> = {}): Http1Request => ({ method: 'GET', path, timeoutMs: 5_000, ...extra });

/** A node:http server; counts the connections it accepted. */
async function httpServer(
  handler: (req: IncomingMessage, body: string) => { status: number; headers?: Record<string, string>; body?: string | string[] },
): Promise<{ port: number; connections: () => number; seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> }> {
  let connections = 0;
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const s = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const out = handler(req, body);
      res.writeHead(out.status, out.headers ?? {});
      if (Array.isArray(out.body)) {
        for (const part of out.body) res.write(part);
        res.end();
      } else {
        res.end(out.body);
      }
    });
  });
  s.on('connection', () => (connections += 1));
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { port: (s.address() as AddressInfo).port, connections: () => connections, seen };
}

/** A raw TCP server: `onRequest` gets each request head and the socket, and writes what it likes. */
async function rawServer(onRequest: (head: string, socket: Socket, n: number) => void): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  let n = 0;
  const s = createNetServer((socket) => {
    connections += 1;
    sockets.add(socket);
    let buf = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      buf += d;
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, end);
        buf = buf.slice(end + 4);
        onRequest(head, socket, n++);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { port: (s.address() as AddressInfo).port, connections: () => connections };
}

describe('Http1Pool', () => {
  it('sends the method, target, Host, headers and a UTF-8 body with its byte length, and returns status, headers and body', async () => {
    const api = await httpServer((req, body) => ({
      status: 201,
      headers: { 'content-type': 'application/json', 'x-request-id': 'r1' },
      body: JSON.stringify({ body, method: req.method }),
    }));
    const res = await pool(api.port).request({
      method: 'POST',
      path: '/v1/servers?x=1',
      headers: { authorization: 'Bearer t' },
      body: '{"name":"näme"}',
      timeoutMs: 5_000,
    });
    expect(res.status).toBe(201);
    expect(res.statusText).toBe('Created');
    expect(res.headers.get('X-Request-Id')).toBe('r1');
    expect(JSON.parse(res.body.toString())).toEqual({ body: '{"name":"näme"}', method: 'POST' });
    expect(api.seen[0]).toMatchObject({
      url: '/v1/servers?x=1',
      headers: { host: `127.0.0.1:${api.port}`, authorization: 'Bearer t', 'content-length': String(Buffer.byteLength('{"name":"näme"}')) },
    });
  });

  it('reuses one connection for sequential requests and opens more only for concurrent ones', async () => {
    const api = await httpServer(() => ({ status: 200, body: '{}' }));
    const p = pool(api.port);
    for (let i = 0; i < 10; i += 1) await p.request(get('/a'));
    expect(api.connections()).toBe(1);
    await Promise.all([p.request(get('/b')), p.request(get('/c')), p.request(get('/d'))]);
    expect(api.connections()).toBe(3);
    expect(p.size).toBe(3);
  });

  it('reads chunked bodies split at every byte boundary, with extensions and trailers', async () => {
    const body = 'x'.repeat(20) + 'ü€';
    const bytes = Buffer.from(body);
    const wire = Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'),
      Buffer.from(`5;ext=1\r\n`),
      bytes.subarray(0, 5),
      Buffer.from('\r\n'),
      Buffer.from(`${(bytes.length - 5).toString(16)}\r\n`),
      bytes.subarray(5),
      Buffer.from('\r\n'),
      Buffer.from('0\r\nX-Trailer: t\r\n\r\n'),
    ]);
    const api = await rawServer((_head, socket) => {
      // One byte per write, each its own segment: the parser must carry state across every boundary.
      let i = 0;
      const next = (): void => {
        if (i >= wire.length) return;
        socket.write(wire.subarray(i, i + 1), () => setImmediate(next));
        i += 1;
      };
      next();
    });
    const p = pool(api.port);
    const res = await p.request(get('/chunked'));
    expect(res.body.toString()).toBe(body);
    // The connection is reusable after the last chunk and its trailers.
    const again = p.request(get('/chunked'));
    expect((await again).body.toString()).toBe(body);
    expect(api.connections()).toBe(1);
  });

  it('skips interim 1xx answers and reads a body that ends when the server closes', async () => {
    const api = await rawServer((_head, socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil ');
      setImmediate(() => socket.end('close'));
    });
    const p = pool(api.port);
    const res = await p.request(get('/'));
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('until close');
    expect(p.size).toBe(0);
  });

  it('answers 204, 304 and HEAD without waiting for a body', async () => {
    const api = await httpServer((req) =>
      req.url === '/204' ? { status: 204 } : req.url === '/304' ? { status: 304 } : { status: 200, headers: { 'content-length': '10' } },
    );
    const p = pool(api.port);
    expect((await p.request({ method: 'DELETE', path: '/204', timeoutMs: 5_000 })).status).toBe(204);
    expect((await p.request(get('/304'))).status).toBe(304);
    const head = await p.request({ method: 'HEAD', path: '/x', timeoutMs: 5_000 });
    expect(head.headers.get('content-length')).toBe('10');
    expect(head.body.length).toBe(0);
    expect(api.connections()).toBe(1);
  });

  it('hands the body to a sink as it arrives when the sink asks for it', async () => {
    const api = await httpServer(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: ['{"a":1}\n', '{"a":2}\n'] }));
    const got: string[] = [];
    const res = await pool(api.port).request(get('/watch'), (head) => (head.status === 200 ? (chunk) => got.push(chunk.toString()) : undefined));
    expect(got.join('')).toBe('{"a":1}\n{"a":2}\n');
    expect(res.body.length).toBe(0);
  });

  it('closes a connection whose response says Connection: close', async () => {
    const api = await httpServer(() => ({ status: 200, headers: { connection: 'close' }, body: 'ok' }));
    const p = pool(api.port);
    await p.request(get('/'));
    await p.request(get('/'));
    expect(api.connections()).toBe(2);
  });

  it('retries a GET or a keyed POST once on a new connection when the reused one was closed by the server, but not a plain POST', async () => {
    const api = await rawServer((head, socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${head.length}\r\n\r\n${head}`);
    });
    const p = pool(api.port);
    // The server closes the idle connection and the pool has not yet seen the close when it sends.
    const closedUnnoticed = async (): Promise<void> => {
      await p.request(get('/warm'));
      for (const s of sockets) s.destroy();
    };
    await closedUnnoticed();
    expect((await p.request(get('/again'))).status).toBe(200);
    expect(api.connections()).toBe(2);
    await closedUnnoticed();
    const keyed = await p.request({ method: 'POST', path: '/create', body: '{}', headers: { 'Idempotency-Key': 'k' }, timeoutMs: 5_000 });
    expect(keyed.status).toBe(200);
    expect(api.connections()).toBe(3);
    await closedUnnoticed();
    const err = await p.request({ method: 'POST', path: '/create', body: '{}', timeoutMs: 5_000 }).catch((e: unknown) => e);
    // The server's close (a FIN) is reported as such.
    expect(err).toMatchObject({ kind: 'closed' });
    expect(api.connections()).toBe(3);
  });

  it('fails with kind timeout when the server sends nothing within the timeout', async () => {
    const api = await rawServer(() => undefined);
    const err = await pool(api.port)
      .request(get('/', { timeoutMs: 100 }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Http1Error);
    expect((err as Http1Error).kind).toBe('timeout');
  });

  it('fails with kind aborted when the signal fires, and closes that connection', async () => {
    const api = await rawServer(() => undefined);
    const p = pool(api.port);
    const ac = new AbortController();
    const pending = p.request(get('/', { signal: ac.signal }));
    setTimeout(() => ac.abort(new Error('stop')), 20);
    const err = await pending.catch((e: unknown) => e);
    expect((err as Http1Error).kind).toBe('aborted');
    expect(p.size).toBe(0);
    await expect(p.request(get('/', { signal: ac.signal }))).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('fails with kind network and the socket code when nothing listens', async () => {
    const api = await rawServer(() => undefined);
    const port = api.port;
    await new Promise<void>((resolve) => (servers.pop() as NetServer).close(() => resolve()));
    const err = await pool(port)
      .request(get('/'))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });

  it('fails with kind protocol on a malformed answer and invalid-request on a header value with a line break', async () => {
    const api = await rawServer((_h, socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'));
    const p = pool(api.port);
    await expect(p.request(get('/'))).rejects.toMatchObject({ kind: 'protocol' });
    await expect(p.request(get('/', { headers: { 'x-evil': 'a\r\nInjected: 1' } }))).rejects.toMatchObject({ kind: 'invalid-request' });
  });

  it('keeps an idle connection no longer than the server advertises, less a second', async () => {
    const api = await rawServer((_h, socket) => socket.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 0\r\n\r\n'));
    const p = pool(api.port);
    await p.request(get('/'));
    // timeout=1 leaves no time to reuse the connection: it is closed at once.
    expect(p.size).toBe(0);
  });

  it('refuses requests after close and closes busy connections when they finish', async () => {
    let answer: (() => void) | undefined;
    const api = await rawServer((_h, socket) => (answer = () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')));
    const p = pool(api.port);
    const busy = p.request(get('/'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    p.close();
    await expect(p.request(get('/'))).rejects.toMatchObject({ kind: 'pool-closed' });
    answer?.();
    expect((await busy).body.toString()).toBe('ok');
    expect(p.size).toBe(0);
  });

  it('derives the origin of a URL, IPv6 included', () => {
    expect(originOf(new URL('https://[::1]:6443/api'))).toEqual({ protocol: 'https:', host: '::1', port: 6443 });
    expect(originOf(new URL('http://localhost/x'))).toEqual({ protocol: 'http:', host: 'localhost', port: 80 });
    expect(() => originOf(new URL('ftp://h/'))).toThrow(Http1Error);
  });
});
