import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, connect, type Server, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy } from './egress-proxy.ts';
import type { NodeView } from './egress-target.ts';

/** A CONNECT over the proxy's socket as kube-apiserver writes it; answers the status line and what the tunnel echoes back. */
function tunnel(socketPath: string, target: string, host = '127.0.0.1'): Promise<{ status: string; echoed: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let data = '';
    socket.on('error', reject);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString();
      const [head, rest = ''] = data.split('\r\n\r\n', 2);
      if (!data.includes('\r\n\r\n')) return;
      const status = head!.split('\r\n')[0]!;
      if (!status.startsWith('HTTP/1.1 200')) return resolve({ status, echoed: '' });
      if (rest === '') socket.write('ping');
      else if (rest.length >= 4) {
        socket.destroy();
        resolve({ status, echoed: rest });
      }
    });
  });
}

describe('egress proxy', () => {
  let dir: string;
  let echo: Server;
  let echoPort: number;
  let other: Server;
  let otherPort: number;
  let proxy: EgressProxy;
  const covered: string[][] = [];
  let nodes: NodeView[] = [];
  let listed = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'egress-proxy-'));
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoPort = (echo.address() as AddressInfo).port;
    other = createServer((s) => s.pipe(s));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherPort = (other.address() as AddressInfo).port;
    proxy = await EgressProxy.listen({
      socketPath: join(dir, 'egress.sock'),
      logger: pino({ level: 'silent' }),
      nodes: () => {
        listed += 1;
        return Promise.resolve(nodes);
      },
    });
    proxy.kubelets.add('w1', { address: '127.0.0.1', port: echoPort, cover: (names) => Promise.resolve(void covered.push([...names])) });
  });

  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => echo.close(resolve));
    await new Promise((resolve) => other.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on a socket only its user may open', () => {
    expect(statSync(proxy.socketPath).mode & 0o777).toBe(0o600);
  });

  it("tunnels a loopback target on no kubelet's port without reading the Nodes", async () => {
    const before = listed;
    expect(await tunnel(proxy.socketPath, `127.0.0.1:${otherPort}`)).toEqual({ status: 'HTTP/1.1 200 Connection established', echoed: 'ping' });
    expect(listed).toBe(before);
  });

  it("tunnels a Node's RFC 1918 address to its kubelet on loopback, its certificate first covering the Node's addresses", async () => {
    nodes = [{ name: 'w1', kubeletPort: 10250, addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] }];
    expect(await tunnel(proxy.socketPath, '10.0.0.5:10250')).toEqual({ status: 'HTTP/1.1 200 Connection established', echoed: 'ping' });
    expect(covered.at(-1)).toEqual(['10.0.0.5']);
  });

  it('refuses a pod IP with 403 and the reason in its status line, and counts it', async () => {
    const before = proxy.counts.refused;
    expect((await tunnel(proxy.socketPath, '10.244.1.5:80')).status).toBe(
      "HTTP/1.1 403 ccm-sandbox dials loopback only (127.0.0.0/8, ::1): 10.244.1.5:80 is not a loopback address nor a Node's address with its kubelet port",
    );
    expect(proxy.counts.refused).toBe(before + 1);
  });

  it('answers 502 when nothing listens at a loopback target', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    expect((await tunnel(proxy.socketPath, `127.0.0.1:${port}`)).status).toBe(`HTTP/1.1 502 dial 127.0.0.1:${port} failed: ECONNREFUSED`);
  });

  it("refuses a CONNECT whose Host is not kube-apiserver's, and a malformed target", async () => {
    expect((await tunnel(proxy.socketPath, `127.0.0.1:${otherPort}`, 'evil.example')).status).toBe("HTTP/1.1 400 Host evil.example is not kube-apiserver's");
    expect((await tunnel(proxy.socketPath, 'nowhere')).status).toBe('HTTP/1.1 400 malformed CONNECT target "nowhere" (host:port expected)');
  });
});
