import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { V1Node } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from './api-client.ts';
import { ListWatch } from './list-watch.ts';
import { KubeApiError, KubeTransport } from './transport.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const node = (name: string, rv: string): V1Node => ({ metadata: { name, resourceVersion: rv } });

/**
 * An apiserver stand-in for `/api/v1/nodes`: the list answers `listed`; each watch request takes the next
 * script, whose lines are written and then the response ends (or stays open when `hold`).
 */
async function apiserver(listed: V1Node[], watches: Array<{ lines: unknown[]; hold?: boolean }>): Promise<{ client: KubeClient; watchQueries: URLSearchParams[]; open: ServerResponse[] }> {
  const watchQueries: URLSearchParams[] = [];
  const open: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.searchParams.get('watch') !== 'true') {
      res.end(JSON.stringify({ kind: 'NodeList', metadata: { resourceVersion: '10' }, items: listed }));
      return;
    }
    const script = watches[watchQueries.length] ?? { lines: [], hold: true };
    watchQueries.push(url.searchParams);
    for (const line of script.lines) res.write(`${JSON.stringify(line)}\n`);
    if (script.hold) open.push(res);
    else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const transport = new KubeTransport({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, source: 'test', insecureSkipTlsVerify: false, credentials: { kind: 'none' } });
  cleanups.push(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  cleanups.push(() => transport.close());
  return { client: new KubeClient(transport, undefined), watchQueries, open };
}

function record(lw: ListWatch<V1Node>): { log: string[]; errors: unknown[] } {
  const log: string[] = [];
  const errors: unknown[] = [];
  lw.on('add', (n) => log.push(`add ${n.metadata?.name}@${n.metadata?.resourceVersion}`));
  lw.on('update', (n) => log.push(`update ${n.metadata?.name}@${n.metadata?.resourceVersion}`));
  lw.on('delete', (n) => log.push(`delete ${n.metadata?.name}`));
  lw.on('connect', () => log.push('connect'));
  lw.on('error', (err) => errors.push(err));
  cleanups.push(() => lw.stop());
  return { log, errors };
}

describe('ListWatch', () => {
  it('lists, then watches from the list version with bookmarks, delivering each event', async () => {
    const { client, watchQueries } = await apiserver([node('a', '5')], [{ lines: [{ type: 'ADDED', object: node('b', '11') }, { type: 'MODIFIED', object: node('a', '12') }, { type: 'DELETED', object: node('b', '13') }], hold: true }]);
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client, timeoutSeconds: () => 400 });
    const { log } = record(lw);
    await lw.start();
    expect(log).toEqual(['connect', 'add a@5']);
    await expect.poll(() => log.length).toBe(6);
    expect(log.slice(2)).toEqual(['connect', 'add b@11', 'update a@12', 'delete b']);
    expect(Object.fromEntries(watchQueries[0] ?? [])).toEqual({ resourceVersion: '10', allowWatchBookmarks: 'true', timeoutSeconds: '400', watch: 'true' });
  });

  it('re-watches from the last version seen (a bookmark counts) when the server ends a watch', async () => {
    const { client, watchQueries } = await apiserver([], [{ lines: [{ type: 'ADDED', object: node('a', '11') }, { type: 'BOOKMARK', object: { kind: 'Node', metadata: { resourceVersion: '20' } } }] }, { lines: [], hold: true }]);
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client });
    const { errors } = record(lw);
    await lw.start();
    await expect.poll(() => watchQueries.length).toBe(2);
    expect(watchQueries[1]?.get('resourceVersion')).toBe('20');
    expect(errors).toEqual([]);
  });

  it('ends the session with an error when the watch cannot resume (410 Gone)', async () => {
    const { client, watchQueries } = await apiserver([], [{ lines: [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (15)' } }], hold: true }]);
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client });
    const { errors } = record(lw);
    await lw.start();
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]).toBeInstanceOf(KubeApiError);
    expect(errors[0]).toMatchObject({ code: 410, reason: 'Expired' });
    expect(watchQueries).toHaveLength(1);
  });

  it('ends the session with an error on an event that is not a watch event', async () => {
    const { client } = await apiserver([], [{ lines: [{ type: 'SURPRISE', object: {} }], hold: true }]);
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client });
    const { errors } = record(lw);
    await lw.start();
    await expect.poll(() => errors.length).toBe(1);
    expect(String(errors[0])).toMatch(/not a watch event/);
  });

  it('stop() closes the open watch without reporting an error', async () => {
    const { client, open } = await apiserver([], [{ lines: [], hold: true }]);
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client });
    const { errors } = record(lw);
    await lw.start();
    await expect.poll(() => open.length).toBe(1);
    const closed = new Promise<void>((resolve) => open[0]?.once('close', () => resolve()));
    await lw.stop();
    await closed;
    expect(errors).toEqual([]);
  });
});
