import { describe, expect, it } from 'vitest';
import { CallExplainer, explainKubeEvent, methodOfReason, parseCaller, resourceOfPath, type ApiCall } from './explain.ts';

let clock = Date.parse('2026-01-01T00:00:00Z');
function call(caller: string | null, method: string, path: string, o: { status?: number; gap?: number; sent?: string } = {}): ApiCall {
  const status = o.status ?? 200;
  clock += o.gap ?? 10;
  return { time: new Date(clock).toISOString(), method, path, status, caller, upstream_method: o.sent ?? null, error_code: status >= 400 ? 'x' : null };
}

const methods = (x: CallExplainer, calls: ApiCall[]): (string | null)[] => calls.map((c) => x.explain(c).method);

describe('parseCaller and resourceOfPath', () => {
  it('splits the caller header into controller and object key', () => {
    expect(parseCaller('service-lb-controller default/web')).toEqual({
      controller: 'service-lb-controller',
      key: 'default/web',
      raw: 'service-lb-controller default/web',
    });
    expect(parseCaller('ccm-sandbox')).toMatchObject({ controller: null });
    expect(parseCaller(null)).toMatchObject({ controller: null, raw: '' });
  });

  it('names the collection, id and sub-resource of a path', () => {
    expect(resourceOfPath('/v1/load_balancers/lb-1/actions/x?y=1')).toEqual({ collection: 'load_balancers', id: 'lb-1', sub: 'actions' });
    expect(resourceOfPath('/v1/servers?name=a')).toEqual({ collection: 'servers', id: null, sub: null });
  });
});

describe('CallExplainer with the method header', () => {
  it('takes the method the CCM sent, whatever the call order, and says so', () => {
    const x = new CallExplainer();
    const c = 'cloud-node-lifecycle-controller w1';
    // Without the header the first read of a burst would be guessed InstanceExists.
    expect(x.explain(call(c, 'GET', '/v1/servers/srv-1', { gap: 5000, sent: 'InstanceShutdown' }))).toMatchObject({
      method: 'InstanceShutdown',
      methodSource: 'header',
    });
    const lb = 'service-lb-controller default/web';
    expect(
      methods(x, [
        call(lb, 'GET', '/v1/load_balancers?l=1', { gap: 5000, sent: 'EnsureLoadBalancerDeleted' }),
        call(lb, 'GET', '/v1/server_groups?l=1', { sent: 'UpdateLoadBalancer' }),
        call(lb, 'GET', '/v1/load_balancers?l=1', { sent: 'GetLoadBalancer' }),
      ]),
    ).toEqual(['EnsureLoadBalancerDeleted', 'UpdateLoadBalancer', 'GetLoadBalancer']);
    const sentence = x.explain(call(lb, 'DELETE', '/v1/load_balancers/lb-1', { sent: 'EnsureLoadBalancerDeleted' })).sentence;
    expect(sentence).toContain('deletes the load balancer for Service default/web (EnsureLoadBalancerDeleted)');
  });

  it("explains a CCM call outside the controllers by its method (the upstream CCM's start-up probe)", () => {
    const x = new CallExplainer().explain(call('upstream-ccm startup-probe', 'GET', '/v1/servers?per_page=1', { sent: 'Initialize' }));
    expect(x).toMatchObject({ controller: null, method: 'Initialize', methodSource: 'header', group: 'Caller/upstream-ccm startup-probe' });
    expect(x.sentence).toContain('runs Initialize: the CCM checks at start-up');
  });

  it('ignores a header that names no cloud-provider method, and guesses instead', () => {
    expect(new CallExplainer().explain(call('cloud-node-controller w1', 'GET', '/v1/servers/srv-1', { sent: 'Frobnicate' }))).toMatchObject({
      method: 'InstanceMetadata',
      methodSource: 'inferred',
    });
  });
});

