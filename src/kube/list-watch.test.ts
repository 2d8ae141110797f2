import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from './api-client.ts';
import { FakeClock } from './clock.ts';
import { nodeInformer } from './informer.ts';
import { ListWatch } from './list-watch.ts';
import { KubeApiError, KubeTransport } from './transport.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const node = (name: string, rv: string): V1Node => ({ metadata: { name, resourceVersion: rv } });

/**
 * An apiserver stand-in for `/api/v1/nodes`: the list answers `listed` at version 10, or 410 Expired when
 * asked for a version in `compacted`; each watch request takes the next script, whose lines are written and
 * then the response ends (or stays open when `hold`).
 */
async function apiserver(
  listed: V1Node[],
  watches: Array<{ lines: unknown[]; hold?: boolean }>,
  compacted: readonly string[] = [],
): Promise<{ client: KubeClient; watchQueries: URLSearchParams[]; listQueries: URLSearchParams[]; open: ServerResponse[] }> {
  const watchQueries: URLSearchParams[] = [];
  const listQueries: URLSearchParams[] = [];
  const open: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') !== 'true') {
      listQueries.push(url.searchParams);
      const version = url.searchParams.get('resourceVersion');
      if (version !== null && compacted.includes(version)) {
        res.writeHead(410, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: `too old resource version: ${version} (8)` }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'NodeList', metadata: { resourceVersion: '10' }, items: listed }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    const script = watches[watchQueries.length] ?? { lines: [], hold: true };
    watchQueries.push(url.searchParams);
    for (const line of script.lines) res.write(`${JSON.stringify(line)}\n`);
    if (script.hold) open.push(res);
    else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const transport = new KubeTransport({
    server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    source: 'test',
    insecureSkipTlsVerify: false,
    credentials: { kind: 'none' },
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  cleanups.push(() => transport.close());
  return { client: new KubeClient(transport, undefined), watchQueries, listQueries, open };
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
    const { client, watchQueries } = await apiserver(
      [node('a', '5')],
      [
        {
          lines: [
            { type: 'ADDED', object: node('b', '11') },
            { type: 'MODIFIED', object: node('a', '12') },
            { type: 'DELETED', object: node('b', '13') },
          ],
          hold: true,
        },
      ],
    );
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client, timeoutSeconds: () => 400 });
    const { log } = record(lw);
    await lw.start();
    expect(log).toEqual(['connect', 'add a@5']);
    await expect.poll(() => log.length).toBe(6);
    expect(log.slice(2)).toEqual(['connect', 'add b@11', 'update a@12', 'delete b']);
    expect(Object.fromEntries(watchQueries[0] ?? [])).toEqual({ resourceVersion: '10', allowWatchBookmarks: 'true', timeoutSeconds: '400', watch: 'true' });
  });

  it('re-watches from the last version seen (a bookmark counts) when the server ends a watch', async () => {
    const { client, watchQueries } = await apiserver(
      [],
      [
        {
          lines: [
            { type: 'ADDED', object: node('a', '11') },
            { type: 'BOOKMARK', object: { kind: 'Node', metadata: { resourceVersion: '20' } } },
          ],
        },
        { lines: [], hold: true },
      ],
    );
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client });
    const { errors } = record(lw);
    await lw.start();
    await expect.poll(() => watchQueries.length).toBe(2);
    expect(watchQueries[1]?.get('resourceVersion')).toBe('20');
    expect(lw.resourceVersion).toBe('20');
    expect(errors).toEqual([]);
  });

  it("lists first from the apiserver's cache (resourceVersion 0), as client-go's first list does", async () => {
    const { client, listQueries } = await apiserver([node('a', '5')], []);
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client });
    record(lw);
    await lw.start();
    expect(listQueries.map((q) => q.get('resourceVersion'))).toEqual(['0']);
    expect(lw.resourceVersion).toBe('10');
  });

  it('relists at the version given, and consistently (no resourceVersion) when the apiserver has compacted it', async () => {
    const { client, listQueries } = await apiserver([node('a', '5')], [], ['7']);
    const lw = new ListWatch<V1Node>({ path: '/api/v1/nodes', client, resourceVersion: '7' });
    const { log, errors } = record(lw);
    await lw.start();
    expect(listQueries.map((q) => q.get('resourceVersion'))).toEqual(['7', null]);
    expect(log).toEqual(['connect', 'add a@5']);
    expect(errors).toEqual([]);
  });

  it('ends the session with an error when the watch cannot resume (410 Gone)', async () => {
    const { client, watchQueries } = await apiserver(
      [],
      [{ lines: [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (15)' } }], hold: true }],
    );
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

describe('nodeInformer', () => {
  it('relists from the version its last session reached, not from a consistent read', async () => {
    const expired = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 12 (15)' } };
    const { client, listQueries } = await apiserver(
      [node('a', '5')],
      [{ lines: [{ type: 'MODIFIED', object: node('a', '12') }, expired] }, { lines: [], hold: true }],
    );
    const clock = new FakeClock();
    const informer = nodeInformer({ client, logger: pino({ level: 'silent' }), clock });
    const abort = new AbortController();
    const running = informer.run(abort.signal);
    cleanups.push(async () => {
      abort.abort();
      await running;
    });
    await expect.poll(() => informer.get('a')?.metadata?.resourceVersion).toBe('12');
    await expect
      .poll(async () => {
        await clock.advance(1_000);
        return listQueries.length;
      })
      .toBe(2);
    expect(listQueries.map((q) => q.get('resourceVersion'))).toEqual(['0', '12']);
  });
});
