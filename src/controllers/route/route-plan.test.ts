import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Route } from '../../cloud/routes.ts';
import { isResponsibleForCIDR, parseClusterCIDRs } from './cidr.ts';
import { equalNodeAddrs, planRoutes, RouteAction } from './route-plan.ts';

const cluster = parseClusterCIDRs('10.244.0.0/16,fd00:10:244::/56');
const addr = [{ type: 'InternalIP', address: '10.0.0.1' }];
const node = (name: string, podCIDRs: string[]): V1Node => ({ metadata: { name, uid: `uid-${name}` }, spec: { podCIDRs }, status: { addresses: addr } });
const route = (targetNode: string, destinationCIDR: string, extra: Partial<Route> = {}): Route => ({
  name: `${targetNode}-${destinationCIDR}`,
  targetNode,
  destinationCIDR,
  targetNodeAddresses: [],
  blackhole: false,
  enableNodeAddresses: false,
  ...extra,
});

describe('planRoutes', () => {
  it('adds missing routes (name hint = node UID) and keeps existing ones', () => {
    const plan = planRoutes([node('a', ['10.244.1.0/24', 'fd00:10:244:1::/64']), node('b', [])], [route('a', '10.244.1.0/24')], cluster);
    expect(plan.toCreate.map((c) => [c.nameHint, c.route.targetNode, c.route.destinationCIDR, c.action])).toEqual([
      ['uid-a', 'a', 'fd00:10:244:1::/64', 'add'],
    ]);
    expect(plan.toCreate[0]?.route.targetNodeAddresses).toEqual(addr);
    expect(plan.toDelete).toEqual([]);
    expect(plan.actions.has('b')).toBe(false);
  });

  it('deletes routes of unknown nodes, changed CIDRs, empty targets and blackholes — only inside the cluster CIDRs', () => {
    const routes = [
      route('gone', '10.244.9.0/24'),
      route('a', '10.244.7.0/24'),
      route('', '10.244.8.0/24'),
      route('a', '10.244.1.0/24', { blackhole: true }),
      route('gone', '192.168.1.0/24'),
      route('gone', 'not-a-cidr'),
    ];
    const plan = planRoutes([node('a', ['10.244.1.0/24'])], routes, cluster);
    expect(plan.toDelete.map((r) => r.name)).toEqual(['gone-10.244.9.0/24', 'a-10.244.7.0/24', '-10.244.8.0/24', 'a-10.244.1.0/24']);
  });

  it('with EnableNodeAddresses, drifted addresses mean update = delete then create', () => {
    const routes = [route('a', '10.244.1.0/24', { enableNodeAddresses: true, targetNodeAddresses: [{ type: 'InternalIP', address: '10.0.0.9' }] })];
    const plan = planRoutes([node('a', ['10.244.1.0/24'])], routes, cluster);
    expect(plan.actions.get('a')?.get('10.244.1.0/24')).toBe(RouteAction.Update);
    expect(plan.toDelete).toHaveLength(1);
    expect(plan.toCreate).toHaveLength(1);
    expect(plan.deleteBeforeCreate).toBe(true);
  });

  it('reports nodes without podCIDRs that still have routes', () => {
    const plan = planRoutes([node('a', []), node('b', [])], [route('a', '10.244.1.0/24')], cluster);
    expect(plan.nodesWithoutCIDRs).toEqual(['a']);
  });

  it('compares node addresses as a set of the same length', () => {
    const x = { type: 'InternalIP', address: '1' };
    const y = { type: 'Hostname', address: 'h' };
    expect(equalNodeAddrs([x, y], [y, x])).toBe(true);
    expect(equalNodeAddrs([x], [x, y])).toBe(false);
  });
});

describe('cluster CIDRs', () => {
  it('parses one CIDR or a dual-stack pair and rejects the rest', () => {
    expect(parseClusterCIDRs('10.0.0.0/8')).toHaveLength(1);
    expect(() => parseClusterCIDRs('')).toThrow('--cluster-cidr is required');
    expect(() => parseClusterCIDRs('10.0.0.0/8,11.0.0.0/8')).toThrow('dual-stack');
    expect(() => parseClusterCIDRs('a,b,c')).toThrow('more than 2');
    expect(() => parseClusterCIDRs('nope')).toThrow('invalid CIDR');
  });

  it('is responsible when the first or last address of the route is inside', () => {
    const v4 = parseClusterCIDRs('10.244.0.0/16');
    expect(isResponsibleForCIDR('10.244.3.0/24', v4)).toBe(true);
    expect(isResponsibleForCIDR('10.0.0.0/8', v4)).toBe(false);
    expect(isResponsibleForCIDR('10.244.255.0/23', v4)).toBe(true);
    expect(isResponsibleForCIDR('fd00::/64', v4)).toBe(false);
  });
});
