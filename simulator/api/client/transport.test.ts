// Client transport on a real loopback socket with ordered expectations: retry by code, Retry-After,
// request ids, the caller header, timeouts, error mapping and response validation.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimcloudClient } from './client.ts';
import { isApiError, SimcloudApiError } from './errors.ts';
import { DEFAULT_RETRY, backoffDelay, poolExchange, mayRepeat, parseRetryAfter, type HttpExchange, type TransportRequest } from './transport.ts';
import type { Action } from '../schema/actions.ts';

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
const servers: { close(): void }[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

async function serve(replies: Reply[]): Promise<{ url: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    const reply = replies.shift();
    if (reply === undefined) return res.writeHead(500).end('unexpected request');
    reply(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push({ close: () => server.close() });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
const err = (status: number, code: string, headers: Record<string, string> = {}): Reply => json(status, { error: { code, message: code } }, headers);
const zones = json(200, { zones: [{ id: 'z', name: 'z', region: 'r' }] });

/** The exchange the current block sends through (undefined: the default, over fetch). */
let exchange: (() => HttpExchange) | undefined;

function client(url: string, slept: number[] = [], over = {}): SimcloudClient {
  return new SimcloudClient({
    endpoint: url,
    token: 'tok',
    caller: 'unit',
    ...(exchange ? { exchange: exchange() } : {}),
    ...over,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
  });
}

// Every behaviour holds over every exchange: fetch (the SDK's default) and the CCM's pools (lib/http-pool).
describe.each([
  ['fetch', undefined],
  ['http1', () => poolExchange('http1')],
  ['undici', () => poolExchange('undici')],
] as const)('transport over %s', (_name, make) => {
  beforeEach(() => {
    exchange = make;
  });
  afterEach(() => {
    exchange = undefined;
  });

  it('sends auth, the caller and method headers and one request id shared by retries', async () => {
    const { url, seen } = await serve([err(503, 'service_unavailable'), zones]);
    await client(url).catalogue.zones({ caller: 'service-lb-controller default/web', method: 'EnsureLoadBalancer' });
    expect(seen.map((r) => r.headers.authorization)).toEqual(['Bearer tok', 'Bearer tok']);
    expect(seen[0]!.headers['x-simcloud-caller']).toBe('service-lb-controller default/web');
    expect(seen.map((r) => r.headers['x-simcloud-method'])).toEqual(['EnsureLoadBalancer', 'EnsureLoadBalancer']);
    expect(seen[0]!.headers['x-request-id']).toMatch(/^req-/);
    expect(seen[1]!.headers['x-request-id']).toBe(seen[0]!.headers['x-request-id']);
  });

  it('honours Retry-After and backs off exponentially otherwise', async () => {
    const slept: number[] = [];
    const { url } = await serve([err(429, 'rate_limit_exceeded', { 'retry-after': '2' }), err(423, 'locked'), err(503, 'service_unavailable'), zones]);
    await client(url, slept, { retry: { baseDelayMs: 100 } }).catalogue.zones();
    expect(slept[0]).toBe(2000);
    expect(slept[1]).toBeGreaterThanOrEqual(100);
    expect(slept[1]).toBeLessThanOrEqual(200);
    expect(slept[2]).toBeGreaterThanOrEqual(200);
    expect(slept[2]).toBeLessThanOrEqual(400);
  });

  it('does not retry codes outside the policy and gives up after maxRetries', async () => {
    const { url } = await serve([err(409, 'conflict')]);
    const e = await client(url)
      .catalogue.zones()
      .catch((x: unknown) => x);
    expect(isApiError(e, 'conflict')).toBe(true);
    const { url: url2, seen } = await serve([err(503, 'service_unavailable'), err(503, 'service_unavailable'), err(503, 'service_unavailable')]);
    const e2 = await client(url2, [], { retry: { maxRetries: 2 } })
      .catalogue.zones()
      .catch((x: unknown) => x);
    expect(e2).toBeInstanceOf(SimcloudApiError);
    expect(seen).toHaveLength(3);
  });

  it('maps errors with status, request id, operation and fields; unreadable bodies by status', async () => {
    const { url } = await serve([
      (_q, res) =>
        res
          .writeHead(400, { 'x-request-id': 'req-1', 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'invalid_input', message: 'bad', details: { fields: [{ name: 'name', messages: ['short'] }] } } })),
      (_q, res) => res.writeHead(502).end('<html>bad gateway</html>'),
    ]);
    const c = client(url, [], { retry: { maxRetries: 0 } });
    const e = (await c.servers.create({ name: 'x', server_type: 't', image: 'i', zone: 'z' }).catch((x: unknown) => x)) as SimcloudApiError;
    expect(e).toMatchObject({
      code: 'invalid_input',
      status: 400,
      requestId: 'req-1',
      operation: 'servers.create',
      fields: [{ name: 'name', messages: ['short'] }],
    });
    expect(e.message).toBe('servers.create: invalid_input: bad');
    const e2 = (await c.servers.get('srv-1').catch((x: unknown) => x)) as SimcloudApiError;
    expect(e2).toMatchObject({ code: 'service_unavailable', status: 502, operation: 'servers.get' });
  });

  it('times out, retries the timeout, and reports invalid responses', async () => {
    const hang: Reply = () => undefined;
    // A hanging reply never answers, so the timeout fires however long it is; 300 ms leaves the answering attempt room on a busy machine.
    const { url } = await serve([hang, hang, json(200, { zones: [{ id: 1 }] })]);
    const c = client(url, [], { timeoutMs: 300, retry: { maxRetries: 2 } });
    const e = (await c.catalogue.zones().catch((x: unknown) => x)) as SimcloudApiError;
    expect(e).toMatchObject({ code: 'invalid_response', operation: 'catalogue.zones' });
    const { url: url2 } = await serve([hang]);
    const e2 = (await client(url2, [], { timeoutMs: 50, retry: { maxRetries: 0 } })
      .catalogue.zones()
      .catch((x: unknown) => x)) as SimcloudApiError;
    expect(e2).toMatchObject({ code: 'timeout', status: 0 });
  });

  it('times out an answer that keeps trickling: the timeout is a deadline for the whole answer', async () => {
    const trickle: Reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"zones":[');
      // A byte every 20 ms, for at most 5 s (an exchange that waited it out reads an unfinished body).
      let n = 0;
      const t = setInterval(() => (n++ < 250 ? res.write(' ') : res.end()), 20);
      res.on('close', () => clearInterval(t));
    };
    const { url } = await serve([trickle]);
    const e = await client(url, [], { timeoutMs: 300, retry: { maxRetries: 0 } })
      .catalogue.zones()
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'timeout', status: 0 });
  });

  it('parses Retry-After as seconds or an HTTP date and caps it', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter(null)).toBeNull();
    const e = new SimcloudApiError({ code: 'rate_limit_exceeded', message: '', status: 429, requestId: '', operation: 'x', retryAfterMs: 3_600_000 });
    expect(backoffDelay(DEFAULT_RETRY, 0, e)).toBe(DEFAULT_RETRY.maxRetryAfterMs);
  });

  it('pages through every result with listAll, in page order, the pages after the first side by side', async () => {
    const srv = (n: number) => ({
      id: `srv-${n}`,
      name: `n${n}`,
      status: 'running',
      server_type: 't',
      image: 'i',
      zone: 'z',
      region: 'r',
      labels: {},
      public_ipv4: null,
      public_ipv6: null,
      private_ipv4: null,
      private_networks: [],
      locked: false,
      created: '2026-01-01T00:00:00Z',
    });
    const page: Reply = (req, res) => {
      const n = Number(new URL(req.url!, 'http://x').searchParams.get('page'));
      // The list grew while it was read: page 3 says a page 4 now exists.
      const next = n < 3 ? n + 1 : n === 3 ? 4 : null;
      // Later pages answer first: the result must still be in page order.
      setTimeout(
        () =>
          json(200, {
            servers: [srv(n)],
            meta: { pagination: { page: n, per_page: 1, previous_page: null, next_page: next, last_page: 3, total_entries: 3 } },
          })(req, res),
        n === 2 ? 60 : 0,
      );
    };
    const { url, seen } = await serve([page, page, page, page]);
    const all = await client(url).servers.listAll({ label_selector: 'a=b' });
    expect(all.map((s) => s.id)).toEqual(['srv-1', 'srv-2', 'srv-3', 'srv-4']);
    expect(seen.map((r) => new URL(r.url!, 'http://x').searchParams.get('page')).sort()).toEqual(['1', '2', '3', '4']);
    expect(new URL(seen[0]!.url!, 'http://x').searchParams.get('label_selector')).toBe('a=b');
  });

  it('names each error after the method that made the call', async () => {
    const replies = Array.from({ length: 60 }, () => err(404, 'not_found'));
    const { url } = await serve(replies);
    const c = client(url, [], { retry: { maxRetries: 0 } });
    const groups = {
      servers: c.servers,
      networks: c.networks,
      loadBalancers: c.loadBalancers,
      serverGroups: c.serverGroups,
      firewallPolicies: c.firewallPolicies,
      ipBlocks: c.ipBlocks,
      actions: c.actions,
    };
    for (const [group, api] of Object.entries(groups)) {
      const proto = Object.getPrototypeOf(api) as Record<string, unknown>;
      for (const method of Object.getOwnPropertyNames(proto).filter((m) => m !== 'constructor' && m !== 'listAll')) {
        const fn = (api as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
        const e = (await fn.call(api, 'x-1', {}, {}).catch((x: unknown) => x)) as SimcloudApiError;
        expect(e.operation, `${group}.${method}`).toBe(`${group}.${method}`);
      }
    }
  });

  it('repeats a write only when it was not carried out, carries an idempotency key, or never left', async () => {
    const { url, seen } = await serve([err(500, 'server_error'), json(201, { x: 1 })]);
    await expect(client(url).servers.create({ name: 'n', server_type: 't', image: 'i', zone: 'z' })).rejects.toMatchObject({ code: 'server_error' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['idempotency-key']).toMatch(/^idem-/);
    // A port nobody listens on: the connection is refused before a byte is written.
    const { url: closed } = await serve([]);
    servers.splice(0).forEach((s) => s.close());
    const refused = (await client(closed, [], { retry: { maxRetries: 0 } })
      .catalogue.zones()
      .catch((x: unknown) => x)) as SimcloudApiError;
    expect(refused.code).toBe('network_error');
    const write = (headers: Record<string, string> = {}): TransportRequest => ({ method: 'POST', path: '/v1/servers', headers, operation: 'servers.create' });
    const answered = (code: 'server_error' | 'locked' | 'rate_limit_exceeded'): SimcloudApiError =>
      new SimcloudApiError({ code, message: code, status: 500, requestId: '', operation: 'x' });
    const lost = new SimcloudApiError({
      code: 'network_error',
      message: 'reset',
      status: 0,
      requestId: '',
      operation: 'x',
      cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
    });
    expect(mayRepeat(write(), refused)).toBe(true);
    expect(mayRepeat(write(), lost)).toBe(false);
    expect(mayRepeat(write(), answered('server_error'))).toBe(false);
    expect(mayRepeat(write({ 'idempotency-key': 'k' }), answered('server_error'))).toBe(true);
    expect(mayRepeat(write(), answered('locked'))).toBe(true);
    expect(mayRepeat(write(), answered('rate_limit_exceeded'))).toBe(true);
    expect(mayRepeat({ ...write(), method: 'DELETE' }, lost)).toBe(true);
  });
});