describe('CallExplainer without the method header (a CCM that does not send it): guesses from the call order', () => {
  it('maps cloud-node-controller reads to InstanceMetadata, grouped under the Node', () => {
    const x = new CallExplainer().explain(call('cloud-node-controller w1', 'GET', '/v1/servers/srv-1'));
    expect(x).toMatchObject({ controller: 'cloud-node-controller', method: 'InstanceMetadata', methodSource: 'inferred', group: 'Node/w1', read: true });
    expect(x.sentence).toContain('uninitialized taint');
  });

  it('tells InstanceExists from InstanceShutdown: the same GET alternates, and not found ends the pair', () => {
    const x = new CallExplainer();
    const c = 'cloud-node-lifecycle-controller w1';
    expect(
      methods(x, [
        call(c, 'GET', '/v1/servers/srv-1'),
        call(c, 'GET', '/v1/servers/srv-1'),
        call(c, 'GET', '/v1/servers/srv-1', { gap: 1000 }),
        call(c, 'GET', '/v1/servers/srv-1'),
      ]),
    ).toEqual(['InstanceExists', 'InstanceShutdown', 'InstanceExists', 'InstanceShutdown']);
    const gone = x.explain(call(c, 'GET', '/v1/servers/srv-1', { status: 404, gap: 1000 }));
    expect(gone.method).toBe('InstanceExists');
    expect(gone.sentence).toContain('deletes the Node');
    expect(x.explain(call(c, 'GET', '/v1/servers/srv-1', { gap: 1000 })).method).toBe('InstanceExists');
  });

  it('follows EnsureLoadBalancer through the group, policy and LB calls of one burst', () => {
    const x = new CallExplainer();
    const c = 'service-lb-controller default/web';
    const got = methods(x, [
      call(c, 'GET', '/v1/server_groups?label_selector=a'),
      call(c, 'POST', '/v1/server_groups', { status: 201 }),
      call(c, 'GET', '/v1/firewall_policies?label_selector=a'),
      call(c, 'GET', '/v1/load_balancers?label_selector=a'),
      call(c, 'POST', '/v1/load_balancers', { status: 201 }),
      call(c, 'GET', '/v1/actions/act-1'),
    ]);
    expect(new Set(got)).toEqual(new Set(['EnsureLoadBalancer']));
  });

  it('reads GetLoadBalancer then EnsureLoadBalancerDeleted when a second LB lookup follows', () => {
    const x = new CallExplainer();
    const c = 'service-lb-controller default/web';
    expect(
      methods(x, [
        call(c, 'GET', '/v1/load_balancers?label_selector=a', { gap: 5000 }),
        call(c, 'GET', '/v1/load_balancers?label_selector=a'),
        call(c, 'DELETE', '/v1/load_balancers/lb-1', { status: 202 }),
        call(c, 'POST', '/v1/firewall_policies/fwp-1/actions/remove'),
        call(c, 'DELETE', '/v1/server_groups/grp-1', { status: 204 }),
      ]),
    ).toEqual(['GetLoadBalancer', 'EnsureLoadBalancerDeleted', 'EnsureLoadBalancerDeleted', 'EnsureLoadBalancerDeleted', 'EnsureLoadBalancerDeleted']);
  });

  it('reads UpdateLoadBalancer when the node sync updates the group members after GetLoadBalancer', () => {
    const x = new CallExplainer();
    const c = 'service-lb-controller default/web';
    expect(
      methods(x, [
        call(c, 'GET', '/v1/load_balancers?l=1', { gap: 5000 }),
        call(c, 'GET', '/v1/server_groups?l=1'),
        call(c, 'PUT', '/v1/server_groups/grp-1/servers'),
      ]),
    ).toEqual(['GetLoadBalancer', 'UpdateLoadBalancer', 'UpdateLoadBalancer']);
  });

  it('explains the member changes of a node sync as adding or removing only the difference', () => {
    const x = new CallExplainer();
    const c = 'service-lb-controller default/web';
    x.explain(call(c, 'GET', '/v1/load_balancers?l=1', { gap: 5000 }));
    x.explain(call(c, 'GET', '/v1/server_groups?l=1'));
    const added = x.explain(call(c, 'POST', '/v1/server_groups/grp-1/actions/add_servers'));
    expect(added.method).toBe('UpdateLoadBalancer');
    expect(added.sentence).toContain('adds the servers of nodes that joined');
    expect(x.explain(call(c, 'POST', '/v1/server_groups/grp-1/actions/remove_servers')).sentence).toContain('removes the servers of nodes that left');
  });

  it('starts a new burst after a quiet gap', () => {
    const x = new CallExplainer();
    const c = 'service-lb-controller default/web';
    x.explain(call(c, 'GET', '/v1/server_groups?l=1', { gap: 5000 }));
    expect(x.explain(call(c, 'GET', '/v1/load_balancers?l=1', { gap: 5000 })).method).toBe('GetLoadBalancer');
  });

  it('maps the route controller to ListRoutes, CreateRoute and DeleteRoute', () => {
    const x = new CallExplainer();
    expect(x.explain(call('node-route-controller list', 'GET', '/v1/networks/net-1'))).toMatchObject({ method: 'ListRoutes', group: 'Routes' });
    expect(x.explain(call('node-route-controller w1', 'GET', '/v1/servers?name=w1', { gap: 5000 }))).toMatchObject({ method: 'CreateRoute', group: 'Node/w1' });
    expect(x.explain(call('node-route-controller w1', 'POST', '/v1/networks/net-1/routes', { status: 201 })).method).toBe('CreateRoute');
    expect(x.explain(call('node-route-controller w2', 'DELETE', '/v1/networks/net-1/routes/rte-1', { status: 202, gap: 5000 })).method).toBe('DeleteRoute');
    expect(x.explain(call('node-route-controller w2', 'GET', '/v1/actions/act-1')).method).toBe('DeleteRoute');
  });

  it('says when a call failed or was rate-limited, and names callers that are not the CCM', () => {
    const x = new CallExplainer();
    expect(x.explain(call('cloud-node-controller w1', 'GET', '/v1/servers/srv-1', { status: 503 })).sentence).toContain('failed (503 x)');
    expect(x.explain(call('cloud-node-controller w1', 'GET', '/v1/servers/srv-1', { status: 429 })).sentence).toContain('rate-limited');
    expect(x.explain(call('ccm-sandbox console', 'POST', '/v1/servers/srv-1/actions/poweroff', { status: 201 }))).toMatchObject({
      controller: null,
      method: null,
      methodSource: null,
      group: 'Caller/ccm-sandbox console',
    });
    expect(x.explain(call(null, 'GET', '/v1/servers')).group).toBe('Other');
  });
});

