import { describe, expect, it } from 'vitest';
import { nodePortService } from '../../test/helpers/endpoint-slices.ts';
import { nodeDial } from './in-cluster.ts';
import { buildProxyTable } from './proxy-table.ts';

const withIngress = (ipMode: 'VIP' | 'Proxy' | undefined) => ({
  ...nodePortService('d', 'web', { nodePort: 30080 }),
  status: { loadBalancer: { ingress: [{ ip: '127.1.0.2', ...(ipMode ? { ipMode } : {}) }] } },
});

describe('a node-sourced connection to a load balancer address', () => {
  it('is captured by kube-proxy and handed to the node itself from the ingress IP when ipMode is VIP or unset', () => {
    for (const mode of ['VIP', undefined] as const) {
      expect(nodeDial(buildProxyTable([withIngress(mode)], []), '127.0.5.1', '127.1.0.2', 80)).toEqual({
        host: '127.0.5.1',
        port: 80,
        localAddress: '127.1.0.2',
        capturedBy: 'd/web',
      });
    }
  });

  it('goes out to the load balancer when ipMode is Proxy, on a port the Service lacks, or to another address', () => {
    const out = { host: '127.1.0.2', port: 80, localAddress: '127.0.5.1', capturedBy: null };
    expect(nodeDial(buildProxyTable([withIngress('Proxy')], []), '127.0.5.1', '127.1.0.2', 80)).toEqual(out);
    expect(nodeDial(buildProxyTable([withIngress('VIP')], []), '127.0.5.1', '127.1.0.2', 8080)).toEqual({ ...out, port: 8080 });
    expect(nodeDial(buildProxyTable([withIngress('VIP')], []), '127.0.5.1', '127.1.0.9', 80)).toEqual({ ...out, host: '127.1.0.9' });
  });
});
