// Cross-site requests from a real browser (Debian's chromium through playwright-core): a page on another
// origin tries the "simple" requests any web page can send without asking (a text/plain fetch, a form
// post), the preflighted ones (JSON with a token header), and DNS rebinding (the attacker's name
// resolving to 127.0.0.1, so the page's own origin is the console's port under another name). Chromium
// resolves attacker.example to 127.0.0.1 through --host-resolver-rules, so nothing leaves loopback.
// Every case checks what the browser got AND that the cloud did not change; the console's own page,
// last, still changes it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../browser/console-harness.ts';
import { startConsoleUnderTest, type ConsoleUnderTest } from './support.ts';

const ATTACKER = 'attacker.example';

describe('cross-site requests from a browser page on another origin', () => {
  let c: ConsoleUnderTest;
  let browser: Browser;
  let evil: Server;
  let evilOrigin: string;
  let page: Page;

  beforeAll(async () => {
    c = await startConsoleUnderTest();
    evil = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a page the developer opened</title><body></body>'),
    );
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilOrigin = `http://${ATTACKER}:${(evil.address() as AddressInfo).port}`;
    browser = await launchChromium([`--host-resolver-rules=MAP ${ATTACKER} 127.0.0.1`]);
    page = await browser.newPage();
    await page.goto(`${evilOrigin}/`);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
    await c?.close();
  });

  const consoleUrl = (path: string): string => `${c.console.url}${path}`;
  const simUrl = (path: string): string => `${c.sc.url}${path}`;

  async function unchanged<T>(attack: () => Promise<T>): Promise<T> {
    const before = c.seq();
    const result = await attack();
    expect(c.seq()).toBe(before);
    expect((await c.sc.client.servers.get(c.serverId)).status).toBe('running');
    return result;
  }

  /**
   * Sends a request from the attacker's page; returns the status the browser received for it (0: none, the
   * request was blocked before it was sent) and the error fetch threw, if any.
   */
  async function fromPage(
    url: string,
    init: { method: string; mode?: 'no-cors' | 'cors'; headers: Record<string, string>; body?: string },
  ): Promise<{ status: number; error: string | null }> {
    const seen: number[] = [];
    const onResponse = (r: Response): void => {
      if (r.url() === url && r.request().method() === init.method) seen.push(r.status());
    };
    page.on('response', onResponse);
    const answered = page.waitForResponse((r) => r.url() === url && r.request().method() === init.method);
    const error = await page.evaluate(
      async ([u, i]) => {
        try {
          await fetch(u, i);
          return null;
        } catch (err) {
          return (err as Error).name;
        }
      },
      [url, init] as const,
    );
    // A fetch that resolved had its response; one that threw may have had none.
    if (error === null) seen.push((await answered).status());
    else answered.catch(() => undefined);
    page.off('response', onResponse);
    return { status: seen[0] ?? 0, error };
  }

  it('a text/plain POST to /api/actions/reset (no preflight) reaches the console and is refused 403 for its Origin', async () => {
    const r = await unchanged(() =>
      fromPage(consoleUrl('api/actions/reset'), { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' }),
    );
    expect(r).toEqual({ status: 403, error: null });
  });

  it('a cross-site form post (text/plain and urlencoded) to an action is refused 403', async () => {
    for (const enctype of ['text/plain', 'application/x-www-form-urlencoded']) {
      await page.goto(`${evilOrigin}/`);
      const navigation = page.waitForResponse((r) => r.url() === consoleUrl('api/actions/server'), { timeout: 5000 });
      await unchanged(async () => {
        await page.evaluate(
          ([action, type, id]) => {
            const form = document.createElement('form');
            Object.assign(form, { method: 'POST', action, enctype: type });
            for (const [name, value] of [
              ['serverId', id],
              ['action', 'poweroff'],
            ] as const) {
              const input = Object.assign(document.createElement('input'), { name, value });
              form.append(input);
            }
            document.body.append(form);
            form.submit();
          },
          [consoleUrl('api/actions/server'), enctype, c.serverId] as const,
        );
        expect((await navigation).status(), enctype).toBe(403);
        await page.waitForURL(consoleUrl('api/actions/server'));
      });
    }
    await page.goto(`${evilOrigin}/`);
  });

  it('a JSON POST with a guessed token header needs a preflight, which is refused, so the POST is never sent', async () => {
    const body = JSON.stringify({ serverId: c.serverId, action: 'poweroff' });
    const r = await unchanged(() =>
      fromPage(consoleUrl('api/actions/server'), { method: 'POST', headers: { 'content-type': 'application/json', 'x-console-token': 'guess' }, body }),
    );
    expect(r).toEqual({ status: 0, error: 'TypeError' });
    const sim = await unchanged(() =>
      fromPage(simUrl('/_sim/reset'), { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer guess' }, body: '{}' }),
    );
    expect(sim).toEqual({ status: 0, error: 'TypeError' });
  });

  it('cannot read the console state or the cloud cross-origin (no CORS grant)', async () => {
    for (const url of [consoleUrl('api/state'), simUrl('/_sim/health'), simUrl('/metrics')]) {
      const r = await fromPage(url, { method: 'GET', headers: {} });
      expect(r.error, url).toBe('TypeError');
    }
  });

  it('after DNS rebinding (the attacker name on the console and simcloud ports) gets 403 for the page, the state, the token and every action', async () => {
    const rebound = `http://${ATTACKER}:${c.port}`;
    const res = await page.goto(`${rebound}/`);
    expect(res?.status()).toBe(403);
    expect(await page.content()).not.toContain(c.console.token);
    const results = await unchanged(() =>
      page.evaluate(async () => {
        const state = await fetch('/api/state');
        const reset = await fetch('/api/actions/reset', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        return [state.status, reset.status, (await state.text()).includes('victim')];
      }),
    );
    expect(results).toEqual([403, 403, false]);
    const simPort = new URL(c.sc.url).port;
    const health = await page.goto(`http://${ATTACKER}:${simPort}/_sim/health`);
    expect(health?.status()).toBe(403);
    expect(await health?.json()).toMatchObject({ error: { code: 'forbidden', details: { fields: [{ name: 'host' }] } } });
  });

  // Last: it changes the cloud. The console's own page still works, so the refusals above were the guard's.
  it("the console's own page sends its token and changes the sandbox", async () => {
    const own = await browser.newPage();
    await own.goto(c.console.url);
    const before = c.seq();
    // A string, so the test runner does not rewrite the page's import().
    const result = await own.evaluate<{ ok: boolean; message: string }>(
      `import('/js/store.js').then((m) => m.postAction('server', { serverId: '${c.serverId}', action: 'poweroff' }))`,
    );
    expect(result.ok, result.message).toBe(true);
    expect(c.seq()).toBeGreaterThan(before);
    await own.close();
  });
});
