import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { MemoryInformer } from '../../src/kube/shared-informer.ts';
import { endpointSlice, nodePortService } from '../../test/helpers/endpoint-slices.ts';
import { freePort } from '../ports.ts';
import { KubeProxyStandIn } from './kube-proxy.ts';
import type { StandInNode } from './nodeport-standins.ts';

describe('kube-proxy stand-in', () => {
  let proxy: KubeProxyStandIn | undefined;
  afterEach(() => proxy?.stop());

  // kube-proxy's health port on a free port (127.0.0.1 is shared); listening() below leaves it out.
  let proxier = 0;
  beforeAll(async () => {
    proxier = await freePort();
  });
  const setup = (nodes: StandInNode[] = [{ name: 'n1', ips: ['127.0.0.1'] }]) => {
    const services = new MemoryInformer<V1Service>();
    const slices = new MemoryInformer<V1EndpointSlice>();
    const standIn = new KubeProxyStandIn({ sources: { services, slices }, nodes: () => nodes, proxierHealthPort: proxier });
    proxy = standIn;
    const listening = (): string[] => standIn.listening().filter((k) => !k.endsWith(`:${proxier}`));
    return {
      services,
      slices,
      proxy: { start: () => standIn.start(), settled: () => standIn.settled(), nodesChanged: () => standIn.nodesChanged(), listening },
      nodes,
    };
  };
  const ready = (node = 'n1') => endpointSlice('d', 'web', [{ pod: 'web-0', node, ip: '10.244.1.2' }]);

  it('listens on a NodePort once the Service has a ready endpoint, and stops when the slice goes', async () => {
    const { services, slices, proxy } = setup();
    const port = await freePort();
    services.upsert(nodePortService('d', 'web', { nodePort: port }));
    await proxy.start();
    expect(proxy.listening()).toEqual([]);
    slices.upsert(ready());
    await proxy.settled();
    expect(proxy.listening()).toEqual([`127.0.0.1:${port}`]);
    slices.remove('d/web-hand');
    await proxy.settled();
    expect(proxy.listening()).toEqual([]);
  });

  it('ends in the state of the last change when changes arrive while an apply runs', async () => {
    const { services, slices, proxy } = setup();
    const [a, b] = [await freePort(), await freePort()];
    await proxy.start();
    services.upsert(nodePortService('d', 'web', { nodePort: a }));
    slices.upsert(ready());
    services.upsert(nodePortService('d', 'web', { nodePort: b }));
    slices.upsert(endpointSlice('d', 'web', [{ pod: 'web-0', node: 'n1', ip: '10.244.1.2', ready: false }]));
    slices.upsert(ready());
    await proxy.settled();
    expect(proxy.listening()).toEqual([`127.0.0.1:${b}`]);
  });

  it('follows the running nodes when told they changed', async () => {
    const { services, slices, proxy, nodes } = setup([]);
    const port = await freePort();
    services.upsert(nodePortService('d', 'web', { nodePort: port }));
    slices.upsert(ready());
    await proxy.start();
    expect(proxy.listening()).toEqual([]);
    nodes.push({ name: 'n1', ips: ['127.0.0.1'] });
    proxy.nodesChanged();
    await proxy.settled();
    expect(proxy.listening()).toEqual([`127.0.0.1:${port}`]);
  });

  it('applies nothing until both caches are synced', async () => {
    const { services, slices, proxy } = setup();
    slices.synced = false;
    const port = await freePort();
    services.upsert(nodePortService('d', 'web', { nodePort: port }));
    slices.upsert(ready());
    await proxy.settled();
    expect(proxy.listening()).toEqual([]);
    slices.synced = true;
    await proxy.start();
    expect(proxy.listening()).toEqual([`127.0.0.1:${port}`]);
  });
});
