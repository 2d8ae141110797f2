// The teaching console against hostile requests: DNS-rebinding Host headers, cross-site and token-less
// state changes, non-JSON bodies, oversized and malformed bodies, path traversal in static paths. Each
// refusal is checked for its answer AND for the cloud not having changed (the store's commit sequence and
// the victim server's status). Includes the three requests a new user found served before the guard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileHosts, loopbackHosts, raw, startConsoleUnderTest, type ConsoleUnderTest } from './support.ts';

describe('console surface', () => {
  let c: ConsoleUnderTest;
  let base: string;

  beforeAll(async () => {
    c = await startConsoleUnderTest(['console.dev.test']);
    base = c.console.url;
  });

  afterAll(async () => {
    await c?.close();
  });

  const victimStatus = async (): Promise<string> => (await c.sc.client.servers.get(c.serverId)).status;
  const json = (body: unknown): { 'content-type': string } => (void body, { 'content-type': 'application/json' });
  const withToken = (extra: Record<string, string> = {}): Record<string, string> => ({ 'x-console-token': c.console.token, ...extra });

  /** Runs `attack`, then asserts the cloud did not change. */
  async function unchanged<T>(attack: () => Promise<T>): Promise<T> {
    const before = c.seq();
    const result = await attack();
    expect(c.seq()).toBe(before);
    expect(await victimStatus()).toBe('running');
    return result;
  }

  describe('the three requests that were served before', () => {
    it('GET /api/state with Host: attacker.example is 403 naming the allowed hosts, no state in the body', async () => {
      const r = await raw(`${base}api/state`, { host: 'attacker.example' });
      expect(r.status).toBe(403);
      expect(r.json()).toMatchObject({
        error: 'forbidden_host',
        field: 'host',
        allowed_hosts: [`127.0.0.1:${c.port}`, `localhost:${c.port}`, `[::1]:${c.port}`, 'console.dev.test'],
      });
      expect(r.text).not.toContain(c.serverId);
    });

    it('a JSON POST /api/actions/server with Origin: http://attacker.example is 403 and the server stays on', async () => {
      const body = JSON.stringify({ serverId: c.serverId, action: 'poweroff' });
      for (const headers of [{ ...json(body), origin: 'http://attacker.example' }, withToken({ ...json(body), origin: 'http://attacker.example' })]) {
        const r = await unchanged(() => raw(`${base}api/actions/server`, { method: 'POST', headers, body }));
        expect(r.status).toBe(403);
        expect(r.json()).toMatchObject({ error: 'forbidden_origin', field: 'origin' });
      }
    });

    it('POST /api/actions/reset with Content-Type: text/plain is refused (401 without the token, 415 with it) and resets nothing', async () => {
      const plain = { 'content-type': 'text/plain' };
      const noToken = await unchanged(() => raw(`${base}api/actions/reset`, { method: 'POST', headers: plain, body: '{}' }));
      expect(noToken.status).toBe(401);
      expect(noToken.json()).toMatchObject({ error: 'unauthorized', field: 'x-console-token' });
      const token = await unchanged(() => raw(`${base}api/actions/reset`, { method: 'POST', headers: withToken(plain), body: '{}' }));
      expect(token.status).toBe(415);
      expect(token.json()).toMatchObject({ error: 'unsupported_media_type', field: 'content-type' });
      const form = await unchanged(() =>
        raw(`${base}api/actions/reset`, { method: 'POST', headers: withToken({ 'content-type': 'application/x-www-form-urlencoded' }), body: 'a=1' }),
      );
      expect(form.status).toBe(415);
    });
  });

  it('answers every route with 403 for each DNS-rebinding Host, and serves loopback and --allowed-host names', async () => {
    for (const path of ['', 'index.html', 'api/state', 'api/timeline', 'api/annotations', 'js/app.js', 'api/stream']) {
      for (const host of hostileHosts(c.port)) {
        const r = await raw(`${base}${path}`, { host, maxBytes: 4096 });
        expect(r.status, `${host} ${path}`).toBe(403);
        expect(r.text).not.toContain(c.console.token);
      }
      for (const host of [...loopbackHosts(c.port), 'console.dev.test:8080'])
        expect((await raw(`${base}${path}`, { host, maxBytes: 1 })).status, `${host} /${path}`).toBe(200);
    }
    // No Host at all: Node's HTTP server refuses HTTP/1.1 without one before any handler runs.
    expect((await raw(`${base}api/state`, { host: null })).status).toBe(400);
  });

  it('hands the token to its own page only: index.html carries it in a meta tag', async () => {
    const page = await raw(base);
    expect(page.text).toContain(`<meta name="console-token" content="${c.console.token}">`);
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('refuses a state change with a missing or wrong token, a null or foreign Origin, and answers no CORS preflight', async () => {
    const body = JSON.stringify({ serverId: c.serverId, action: 'poweroff' });
    const cases: [Record<string, string>, number][] = [
      [json(body), 401],
      [{ ...json(body), 'x-console-token': 'wrong' }, 401],
      [{ ...json(body), 'x-console-token': `${c.console.token}x` }, 401],
      [{ ...json(body), authorization: `Bearer ${c.console.token}` }, 401],
      [withToken({ ...json(body), origin: 'null' }), 403],
      [withToken({ ...json(body), origin: `https://127.0.0.1:${c.port}` }), 403],
      [withToken({ ...json(body), origin: `http://127.0.0.1:${c.port + 1}` }), 403],
      [withToken({ ...json(body), origin: `http://localhost.attacker.example:${c.port}` }), 403],
    ];
    for (const [headers, status] of cases) {
      const r = await unchanged(() => raw(`${base}api/actions/server`, { method: 'POST', headers, body }));
      expect(r.status, JSON.stringify(headers)).toBe(status);
    }
    const preflight = await unchanged(() =>
      raw(`${base}api/actions/server`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://attacker.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-console-token',
        },
      }),
    );
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    for (const method of ['PUT', 'DELETE', 'PATCH']) expect((await unchanged(() => raw(`${base}api/state`, { method }))).status, method).toBe(401);
  });

  it('takes a state change with the token and JSON, from its own Origin or from a client without one', async () => {
    const fault = JSON.stringify({ kind: 'error', probability: 0.01, scope: 'servers' });
    for (const origin of [`http://127.0.0.1:${c.port}`, `http://localhost:${c.port}`, undefined]) {
      const before = c.sc.sim.faults.list().length;
      const headers = withToken({ 'content-type': 'application/json', ...(origin ? { origin } : {}) });
      const r = await raw(`${base}api/actions/fault`, { method: 'POST', headers, body: fault });
      expect(r.status, String(origin)).toBe(202);
      expect(c.sc.sim.faults.list()).toHaveLength(before + 1);
    }
    c.sc.sim.faults.clear();
  });

  it('refuses oversized, malformed and deeply nested bodies with a JSON 4xx, changing nothing', async () => {
    const post = (body: string): Promise<{ status: number; json: unknown }> =>
      unchanged(async () => {
        const r = await raw(`${base}api/actions/server`, { method: 'POST', headers: withToken({ 'content-type': 'application/json' }), body });
        return { status: r.status, json: r.json() };
      });
    expect(await post(JSON.stringify({ serverId: c.serverId, action: 'poweroff', pad: 'x'.repeat(70_000) }))).toMatchObject({
      status: 413,
      json: { field: '(body)' },
    });
    expect(await post('{"serverId":')).toMatchObject({ status: 400, json: { error: 'invalid_request', field: '(body)' } });
    expect(await post(`${'['.repeat(20_000)}${']'.repeat(20_000)}`)).toMatchObject({ status: 400 });
    expect(await post(JSON.stringify({ serverId: c.serverId, action: 'poweroff', __proto__: { admin: true }, extra: 1 }))).toMatchObject({ status: 400 });
  });

  it('serves no file outside the static directory for traversal paths', async () => {
    for (const path of [
      '../../package.json',
      '..%2f..%2fpackage.json',
      '%2e%2e/%2e%2e/package.json',
      'js/..%2f..%2f..%2f..%2fpackage.json',
      'js%5c..%5c..%5c..%5cpackage.json',
      '....//....//package.json',
    ]) {
      const r = await raw(`${base}${path}`);
      expect([400, 403, 404], path).toContain(r.status);
      expect(r.text).not.toContain('"devDependencies"');
    }
  });

  // Last: it changes the cloud. The refusals above were the guard's, not a broken action.
  it('powers the server off for the same request once it carries the token and no foreign Origin', async () => {
    const before = c.seq();
    const body = JSON.stringify({ serverId: c.serverId, action: 'poweroff' });
    const r = await raw(`${base}api/actions/server`, {
      method: 'POST',
      headers: withToken({ 'content-type': 'application/json', origin: `http://127.0.0.1:${c.port}` }),
      body,
    });
    expect(r.status).toBe(202);
    expect(c.seq()).toBeGreaterThan(before);
  });
});
