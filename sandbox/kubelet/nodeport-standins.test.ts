import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../ports.ts';
import { NodePortStandIns, type StandInReply } from './nodeport-standins.ts';

function exchange(ip: string, port: number, send?: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: ip, port });
    let out = '';
    socket.on('connect', () => {
      if (send !== undefined) socket.write(send);
    });
    socket.on('data', (d: Buffer) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

const parseJson = (s: string): StandInReply => JSON.parse(s.slice(s.indexOf('{'))) as StandInReply;

describe('NodePort stand-ins', () => {
  const standIns = new NodePortStandIns();
  afterEach(() => standIns.close());

  it('answers an HTTP request on every node address with the node and service', async () => {
    const port = await freePort('127.0.0.1');
    await standIns.apply([{ name: 'w1', ips: ['127.0.0.1'] }], [{ namespace: 'default', name: 'web', nodePorts: [port] }]);
    const res = await exchange('127.0.0.1', port, 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(res).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(parseJson(res)).toMatchObject({ node: 'w1', service: 'default/web', nodePort: port, path: '/healthz', proxy: null });
  });

  it('answers 503 under /unhealthy, so a health check path can be shown to matter', async () => {
    const port = await freePort('127.0.0.1');
    await standIns.apply([{ name: 'w4', ips: ['127.0.0.1'] }], [{ namespace: 'default', name: 'web', nodePorts: [port] }]);
    expect(await exchange('127.0.0.1', port, 'GET /unhealthy HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 503/);
  });

  it('speaks first to a silent TCP client and reports a PROXY v1 header it received', async () => {
    const port = await freePort('127.0.0.1');
    await standIns.apply([{ name: 'w2', ips: ['127.0.0.1'] }], [{ namespace: 'ns', name: 'tcp', nodePorts: [port] }]);
    expect(parseJson(await exchange('127.0.0.1', port))).toMatchObject({ node: 'w2', service: 'ns/tcp', path: null });
    const res = await exchange('127.0.0.1', port, `PROXY TCP4 127.9.9.9 127.1.0.1 40000 80\r\nGET / HTTP/1.1\r\n\r\n`);
    expect(parseJson(res).proxy).toEqual({ version: 1, protocol: 'TCP4', srcAddress: '127.9.9.9', dstAddress: '127.1.0.1', srcPort: 40000, dstPort: 80 });
  });

  it('stops listening when the node or the service goes away', async () => {
    const port = await freePort('127.0.0.1');
    await standIns.apply([{ name: 'w3', ips: ['127.0.0.1'] }], [{ namespace: 'd', name: 's', nodePorts: [port] }]);
    expect(standIns.listening()).toEqual([`127.0.0.1:${port}`]);
    await standIns.apply([], [{ namespace: 'd', name: 's', nodePorts: [port] }]);
    expect(standIns.listening()).toEqual([]);
    await expect(exchange('127.0.0.1', port)).rejects.toThrow(/ECONNREFUSED/);
  });
});
