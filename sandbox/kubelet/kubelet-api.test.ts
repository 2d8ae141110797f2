import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { request } from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { generateCa, issueClientCertificate } from '../control-plane/pki.ts';
import { KubeletApi, KubeletApiError, kubeletApiFactory, logContainerId, logOptions } from './kubelet-api.ts';

const NOW = Date.parse('2026-11-29T04:00:00Z');
const options = (query: string): ReturnType<typeof logOptions> => logOptions(new URLSearchParams(query), NOW);

const pod = (status: Partial<V1ContainerStatus>): V1Pod => ({
  metadata: { name: 'p' },
  status: { containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 0, ...status }] },
});
const ended = (containerID: string): { terminated: { exitCode: number; containerID: string } } => ({ terminated: { exitCode: 1, containerID } });

describe('kubelet API', () => {
  it('decodes the query kubectl sends, as the kubelet does', () => {
    expect(options('follow=true&tailLines=10&timestamps=1&limitBytes=100&previous=false')).toEqual({
      options: { follow: true, timestamps: true, tailLines: 10, limitBytes: 100, sinceMs: undefined },
      previous: false,
    });
    expect(options('sinceSeconds=60').options.sinceMs).toBe(NOW - 60_000);
    expect(options('sinceTime=2026-11-29T03:00:00Z').options.sinceMs).toBe(NOW - 3_600_000);
    // The legacy `tail`, "all" being every line.
    expect(options('tail=3').options.tailLines).toBe(3);
    expect(options('tail=all').options.tailLines).toBeUndefined();
  });

  it.each([
    ['follow=yes', 'Unable to decode query.'],
    ['tailLines=x', 'Unable to decode query.'],
    ['tailLines=-1', 'Invalid request.'],
    ['limitBytes=0', 'Invalid request.'],
    ['sinceSeconds=0', 'Invalid request.'],
    ['sinceSeconds=5&sinceTime=2026-11-29T03:00:00Z', 'Invalid request.'],
  ])('refuses %s (%s)', (query, message) => {
    expect(() => options(query)).toThrow(message);
  });

  it('reads the run the kubelet reads: running, terminated, the crashed one while backing off, the previous one', () => {
    expect(logContainerId(pod({ containerID: 'process://u/c/1', state: { running: {} } }), 'c', false)).toBe('process://u/c/1');
    expect(logContainerId(pod({ state: ended('process://u/c/0') }), 'c', false)).toBe('process://u/c/0');
    const backingOff = pod({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: ended('process://u/c/2') });
    expect(logContainerId(backingOff, 'c', false)).toBe('process://u/c/2');
    expect(logContainerId(backingOff, 'c', true)).toBe('process://u/c/2');
  });

  it.each([
    [pod({ state: { running: {} }, containerID: 'virtual://u/c' }), true, 'previous terminated container "c" in pod "p" not found'],
    [pod({ state: { waiting: { reason: 'ContainerCreating' } } }), false, 'container "c" in pod "p" is waiting to start: ContainerCreating'],
    [pod({}), false, 'container "c" in pod "p" is waiting to start - no logs yet'],
    [{ metadata: { name: 'p' }, status: {} }, false, 'container "c" in pod "p" is not available'],
  ])('answers the kubelet message for a container with no such run (%#)', (p: V1Pod, previous, message) => {
    expect(() => logContainerId(p, 'c', previous)).toThrow(message);
  });

  it('binds loopback addresses only', () => {
    const make = (address: string): KubeletApi =>
      new KubeletApi({ nodeName: 'n', address, tls: () => Promise.reject(new Error('unused')), apiServerUser: 'x', core: {} as never });
    expect(() => make('192.0.2.1')).toThrow(KubeletApiError);
    expect(make('127.20.0.5').port).toBe(0);
  });

  it("covers another of the Node's addresses on demand: its certificate verifies for it and its Host is taken", async () => {
    const ca = await generateCa('test-ca');
    const api = kubeletApiFactory({ ca, core: {} as never, apiServerUser: 'apiserver' })('n1', '127.0.0.1');
    const port = await api.start();
    const client = await issueClientCertificate(ca, 'CN=apiserver');
    // As kube-apiserver dialling 10.0.0.5 through its egress proxy: TLS verified for that address, Host naming it.
    const get = (as: string, hostHeader = `${as}:${port}`): Promise<number | string> =>
      new Promise((resolve) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/healthz',
            headers: { host: hostHeader },
            ca: ca.cert,
            cert: client.cert,
            key: client.key,
            checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(as, cert),
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
        req.end();
      });
    try {
      expect(await get('10.0.0.5')).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(await get('n1')).toBe(200);
      await api.cover(['10.0.0.5', 'N1', '203.0.113.7']);
      expect(await get('10.0.0.5')).toBe(200);
      expect(await get('203.0.113.7')).toBe(200);
      expect(await get('10.0.0.6')).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      // On an upgrade (port-forward) the apiserver passes on its own client's Host: loopback is taken, a name is not.
      expect(await get('n1', '127.0.0.1:6443')).toBe(200);
      expect(await get('n1', 'rebound.example:6443')).toBe(400);
    } finally {
      await api.stop();
    }
  });
});
