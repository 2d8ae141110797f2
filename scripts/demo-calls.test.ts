import { describe, expect, it } from 'vitest';
import type { ApiCall } from '../sandbox/console/explain.ts';
import { CallLedger, qualified, stepCallLines } from './demo-calls.ts';

/** `request` is "METHOD /path". */
const call = (caller: string | null, request: string, upstream: string | null, status = 200): ApiCall => {
  const [method, path] = request.split(' ') as [string, string];
  return { time: '2026-01-01T00:00:00.000Z', method, path, status, caller, upstream_method: upstream, error_code: null };
};

describe('the demo attributes each CCM call to its interface method', () => {
  it('lists route calls made during the load balancer step apart from its own, and counts them for Routes', () => {
    const ledger = new CallLedger();
    ledger.step = 1;
    ledger.add(call('service-lb-controller default/web', 'POST /v1/load_balancers', 'EnsureLoadBalancer', 201));
    ledger.add(call('node-route-controller w3', 'POST /v1/networks/net-1/routes', 'CreateRoute', 201));
    ledger.add(call('ccm-sandbox console', 'GET /v1/servers', null));
    const lines = stepCallLines(ledger.calls, ['GetLoadBalancer', 'EnsureLoadBalancer']);
    expect(lines).toEqual([
      'cloud calls for LoadBalancer.GetLoadBalancer / LoadBalancer.EnsureLoadBalancer: 1',
      '  LoadBalancer.EnsureLoadBalancer x1: POST /v1/load_balancers -> 201',
      "meanwhile, not this step's: Routes.CreateRoute x1",
    ]);
    expect(ledger.count('CreateRoute')).toBe(1);
    expect(stepCallLines(ledger.calls, ['ListRoutes', 'CreateRoute', 'DeleteRoute'])[0]).toBe(
      'cloud calls for Routes.ListRoutes / Routes.CreateRoute / Routes.DeleteRoute: 1',
    );
  });

  it('never lists a method no call was seen for', () => {
    const ledger = new CallLedger();
    ledger.add(call('cloud-node-lifecycle-controller w2', 'GET /v1/servers/srv-2', 'InstanceExists', 404));
    expect(ledger.count('UpdateLoadBalancer')).toBe(0);
    const lines = stepCallLines(ledger.calls, ['InstanceExists', 'UpdateLoadBalancer']);
    expect(lines.join('\n')).not.toContain('LoadBalancer.UpdateLoadBalancer x');
    expect(lines[1]).toBe('  InstancesV2.InstanceExists x1: GET /v1/servers/srv-2 -> 404');
  });

  it('infers the method from the controller when the CCM sends no method header, and says so when it cannot', () => {
    const ledger = new CallLedger();
    ledger.add(call('cloud-node-controller w1', 'GET /v1/servers/srv-1', null));
    ledger.add(call(null, 'GET /v1/servers', null));
    expect(ledger.calls.map((c) => c.method)).toEqual(['InstanceMetadata', null]);
    expect(stepCallLines(ledger.calls, ['InstanceMetadata']).at(-1)).toBe("meanwhile, not this step's: calls naming no method x1");
    expect(qualified('InstanceShutdown')).toBe('InstancesV2.InstanceShutdown');
  });
});