describe('explainKubeEvent', () => {
  const base = { type: 'Normal', kind: 'Node', name: 'w1', message: 'm', component: 'c' };

  it('explains each upstream reason in one sentence naming the method', () => {
    expect(explainKubeEvent({ ...base, reason: 'Synced' })).toContain('InstanceMetadata');
    expect(explainKubeEvent({ ...base, reason: 'DeletingNode' })).toContain('InstanceExists');
    expect(explainKubeEvent({ ...base, kind: 'Service', name: 'web', reason: 'EnsuredLoadBalancer' })).toContain('status.loadBalancer.ingress');
    expect(explainKubeEvent({ ...base, kind: 'Service', name: 'web', reason: 'UpdatedLoadBalancer' })).toContain('UpdateLoadBalancer');
    expect(explainKubeEvent({ ...base, reason: 'NodeNotReady' })).toContain('NotReady');
  });

  it('calls a Pod marked not ready by NodeNotReady a Pod, not a Node', () => {
    const sentence = explainKubeEvent({ ...base, kind: 'Pod', name: 'demo-pinned-7c9-x2', reason: 'NodeNotReady' });
    expect(sentence).toBe("kube-controller-manager's node-lifecycle marked Pod demo-pinned-7c9-x2 not ready: the Node it runs on is NotReady.");
    expect(sentence).not.toContain('Node demo-pinned');
  });

  it('falls back to the component, reason and message for unknown reasons', () => {
    expect(explainKubeEvent({ ...base, type: 'Warning', reason: 'Odd' })).toBe('Warning from c about Node w1: Odd (m).');
  });

  it('knows which method an event reason reports on', () => {
    expect(methodOfReason('DeletedLoadBalancer')).toBe('EnsureLoadBalancerDeleted');
    expect(methodOfReason('FailedToCreateRoute')).toBe('CreateRoute');
    expect(methodOfReason('RegisteredNode')).toBeNull();
  });
});