describe('waitForAction', () => {
  const action = (status: string): Reply =>
    json(200, {
      action: {
        id: 'act-1',
        command: 'create_load_balancer',
        status,
        progress: 0,
        started: '2026-01-01T00:00:00Z',
        finished: null,
        resources: [],
        error: null,
      },
    });

  it('polls at the interval, doubling up to maxIntervalMs, until the action succeeds', async () => {
    const { url, seen } = await serve([action('running'), action('running'), action('running'), action('running'), action('success')]);
    const slept: number[] = [];
    const done = await client(url, slept).waitForAction('act-1', { intervalMs: 100, maxIntervalMs: 300 });
    expect(done.status).toBe('success');
    expect(seen).toHaveLength(5);
    expect(slept).toEqual([100, 200, 300, 300]);
  });

  it('starts from an action a call returned: a finished one costs no call, a running one is read after the first interval', async () => {
    const finished: Action = {
      id: 'act-1',
      command: 'create_load_balancer',
      status: 'success',
      progress: 100,
      started: '2026-01-01T00:00:00Z',
      finished: '2026-01-01T00:00:01Z',
      resources: [],
      error: null,
    };
    const { url, seen } = await serve([action('running'), action('success')]);
    const slept: number[] = [];
    expect(await client(url, slept).waitForAction(finished)).toEqual(finished);
    expect(seen).toHaveLength(0);
    const done = await client(url, slept).waitForAction(
      { ...finished, status: 'running', progress: 0, finished: null },
      { intervalMs: 100, maxIntervalMs: 400 },
    );
    expect(done.status).toBe('success');
    expect(seen).toHaveLength(2);
    expect(slept).toEqual([100, 200]);
  });

  it('keeps a fixed interval without maxIntervalMs', async () => {
    const { url } = await serve([action('running'), action('running'), action('success')]);
    const slept: number[] = [];
    await client(url, slept).waitForAction('act-1', { intervalMs: 250 });
    expect(slept).toEqual([250, 250]);
  });
});
