import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../serving.ts';
import type { Credentials, KubeEndpoint } from './kubeconfig.ts';
import { KubeApiError, KubeTransport } from './transport.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface FakeApiserver {
  readonly url: string;
  readonly ca: string;
  /** TLS connections accepted, and the client certificate's fingerprint on each. */
  readonly accepted: string[];
  /** Whether each accepted connection resumed an earlier TLS session. */
  readonly resumed: boolean[];
  open(): number;
  readonly requests: Array<{ method: string; url: string; auth: string; contentType: string; body: string }>;
}

const servers: Server[] = [];
const transports: KubeTransport[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) t.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
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

const json = (res: ServerResponse, code: number, value: unknown): void => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

async function fakeApiserver(handler: Handler = (_q, res) => json(res, 200, { kind: 'NodeList', metadata: {}, items: [] })): Promise<FakeApiserver> {
  const pair = await selfSignedCertificate();
  const accepted: string[] = [];
  const resumed: boolean[] = [];
  let open = 0;
  const requests: FakeApiserver['requests'] = [];
  const server = createServer({ ...pair, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        auth: req.headers.authorization ?? '',
        contentType: req.headers['content-type'] ?? '',
        body,
      });
      handler(req, res, body);
    });
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    accepted.push(socket.getPeerCertificate().fingerprint256 ?? 'none');
    resumed.push(socket.isSessionReused());
    open += 1;
    socket.on('close', () => (open -= 1));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca: pair.cert, accepted, resumed, open: () => open, requests };
}

function transport(api: FakeApiserver, extra: Partial<KubeEndpoint> = {}, credentials: Credentials = { kind: 'none' }): KubeTransport {
  const t = new KubeTransport({
    server: api.url,
    source: 'test',
    ca: { data: api.ca },
    insecureSkipTlsVerify: false,
    tlsServerName: 'localhost',
    credentials,
    ...extra,
  });
  transports.push(t);
  return t;
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kube-transport-'));
  dirs.push(d);
  return d;
}

