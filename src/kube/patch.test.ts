import { describe, expect, it } from 'vitest';
import {
  addFinalizerPatch,
  loadBalancerStatusPatch,
  nodeAddressesPatch,
  nodeConditionPatch,
  nodeLabelsPatch,
  nodeTaintsPatch,
  removeFinalizerPatch,
} from './patch.ts';

describe('patch helpers', () => {
  it('use strategic merge for labels, taints (with resourceVersion) and conditions', () => {
    expect(nodeLabelsPatch({ a: 'b' })).toEqual({ contentType: 'application/strategic-merge-patch+json', body: { metadata: { labels: { a: 'b' } } } });
    expect(nodeTaintsPatch([{ key: 'k', effect: 'NoSchedule' }], '42').body).toEqual({
      metadata: { resourceVersion: '42' },
      spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
    });
    expect(nodeConditionPatch({ type: 'NetworkUnavailable', status: 'False' }).body).toEqual({
      status: { conditions: [{ type: 'NetworkUnavailable', status: 'False' }] },
    });
  });

  it('replace status.addresses as a whole with a JSON patch', () => {
    expect(nodeAddressesPatch([{ type: 'InternalIP', address: '10.0.0.1' }])).toEqual({
      contentType: 'application/json-patch+json',
      body: [{ op: 'add', path: '/status/addresses', value: [{ type: 'InternalIP', address: '10.0.0.1' }] }],
    });
  });

  it('add and remove the LB finalizer without clobbering other finalizers', () => {
    expect(addFinalizerPatch(['x'], 'service.kubernetes.io/load-balancer-cleanup').body).toEqual({
      metadata: { finalizers: ['x', 'service.kubernetes.io/load-balancer-cleanup'] },
    });
    expect(removeFinalizerPatch('service.kubernetes.io/load-balancer-cleanup').body).toEqual({
      metadata: { '$deleteFromPrimitiveList/finalizers': ['service.kubernetes.io/load-balancer-cleanup'] },
    });
  });

  it('clear the load balancer status with a null ingress', () => {
    expect(loadBalancerStatusPatch({}).body).toEqual({ status: { loadBalancer: { ingress: null } } });
    expect(loadBalancerStatusPatch({ ingress: [{ ip: '1.2.3.4' }] }).body).toEqual({ status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
  });
});
