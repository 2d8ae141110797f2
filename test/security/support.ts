// Shared pieces of the security suite: a raw HTTP client that sends exactly the Host, Origin and body a
// hostile client would (fetch forbids setting Host), the hostile Host headers, and a console over an
// in-process simcloud (no cluster) for tests that do not need one.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { expect } from 'vitest';
import { startConsoleServer, type ConsoleServer } from '../../sandbox/console/server.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json(): unknown;
}

export interface RawRequest {
  readonly method?: string;
  readonly host?: string | null;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Read at most this many bytes of the response (an event stream never ends). */
  readonly maxBytes?: number;
  /** Send this request target verbatim instead of the URL's path (URL parsing would resolve `..` and `%2e%2e`). */
  readonly target?: string;
}

/** One request to `url` with the Host header given (null: none at all, as HTTP/1.0 allows). */
export function raw(url: string, r: RawRequest = {}): Promise<RawResponse> {
  const u = new URL(url);
  const headers: Record<string, string> = { connection: 'close', ...r.headers };
  if (r.host !== null) headers.host = r.host ?? u.host;
  if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port,
        path: r.target ?? `${u.pathname}${u.search}`,
        method: r.method ?? 'GET',
        headers,
        setHost: false,
        rejectUnauthorized: false,
      },
      (res) => {
        let text = '';
        const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as unknown });
        res.on('data', (c: Buffer) => {
          text += c.toString();
          if (r.maxBytes !== undefined && text.length >= r.maxBytes) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Runs one attack and asserts the store's commit sequence has not moved: a refusal changed nothing. */
export async function unchangedBy(seq: () => number, attack: () => Promise<RawResponse>): Promise<RawResponse> {
  const before = seq();
  const r = await attack();
  expect(seq(), `${r.status} ${r.text.slice(0, 200)}`).toBe(before);
  return r;
}

/** Host headers a DNS-rebinding page or a confused client would send to a surface on `port`. */
export function hostileHosts(port: number): string[] {
  return [
    `attacker.example:${port}`,
    'attacker.example',
    `localhost.attacker.example:${port}`,
    `127.0.0.1.nip.io:${port}`,
    `localhost:${port + 1}`,
    `127.0.0.1:${port}.attacker.example`,
    `[::1]:${port}@attacker.example`,
    `localhost.:${port}`,
    '',
  ];
}

export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, `[::1]:${port}`];
}

export interface ConsoleUnderTest {
  readonly sc: InProcessSimcloud;
  readonly console: ConsoleServer;
  readonly port: number;
  /** A running server the attacks try to power off. */
  readonly serverId: string;
  /** The store's commit sequence: unchanged means nothing changed. */
  seq(): number;
  close(): Promise<void>;
}

/** A console in front of an in-process simcloud with one running server and no cluster. */
export async function startConsoleUnderTest(allowedHosts: readonly string[] = []): Promise<ConsoleUnderTest> {
  const sc = await startSimcloudInProcess();
  const { server, action } = await sc.client.servers.create({ name: 'victim', server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a' });
  await sc.client.waitForAction(action.id);
  const sandbox = {
    client: sc.client,
    admin: sc.admin,
    subscribe: () => () => undefined,
    cluster: undefined,
    options: { name: 'security', runtime: 'local', lbStrategy: 'lb' },
    addWorker: () => Promise.reject(new Error('no runtime')),
  };
  const console = await startConsoleServer(sandbox, { allowedHosts, cloudIntervalMs: 60_000, clusterIntervalMs: 60_000 });
  return {
    sc,
    console,
    port: Number(new URL(console.url).port),
    serverId: server.id,
    seq: () => sc.sim.store.state.seq,
    close: async () => {
      await console.close();
      await sc.stop();
    },
  };
}
