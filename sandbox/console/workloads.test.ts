import type { V1EndpointSlice, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { endpointsByService, podsByNode, SERVICE_NAME_LABEL } from './workloads.ts';

function pod(name: string, node: string | undefined, o: { phase?: string; ready?: boolean; ip?: string } = {}): V1Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c' }], ...(node ? { nodeName: node } : {}) },
    status: { phase: o.phase ?? 'Running', ...(o.ip ? { podIP: o.ip } : {}), conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

function slice(service: string, endpoints: { ip: string; node?: string; pod?: string; ready?: boolean }[]): V1EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: { name: `${service}-${Math.random().toString(36).slice(2, 7)}`, namespace: 'default', labels: { [SERVICE_NAME_LABEL]: service } },
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      ...(e.node ? { nodeName: e.node } : {}),
      ...(e.pod ? { targetRef: { kind: 'Pod', name: e.pod } } : {}),
      ...(e.ready === undefined ? {} : { conditions: { ready: e.ready } }),
    })),
  };
}

describe('podsByNode', () => {
  it('groups bound pods by Node, sorted, with phase, readiness and IP; pending pods without a Node are left out', () => {
    const byNode = podsByNode([
      pod('web-b', 'w1', { ip: '10.244.1.3' }),
      pod('web-a', 'w1', { ip: '10.244.1.2' }),
      pod('db', 'w2', { phase: 'Pending', ready: false }),
      pod('waiting', undefined),
    ]);
    expect([...byNode.keys()].sort()).toEqual(['w1', 'w2']);
    expect(byNode.get('w1')).toEqual([
      { namespace: 'default', name: 'web-a', phase: 'Running', ready: true, ip: '10.244.1.2' },
      { namespace: 'default', name: 'web-b', phase: 'Running', ready: true, ip: '10.244.1.3' },
    ]);
    expect(byNode.get('w2')).toEqual([{ namespace: 'default', name: 'db', phase: 'Pending', ready: false, ip: null }]);
  });
});

describe('endpointsByService', () => {
  it("merges a Service's slices in address order, keeps node and pod, and reads an unset ready as ready", () => {
    const byService = endpointsByService([
      slice('web', [{ ip: '10.244.2.10', node: 'w2', pod: 'web-b' }]),
      slice('web', [{ ip: '10.244.1.9', node: 'w1', pod: 'web-a', ready: false }]),
      slice('other', [{ ip: '10.244.3.1' }]),
      { addressType: 'IPv4', metadata: { name: 'orphan', namespace: 'default' }, endpoints: [{ addresses: ['10.0.0.1'] }] },
    ]);
    expect([...byService.keys()].sort()).toEqual(['default/other', 'default/web']);
    expect(byService.get('default/web')).toEqual([
      { ip: '10.244.1.9', node: 'w1', pod: 'web-a', ready: false },
      { ip: '10.244.2.10', node: 'w2', pod: 'web-b', ready: true },
    ]);
    expect(byService.get('default/other')).toEqual([{ ip: '10.244.3.1', node: null, pod: null, ready: true }]);
  });
});
