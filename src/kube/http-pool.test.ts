// The HTTP pools of lib/http-pool against an https server that speaks h2 and HTTP/1.1, as kube-apiserver does:
// every transport the CCM can run on answers, streams, times out, aborts and fails alike.
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../serving.ts';
import { Http1Error, type Http1Origin, type Http1Request } from '../../lib/http1.ts';
import { createHttpPool, HttpTransports, type HttpPool } from '../../lib/http-pool.ts';

const servers: Array<Http2SecureServer | Server> = [];
const pools: HttpPool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) p.close();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

type Handler = (req: Http2ServerRequest, res: Http2ServerResponse, body: string) => void;

/** An https server that speaks h2 and HTTP/1.1 (by ALPN), as kube-apiserver does; records each request's protocol. */
async function apiserver(handler: Handler): Promise<{ origin: Http1Origin; versions: string[] }> {
  const pair = await selfSignedCertificate();
  const versions: string[] = [];
  const server = createSecureServer({ ...pair, allowHTTP1: true }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      versions.push(req.httpVersion);
      handler(req, res, body);
    });
  });
  // A stream the test leaves unanswered is reset when the server closes.
  server.on('session', (s) => server.once('close', () => s.destroy()));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: { protocol: 'https:', host: '127.0.0.1', port, tls: { ca: pair.cert, servername: 'localhost' } }, versions };
}

const get = (path: string, extra: Partial<Http1Request> = {}): Http1Request => ({ method: 'GET', path, timeoutMs: 5_000, ...extra });

async function failure(p: Promise<unknown>): Promise<Http1Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Http1Error);
  return err as Http1Error;
}

describe.each(HttpTransports)('an HTTP pool over %s', (transport) => {
  const pool = (origin: Http1Origin): HttpPool => {
    const p = createHttpPool(origin, transport);
    pools.push(p);
    return p;
  };

  it('sends the method, path, headers and body, and answers the status, headers and body', async () => {
    const seen: Array<{ method: string; url: string; type: string | undefined; body: string }> = [];
    const server = await apiserver((req, res, body) => {
      seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], body });
      res.writeHead(201, { 'content-type': 'application/json', 'x-seen': body.length.toString() });
      res.end(JSON.stringify({ kind: 'Node' }));
    });
    const p = pool(server.origin);
    const res = await p.request({
      method: 'PUT',
      path: '/api/v1/nodes/n1?dryRun=All',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
      timeoutMs: 5_000,
    });
    const again = await p.request(get('/healthz'));
    expect([res.status, res.headers.get('Content-Type'), res.headers.get('x-seen'), JSON.parse(res.body.toString())]).toEqual([
      201,
      'application/json',
      '7',
      { kind: 'Node' },
    ]);
    expect(again.status).toBe(201);
    expect(seen.slice(0, 1)).toEqual([{ method: 'PUT', url: '/api/v1/nodes/n1?dryRun=All', type: 'application/json', body: '{"a":1}' }]);
    // node:http2 speaks h2 to an https origin; lib/http1 and undici HTTP/1.1.
    expect(server.versions).toEqual(transport === 'http2' ? ['2.0', '2.0'] : ['1.1', '1.1']);
  });

  it('hands a streamed body to the sink as it arrives', async () => {
    let release: () => void = () => undefined;
    const server = await apiserver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED"}\n');
      release = () => res.end('{"type":"DELETED"}\n');
    });
    const parts: string[] = [];
    let first: () => void = () => undefined;
    const firstArrived = new Promise<void>((resolve) => (first = resolve));
    const done = pool(server.origin).request(get('/api/v1/nodes?watch=1'), (head) =>
      head.status === 200
        ? (c) => {
            parts.push(c.toString());
            first();
          }
        : undefined,
    );
    await firstArrived;
    expect(parts.join('')).toBe('{"type":"ADDED"}\n');
    release();
    const res = await done;
    expect([res.status, res.body.length, parts.join('')]).toEqual([200, 0, '{"type":"ADDED"}\n{"type":"DELETED"}\n']);
  });

  it('fails with a timeout when no byte of the answer comes in time, and with aborted on the signal', async () => {
    const server = await apiserver(() => undefined);
    const p = pool(server.origin);
    expect((await failure(p.request(get('/slow', { timeoutMs: 200 })))).kind).toBe('timeout');
    const abort = new AbortController();
    const pending = p.request(get('/slow', { signal: abort.signal }));
    abort.abort();
    expect((await failure(pending)).kind).toBe('aborted');
  });

  it('fails an answer still trickling at its deadline, a silent stream at its inactivity limit, and waits without a deadline', async () => {
    const server = await apiserver((req, res) => {
      if (req.url === '/late') {
        setTimeout(() => res.end('late'), 50);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
      if (req.url === '/silent') return;
      const t = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(t));
    });
    const p = pool(server.origin);
    expect((await failure(p.request(get('/trickle', { timeoutMs: 300 })))).kind).toBe('timeout');
    const parts: string[] = [];
    const silent = await failure(
      p.request(get('/silent', { timeoutMs: Number.POSITIVE_INFINITY, inactivityTimeoutMs: 200 }), () => (c) => parts.push(c.toString())),
    );
    expect([silent.kind, parts.join('')]).toEqual(['timeout', '{"items":[']);
    expect((await p.request(get('/late', { timeoutMs: Number.POSITIVE_INFINITY }))).body.toString()).toBe('late');
  });

  it('fails with a network error naming the socket code when nothing listens, and with closed after close', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = await failure(pool({ protocol: 'https:', host: '127.0.0.1', port }).request(get('/')));
    expect([refused.kind, refused.code]).toEqual(['network', 'ECONNREFUSED']);
    const server = await apiserver((_req, res) => res.end());
    const p = pool(server.origin);
    p.close();
    expect((await failure(p.request(get('/')))).kind).toBe('pool-closed');
  });
});
