// The exact `METHOD path` sequence each LoadBalancer, Routes and InstancesV2 path of the simcloud provider
// sends, read from an in-process simcloud's own call log (its `api_call` events). The other adapter tests
// assert end state; these pin the requests, so a change that adds a list or a poll to a path fails here in
// seconds rather than in the bench. When a path's requests change on purpose, update its sequence here.
// simcloud's clock stands still and moves only when the provider waits (its injected clock fast-forwards
// simcloud's by the wait), so every action is finished at the provider's first poll: one poll per action.
import { randomUUID } from 'node:crypto';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiCallEvent } from '../../simulator/api/schema/events.ts';
import type { Network, Server } from '../../simulator/api/schema/index.ts';
import { runningServersAsNodes, startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import type { Route } from '../cloud/routes.ts';
import { HurriedClock, type TimerHandle } from '../kube/clock.ts';
import { ownerSelector, resourceName } from './ops/naming.ts';
import type { LoadBalancerStrategy } from './load-balancers.ts';
import { SimcloudProvider } from './provider.ts';

const CLUSTER = 'seq';
/** How the provider's `X-Simcloud-Caller` starts (the start-up probe adds a word): the test's own setup calls say `test`. */
const PROVIDER_CALLER = 'simcloud-ccm';

let sc: InProcessSimcloud;
let network: Network;
let servers: Server[];
let nodes: V1Node[];
const log: ApiCallEvent[] = [];

/** Waits pass at once (as HurriedClock) and move simcloud's clock by as much: an action polled after a wait has run its course. */
class SimcloudLinkedClock extends HurriedClock {
  override setTimeout(fn: () => void, ms: number): TimerHandle {
    sc.sim.clock.fastForward(ms);
    return super.setTimeout(fn, ms);
  }
}

beforeAll(async () => {
  sc = await startSimcloudInProcess();
  network = await sc.client.networks.create({ name: 'pods', ip_range: '10.0.0.0/16' });
  ({ servers, nodes } = await runningServersAsNodes(sc.client, ['seq-node-1', 'seq-node-2', 'seq-node-3'], { networks: [network.id] }));
  // From here simcloud's time moves only with the provider's waits (speed must be > 0: a year per real second's millionth).
  sc.sim.clock.setSpeed(1e-6);
  sc.sim.events.subscribe((e) => {
    if (e.type === 'api_call' && e.caller?.startsWith(PROVIDER_CALLER)) log.push(e);
  });
});
afterAll(async () => {
  await sc?.stop();
});
beforeEach(() => {
  log.length = 0;
});

function provider(strategy: LoadBalancerStrategy = 'lb'): SimcloudProvider {
  return new SimcloudProvider({
    endpoint: sc.url,
    token: sc.token,
    requestTimeoutMs: 5000,
    loadBalancersEnabled: true,
    loadBalancerStrategy: strategy,
    routesEnabled: true,
    network: network.name,
    clock: new SimcloudLinkedClock(),
  });
}

function service(ports: readonly number[] = [80]): V1Service {
  return {
    metadata: { name: `web-${randomUUID().slice(0, 8)}`, namespace: 'default', uid: randomUUID() },
    spec: { type: 'LoadBalancer', ports: ports.map((port, i) => ({ name: `p${port}`, protocol: 'TCP', port, targetPort: 8080, nodePort: 30080 + i })) },
  };
}

/**
 * The calls `run` made, each as `METHOD path?query` with the query decoded, the Service's owner selector as
 * `{owner}`, its resource name as `{name}`, its UID as `{uid}`, and ids (`lb-00000012`) as their kind (`{lb}`).
 */
async function requestsOf(run: () => Promise<unknown>, svc?: V1Service): Promise<string[]> {
  log.length = 0;
  await run();
  return log.map((c) => {
    let line = `${c.method} ${decodeURIComponent(c.path)}`;
    if (svc)
      line = line
        .replaceAll(ownerSelector(CLUSTER, svc), '{owner}')
        .replaceAll(resourceName(CLUSTER, svc), '{name}')
        .replaceAll(svc.metadata?.uid ?? '{owner}', '{uid}');
    return line.replace(/\/([a-z]{2,5})-[A-Za-z0-9]+(?=\/|\?|$)/g, '/{$1}');
  });
}

/** The interface methods the recorded calls said they belonged to (X-Simcloud-Method). */
const methodsSent = (): Set<string | null> => new Set(log.map((c) => c.upstream_method));

/** The Service as the service controller hands it over once its status carries the ingress. */
const withIngress = (svc: V1Service, status: V1LoadBalancerStatus): V1Service => ({ ...svc, status: { loadBalancer: status } });

describe('LoadBalancer requests, strategy lb', () => {
  const ownerLookups = (kind: string, query = ''): string[] => [`GET /v1/${kind}?label_selector={owner}&sort=created:asc${query}`];
  const byName = (kind: string, query = ''): string => `GET /v1/${kind}?name={name}${query}`;
  const noTargets = '&resolved_targets=false';

  it('EnsureLoadBalancer for a new Service looks each resource up by owner and by name, creates it, and polls the LB create once', async () => {
    const lb = provider().loadBalancer()!;
    const svc = service();
    expect(await requestsOf(() => lb.ensureLoadBalancer(CLUSTER, svc, nodes), svc)).toEqual([
      ...ownerLookups('server_groups'),
      byName('server_groups'),
      'POST /v1/server_groups',
      ...ownerLookups('firewall_policies'),
      byName('firewall_policies'),
      'POST /v1/firewall_policies',
      ...ownerLookups('load_balancers', noTargets),
      byName('load_balancers', noTargets),
      'POST /v1/load_balancers',
      'GET /v1/actions/{act}',
    ]);
    expect(methodsSent()).toEqual(new Set(['EnsureLoadBalancer']));
  });

  it('EnsureLoadBalancer with nothing changed only reads: one owner lookup per resource', async () => {
    const lb = provider().loadBalancer()!;
    const svc = service();
    const established = withIngress(svc, await lb.ensureLoadBalancer(CLUSTER, svc, nodes));
    expect(await requestsOf(() => lb.ensureLoadBalancer(CLUSTER, established, nodes), svc)).toEqual([
      ...ownerLookups('server_groups'),
      ...ownerLookups('firewall_policies'),
      ...ownerLookups('load_balancers', noTargets),
    ]);
  });

  it('EnsureLoadBalancer after a port change replaces the firewall rules and patches the listeners, with no poll', async () => {
    const lb = provider().loadBalancer()!;
    const svc = service([80]);
    const established = withIngress(svc, await lb.ensureLoadBalancer(CLUSTER, svc, nodes));
    const moved = { ...established, spec: service([80, 443]).spec! };
    expect(await requestsOf(() => lb.ensureLoadBalancer(CLUSTER, moved, nodes), svc)).toEqual([
      ...ownerLookups('server_groups'),
      ...ownerLookups('firewall_policies'),
      'PUT /v1/firewall_policies/{fwp}/rules',
      ...ownerLookups('load_balancers', noTargets),
      'PATCH /v1/load_balancers/{lb}',
    ]);
  });

  it('UpdateLoadBalancer changes only the server group: one lookup, then one membership call per direction of change', async () => {
    const lb = provider().loadBalancer()!;
    const svc = service();
    const established = withIngress(svc, await lb.ensureLoadBalancer(CLUSTER, svc, nodes));
    expect(await requestsOf(() => lb.updateLoadBalancer(CLUSTER, established, nodes.slice(0, 2)), svc)).toEqual([
      ...ownerLookups('server_groups'),
      'POST /v1/server_groups/{grp}/actions/remove_servers',
    ]);
    expect(await requestsOf(() => lb.updateLoadBalancer(CLUSTER, established, nodes), svc)).toEqual([
      ...ownerLookups('server_groups'),
      'POST /v1/server_groups/{grp}/actions/add_servers',
    ]);
    expect(await requestsOf(() => lb.updateLoadBalancer(CLUSTER, established, nodes), svc)).toEqual(ownerLookups('server_groups'));
    expect(methodsSent()).toEqual(new Set(['UpdateLoadBalancer']));
  });

  it('EnsureLoadBalancerDeleted deletes the LB (polling once), detaches and deletes the policy, then deletes the group', async () => {
    const lb = provider().loadBalancer()!;
    const svc = service();
    const established = withIngress(svc, await lb.ensureLoadBalancer(CLUSTER, svc, nodes));
    expect(await requestsOf(() => lb.ensureLoadBalancerDeleted(CLUSTER, established), svc)).toEqual([
      ...ownerLookups('load_balancers', noTargets),
      'DELETE /v1/load_balancers/{lb}',
      'GET /v1/actions/{act}',
      ...ownerLookups('firewall_policies'),
      'POST /v1/firewall_policies/{fwp}/actions/remove',
      'DELETE /v1/firewall_policies/{fwp}',
      ...ownerLookups('server_groups'),
      'DELETE /v1/server_groups/{grp}',
    ]);
    expect(methodsSent()).toEqual(new Set(['EnsureLoadBalancerDeleted']));
  });

  it('EnsureLoadBalancerDeleted for a Service whose resources are gone only reads: by owner and by name for each kind', async () => {
    const lb = provider().loadBalancer()!;
    const svc = service();
    expect(await requestsOf(() => lb.ensureLoadBalancerDeleted(CLUSTER, svc), svc)).toEqual([
      ...ownerLookups('load_balancers', noTargets),
      byName('load_balancers', noTargets),
      ...ownerLookups('firewall_policies'),
      byName('firewall_policies'),
      ...ownerLookups('server_groups'),
      byName('server_groups'),
    ]);
  });
});

describe('LoadBalancer requests, strategy ip-block', () => {
  const blockLookup = 'GET /v1/ip_blocks?per_page=500&tags=usage=simcloud-ccm-auto,cluster=seq,service-uid={uid}&page=1';

  it('EnsureLoadBalancer for a new Service on unlabelled nodes reads the regions, allocates a block and creates the LB on it; deleting reverses it', async () => {
    const lb = provider('ip-block').loadBalancer()!;
    const svc = service();
    const created = await requestsOf(() => lb.ensureLoadBalancer(CLUSTER, svc, nodes), svc);
    expect(created).toEqual([
      blockLookup,
      'GET /v1/regions',
      'POST /v1/ip_blocks',
      'GET /v1/load_balancers?label_selector={owner}&sort=created:asc&resolved_targets=false',
      'GET /v1/load_balancers?name={name}&resolved_targets=false',
      'POST /v1/load_balancers',
      'GET /v1/actions/{act}',
    ]);
    const established = withIngress(svc, await lb.ensureLoadBalancer(CLUSTER, svc, nodes));
    expect(await requestsOf(() => lb.ensureLoadBalancerDeleted(CLUSTER, established), svc)).toEqual([
      'GET /v1/load_balancers?label_selector={owner}&sort=created:asc&resolved_targets=false',
      'DELETE /v1/load_balancers/{lb}',
      'GET /v1/actions/{act}',
      blockLookup,
      'DELETE /v1/ip_blocks/{ipb}',
    ]);
  });
});

describe('Routes requests', () => {
  const route = (node: number, cidr: string): Route => ({
    name: '',
    targetNode: servers[node]!.name,
    targetNodeAddresses: [],
    destinationCIDR: cidr,
    blackhole: false,
    enableNodeAddresses: false,
  });
  /** The network is configured by name: a provider's first read finds it by name, later ones get it by id. */
  const networkByName = 'GET /v1/networks?name=pods';
  const serverList = 'GET /v1/servers?per_page=500&page=1';

  it('ListRoutes reads the network and one page of servers in parallel; the next pass reads the network by id and reuses the servers', async () => {
    const routes = provider().routes()!;
    expect((await requestsOf(() => routes.listRoutes(CLUSTER))).sort()).toEqual([networkByName, serverList]);
    expect(methodsSent()).toEqual(new Set(['ListRoutes']));
    expect(await requestsOf(() => routes.listRoutes(CLUSTER))).toEqual(['GET /v1/networks/{net}']);
  });

  it('CreateRoute right after a listing reuses it: only the create and one poll', async () => {
    const routes = provider().routes()!;
    await routes.listRoutes(CLUSTER);
    expect(await requestsOf(() => routes.createRoute(CLUSTER, randomUUID(), route(0, '10.244.10.0/24')))).toEqual([
      'POST /v1/networks/{net}/routes',
      'GET /v1/actions/{act}',
    ]);
    expect(methodsSent()).toEqual(new Set(['CreateRoute']));
  });

  it('CreateRoute without a listing reads the network and the servers first', async () => {
    const routes = provider().routes()!;
    expect(await requestsOf(() => routes.createRoute(CLUSTER, randomUUID(), route(1, '10.244.11.0/24')))).toEqual([
      networkByName,
      serverList,
      'POST /v1/networks/{net}/routes',
      'GET /v1/actions/{act}',
    ]);
  });

  it('DeleteRoute after a listing deletes and polls once; a route already gone costs one network read', async () => {
    const routes = provider().routes()!;
    await routes.createRoute(CLUSTER, randomUUID(), route(2, '10.244.12.0/24'));
    const [listed] = (await routes.listRoutes(CLUSTER)).filter((r) => r.destinationCIDR === '10.244.12.0/24');
    expect(await requestsOf(() => routes.deleteRoute(CLUSTER, listed!))).toEqual(['DELETE /v1/networks/{net}/routes/{rte}', 'GET /v1/actions/{act}']);
    expect(methodsSent()).toEqual(new Set(['DeleteRoute']));
    expect(await requestsOf(() => provider().routes()!.deleteRoute(CLUSTER, listed!))).toEqual([networkByName]);
  });
});

describe('InstancesV2 requests (node initialisation and lifecycle)', () => {
  it('InstanceMetadata lists the servers once, then answers the other nodes from that list', async () => {
    const instances = provider().instances();
    expect(await requestsOf(() => instances.instanceMetadata(nodes[0]!))).toEqual(['GET /v1/servers?per_page=500&page=1']);
    expect(methodsSent()).toEqual(new Set(['InstanceMetadata']));
    expect(await requestsOf(() => instances.instanceMetadata(nodes[1]!))).toEqual([]);
  });

  it('InstanceMetadata of a node without a providerID finds its server by name in the same list', async () => {
    const instances = provider().instances();
    const unregistered: V1Node = { metadata: { name: servers[2]!.name }, spec: {} };
    expect(await requestsOf(() => instances.instanceMetadata(unregistered))).toEqual(['GET /v1/servers?per_page=500&page=1']);
  });

  it('InstanceExists and InstanceShutdown list the servers once and answer each other from that list', async () => {
    const instances = provider().instances();
    expect(await requestsOf(() => instances.instanceExists(nodes[0]!))).toEqual(['GET /v1/servers?per_page=500&page=1']);
    expect(methodsSent()).toEqual(new Set(['InstanceExists']));
    expect(await requestsOf(() => instances.instanceShutdown(nodes[0]!))).toEqual([]);
    expect(await requestsOf(() => provider().instances().instanceShutdown(nodes[1]!))).toEqual(['GET /v1/servers?per_page=500&page=1']);
    expect(methodsSent()).toEqual(new Set(['InstanceShutdown']));
  });

  it('the start-up probe lists one server', async () => {
    expect(await requestsOf(() => provider().initialize(new AbortController().signal))).toEqual(['GET /v1/servers?per_page=1']);
  });
});
