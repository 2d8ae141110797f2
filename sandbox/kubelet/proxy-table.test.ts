import { describe, expect, it } from 'vitest';
import { endpointSlice, nodePortService } from '../../test/helpers/endpoint-slices.ts';
import { buildProxyTable, endpointsOn, localEndpointCount } from './proxy-table.ts';

const pods = (names: string[]): string[] => names;

describe('proxy table', () => {
  it('keeps the ready endpoints of the matching port and counts a missing ready condition as ready', () => {
    const slice = endpointSlice('d', 'web', [
      { pod: 'web-a', node: 'n1', ip: '10.0.1.2' },
      { pod: 'web-b', node: 'n2', ip: '10.0.2.2', ready: false },
    ]);
    slice.endpoints!.push({ addresses: ['10.0.3.2'], nodeName: 'n3', targetRef: { kind: 'Pod', name: 'web-c' } });
    const [svc] = buildProxyTable([nodePortService('d', 'web', { nodePort: 30080 })], [slice]);
    expect(svc!.ports[0]).toMatchObject({ name: 'http', nodePort: 30080 });
    expect(svc!.ports[0]!.endpoints).toEqual([
      { pod: 'web-a', node: 'n1', address: '10.0.1.2', port: 8080 },
      { pod: 'web-c', node: 'n3', address: '10.0.3.2', port: 8080 },
    ]);
  });

  it('falls back to serving terminating endpoints only when none is ready', () => {
    const terminating = { pod: 'web-old', node: 'n1', ip: '10.0.1.9', ready: false, serving: true, terminating: true };
    const table = (extra: boolean) =>
      buildProxyTable(
        [nodePortService('d', 'web', { nodePort: 30080 })],
        [endpointSlice('d', 'web', [terminating, ...(extra ? [{ pod: 'web-new', node: 'n2', ip: '10.0.2.9' }] : [])])],
      );
    expect(table(false)[0]!.ports[0]!.endpoints.map((e) => e.pod)).toEqual(pods(['web-old']));
    expect(table(true)[0]!.ports[0]!.endpoints.map((e) => e.pod)).toEqual(pods(['web-new']));
  });

  it('ignores slices of other Services, ports of other names and FQDN slices; merges duplicate endpoints', () => {
    const a = endpointSlice('d', 'web', [{ pod: 'web-a', node: 'n1', ip: '10.0.1.2' }], { port: { name: 'http', port: 8080 }, sliceName: 'web-1' });
    const dup = endpointSlice('d', 'web', [{ pod: 'web-a', node: 'n1', ip: '10.0.1.2' }], { port: { name: 'http', port: 8080 }, sliceName: 'web-2' });
    const otherPort = endpointSlice('d', 'web', [{ pod: 'web-m', node: 'n1', ip: '10.0.1.3' }], { port: { name: 'metrics', port: 9090 }, sliceName: 'web-3' });
    const fqdn = {
      ...endpointSlice('d', 'web', [{ pod: 'x', node: 'n1', ip: 'web.example' }], { port: { name: 'http', port: 8080 }, sliceName: 'web-4' }),
      addressType: 'FQDN',
    };
    const otherNs = endpointSlice('e', 'web', [{ pod: 'web-e', node: 'n1', ip: '10.0.1.4' }]);
    const [svc] = buildProxyTable([nodePortService('d', 'web', { nodePort: 30080 })], [a, dup, otherPort, fqdn, otherNs]);
    expect(svc!.ports[0]!.endpoints.map((e) => e.pod)).toEqual(['web-a']);
  });

  it('leaves out Services without a NodePort and reads policy, health check port and affinity', () => {
    const clusterIp = { metadata: { namespace: 'd', name: 'internal' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
    const local = nodePortService('d', 'local', { nodePort: 30081, externalTrafficPolicy: 'Local', healthCheckNodePort: 32000, sessionAffinity: 'ClientIP' });
    const timed = nodePortService('d', 'timed', {
      nodePort: 30082,
      type: 'NodePort',
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 30 } },
    });
    const table = buildProxyTable([clusterIp, local, timed], []);
    expect(table.map((s) => [s.name, s.externalTrafficPolicy, s.healthCheckNodePort, s.affinityTimeoutMs])).toEqual([
      ['local', 'Local', 32000, 10_800_000],
      ['timed', 'Cluster', null, 30_000],
    ]);
  });

  it('reads the IPv4 ingress IPs kube-proxy programs, and keeps a LoadBalancer without NodePorts that has one', () => {
    const lb = (name: string, nodePort: number, ingress: object[], type: 'LoadBalancer' | 'NodePort' = 'LoadBalancer') => ({
      ...nodePortService('d', name, { nodePort, type }),
      status: { loadBalancer: { ingress } },
    });
    const table = buildProxyTable(
      [
        lb('dual', 30080, [{ ip: '127.1.0.1' }, { ip: '2001:db8::1' }, { hostname: 'lb.example' }]),
        lb('proxied', 30081, [
          { ip: '127.1.0.2', ipMode: 'Proxy' },
          { ip: '127.1.0.3', ipMode: 'VIP' },
        ]),
        lb('nodeport', 30082, [{ ip: '127.1.0.4' }], 'NodePort'),
        lb('no-node-ports', 0, [{ ip: '127.1.0.5' }]),
        lb('pending', 0, []),
      ],
      [],
    );
    expect(table.map((s) => [s.name, s.ingressIps, s.ports.map((p) => [p.port, p.nodePort])])).toEqual([
      ['dual', ['127.1.0.1'], [[80, 30080]]],
      ['proxied', ['127.1.0.3'], [[80, 30081]]],
      ['nodeport', [], [[80, 30082]]],
      ['no-node-ports', ['127.1.0.5'], [[80, 0]]],
    ]);
  });

  it('under policy Local offers a node only its own endpoints and counts distinct local pods', () => {
    const slice = endpointSlice('d', 'web', [
      { pod: 'web-a', node: 'n1', ip: '10.0.1.2' },
      { pod: 'web-b', node: 'n1', ip: '10.0.1.3' },
      { pod: 'web-c', node: 'n2', ip: '10.0.2.2' },
    ]);
    const [local] = buildProxyTable([nodePortService('d', 'web', { nodePort: 30080, externalTrafficPolicy: 'Local', healthCheckNodePort: 32000 })], [slice]);
    const [cluster] = buildProxyTable([nodePortService('d', 'web', { nodePort: 30080 })], [slice]);
    expect(endpointsOn(local!, local!.ports[0]!, 'n2').map((e) => e.pod)).toEqual(['web-c']);
    expect(endpointsOn(local!, local!.ports[0]!, 'n3')).toEqual([]);
    expect(endpointsOn(cluster!, cluster!.ports[0]!, 'n3')).toHaveLength(3);
    expect([localEndpointCount(local!, 'n1'), localEndpointCount(local!, 'n2'), localEndpointCount(local!, 'n3')]).toEqual([2, 1, 0]);
  });
});