describe('KubeTransport', () => {
  it('reuses kept-alive connections instead of opening one per call', async () => {
    const api = await fakeApiserver();
    const t = transport(api, { insecureSkipTlsVerify: true });
    for (let i = 0; i < 20; i += 1) await t.request({ method: 'GET', path: '/api/v1/nodes' });
    expect(api.accepted).toHaveLength(1);
  });

  it('trusts the server the configured CA signed, under the configured server name', async () => {
    const api = await fakeApiserver();
    await transport(api).request({ method: 'GET', path: '/api/v1/nodes' });
    expect(api.requests).toHaveLength(1);
  });

  it('resumes the TLS session on each new connection instead of a full handshake', async () => {
    // Every answer closes its connection, so each request opens a new one.
    const api = await fakeApiserver((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ kind: 'NodeList', metadata: {}, items: [] }));
    });
    const t = transport(api);
    for (let i = 0; i < 3; i += 1) await t.request({ method: 'GET', path: '/api/v1/nodes' });
    expect(api.resumed).toEqual([false, true, true]);
  });

  it('refuses a server whose certificate the configured CA did not sign', async () => {
    const api = await fakeApiserver();
    const other = await selfSignedCertificate();
    const t = transport(api, { ca: { data: other.cert } });
    const err = await t.request({ method: 'GET', path: '/api/v1/nodes' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).code).toBe(0);
  });

  it('presents the client certificate and opens a new pool when its files are rotated, closing the old one', async () => {
    const api = await fakeApiserver();
    const dir = tempDir();
    const first = await selfSignedCertificate();
    writeFileSync(join(dir, 'tls.crt'), first.cert);
    writeFileSync(join(dir, 'tls.key'), first.key);
    const t = transport(api, { insecureSkipTlsVerify: true, clientCert: { file: join(dir, 'tls.crt') }, clientKey: { file: join(dir, 'tls.key') } });
    await t.request({ method: 'GET', path: '/api/v1/nodes' });
    const rotated = await selfSignedCertificate();
    writeFileSync(join(dir, 'tls.crt'), `${rotated.cert}\n`);
    writeFileSync(join(dir, 'tls.key'), rotated.key);
    await t.request({ method: 'GET', path: '/api/v1/nodes' });
    expect(api.accepted).toHaveLength(2);
    expect(api.accepted[0]).not.toBe(api.accepted[1]);
    expect(api.accepted.every((f) => f !== 'none')).toBe(true);
    await expect.poll(() => api.open()).toBe(1);
  });

  it('sends a token file as a bearer token and reads it again after a minute', async () => {
    const api = await fakeApiserver();
    const dir = tempDir();
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    const t = transport(api, { insecureSkipTlsVerify: true }, { kind: 'token', token: { file } });
    await t.request({ method: 'GET', path: '/api/v1/nodes' });
    writeFileSync(file, 'second');
    await t.request({ method: 'GET', path: '/api/v1/nodes' });
    expect(api.requests.map((r) => r.auth)).toEqual(['Bearer first', 'Bearer first']);
  });

  it('turns an error status into a KubeApiError with the Status reason and message', async () => {
    const api = await fakeApiserver((_q, res) =>
      json(res, 409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: 'the object has been modified' }),
    );
    const t = transport(api, { insecureSkipTlsVerify: true });
    const err = await t.request({ method: 'PUT', path: '/api/v1/nodes/n1', body: { metadata: { name: 'n1' } } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'KubeApiError', code: 409, reason: 'Conflict' });
    expect((err as Error).message).toBe('PUT /api/v1/nodes/n1: 409 the object has been modified');
    expect(api.requests[0]).toMatchObject({ contentType: 'application/json', body: '{"metadata":{"name":"n1"}}' });
  });

  it('puts the server URL path before every request path, as behind a proxy that serves a cluster under a prefix', async () => {
    const api = await fakeApiserver();
    const t = transport(api, { server: `${api.url}/k8s/clusters/c-1/`, insecureSkipTlsVerify: true });
    await t.request({ method: 'GET', path: '/api/v1/nodes', query: { labelSelector: 'a=b,c in (d)' } });
    expect(api.requests[0]?.url).toBe('/k8s/clusters/c-1/api/v1/nodes?labelSelector=a%3Db%2Cc+in+%28d%29');
  });

  it('delivers each line of a stream as it arrives, even when a value spans chunks', async () => {
    const api = await fakeApiserver((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED","object":{"a":');
      setTimeout(() => {
        res.write('1}}\n{"type":"BOOKMARK",');
        setTimeout(() => res.end('"object":{}}\n'), 5);
      }, 5);
    });
    const t = transport(api, { insecureSkipTlsVerify: true });
    const seen: unknown[] = [];
    await t.stream({ method: 'GET', path: '/api/v1/nodes', query: { watch: 'true' } }, (v) => seen.push(v));
    expect(seen).toEqual([
      { type: 'ADDED', object: { a: 1 } },
      { type: 'BOOKMARK', object: {} },
    ]);
    expect(api.requests[0]?.url).toBe('/api/v1/nodes?watch=true');
  });

  it('bounds a request by its deadline however its bytes trickle, and a stream only by its silence', async () => {
    const api = await fakeApiserver((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.startsWith('/api/v1/nodes?watch')) {
        // A watch event every 20 ms for about 400 ms, then silence.
        let n = 0;
        const t = setInterval(() => (n++ < 20 ? res.write('{"type":"BOOKMARK","object":{}}\n') : clearInterval(t)), 20);
        res.on('close', () => clearInterval(t));
        return;
      }
      res.write('{"kind":"NodeList",');
      const t = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(t));
    });
    const t = transport(api, { insecureSkipTlsVerify: true });
    const slow = await t.request({ method: 'GET', path: '/api/v1/nodes', timeoutMs: 300 }).catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(KubeApiError);
    expect((slow as KubeApiError).message).toMatch(/no complete answer within 300 ms/);
    let events = 0;
    const watch = await t
      .stream({ method: 'GET', path: '/api/v1/nodes', query: { watch: 'true' }, inactivityTimeoutMs: 1_000 }, () => (events += 1))
      .catch((e: unknown) => e);
    // The stream outlived the 300 ms a plain request gets, and ended at its silence.
    expect([events, (watch as KubeApiError).message]).toEqual([20, expect.stringMatching(/no byte of the answer for 1000 ms/)]);
  });

  it('runs an exec credential plugin, caches its token until expiry and runs it again after a 401', async () => {
    let calls = 0;
    const api = await fakeApiserver((req, res) => {
      calls += 1;
      if (calls === 2) json(res, 401, { kind: 'Status', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
      else json(res, 200, { kind: 'NodeList', metadata: {}, items: [], seenAuth: req.headers.authorization });
    });
    const dir = tempDir();
    const plugin = join(dir, 'plugin.sh');
    const counter = join(dir, 'runs');
    writeFileSync(counter, '');
    writeFileSync(
      plugin,
      `#!/bin/sh\necho run >> ${counter}\nn=$(wc -l < ${counter})\necho "{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"tok-$n\\"}}"\n`,
    );
    chmodSync(plugin, 0o755);
    const t = transport(
      api,
      { insecureSkipTlsVerify: true },
      { kind: 'exec', exec: { command: plugin, args: [], env: {}, apiVersion: 'client.authentication.k8s.io/v1', cwd: dir } },
    );
    await t.request({ method: 'GET', path: '/api/v1/nodes' });
    await t.request({ method: 'GET', path: '/api/v1/nodes' });
    expect(api.requests.map((r) => r.auth)).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
  });

  it('fails requests after close()', async () => {
    const api = await fakeApiserver();
    const t = transport(api, { insecureSkipTlsVerify: true });
    await t.request({ method: 'GET', path: '/api/v1/nodes' });
    t.close();
    await expect(t.request({ method: 'GET', path: '/api/v1/nodes' })).rejects.toThrow(/closed/);
    await expect.poll(() => api.open()).toBe(0);
  });
});
