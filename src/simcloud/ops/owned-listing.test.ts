// The shared listing of owned resources against an in-process simcloud: a burst of re-ensures over Services
// that have their resources lists each kind once instead of once per Service, and still ends with the cloud
// as wanted; a Service written to is read from the API again; one Service alone never lists the cluster.
import { randomUUID } from 'node:crypto';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningServersAsNodes, startSimcloudInProcess, type InProcessSimcloud } from '../../../test/helpers/simcloud.ts';
import { FakeClock, HurriedClock } from '../../kube/clock.ts';
import { createClient } from '../client.ts';
import { SimcloudLoadBalancers } from '../load-balancers.ts';
import { LABELS } from './naming.ts';
import { OwnedListing } from './owned-listing.ts';

let sc: InProcessSimcloud;
let nodes: V1Node[];

beforeAll(async () => {
  sc = await startSimcloudInProcess();
  ({ nodes } = await runningServersAsNodes(sc.client, ['owned-node-1', 'owned-node-2']));
});
afterAll(async () => {
  await sc?.stop();
});

interface Recorded {
  /** List requests over the whole cluster (the shared listing). */
  clusterLists: number;
  /** List requests for one Service (its direct lookups). */
  serviceLists: number;
  /** Load balancer lists that asked for every LB's resolved targets, which the CCM never reads. */
  listsWithTargets: number;
}

/** A CCM-side client whose requests are counted, and a gate that can hold the shared listing's requests. */
function recordingClient(): { client: ReturnType<typeof createClient>; seen: Recorded; hold: (held: Promise<void> | undefined) => void } {
  const seen: Recorded = { clusterLists: 0, serviceLists: 0, listsWithTargets: 0 };
  let gate: Promise<void> | undefined;
  /** Counts a GET list; true for the shared listing's (which the gate holds). */
  const count = (url: URL): boolean => {
    if (url.pathname === '/v1/load_balancers' && url.searchParams.get('resolved_targets') !== 'false') seen.listsWithTargets += 1;
    const selector = url.searchParams.get('label_selector');
    if (selector === null) return false;
    if (selector.includes(LABELS.serviceUid)) seen.serviceLists += 1;
    else seen.clusterLists += 1;
    return !selector.includes(LABELS.serviceUid);
  };
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if ((init?.method ?? 'GET') === 'GET' && count(url) && gate) await gate;
    return fetch(input, init);
  };
  const client = createClient({ endpoint: sc.url, token: sc.token, requestTimeoutMs: 5000, fetch: recording, clock: new HurriedClock() });
  return {
    client,
    seen,
    hold: (held) => {
      gate = held;
    },
  };
}

function service(): V1Service {
  return {
    metadata: { name: `owned-${randomUUID().slice(0, 8)}`, namespace: 'default', uid: randomUUID() },
    spec: { type: 'LoadBalancer', ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }] },
  };
}

const uidOf = (svc: V1Service): string => svc.metadata?.uid ?? '';

/** The Service as the informer shows it once its LB is up: with an ingress. */
function established(svc: V1Service): V1Service {
  return { ...svc, status: { loadBalancer: { ingress: [{ ip: '127.0.100.9' }] } } };
}

async function groupMembers(svc: V1Service): Promise<string[]> {
  const groups = await sc.client.serverGroups.listAll({ label_selector: `${LABELS.serviceUid}=${svc.metadata?.uid ?? ''}` });
  expect(groups).toHaveLength(1);
  return [...groups[0]!.servers].sort();
}

/** 12 Services created, then re-ensured as established: a burst, so the listing answers; the first of them. */
async function inBurst(): Promise<{ lb: SimcloudLoadBalancers; cluster: string; first: V1Service }> {
  const { client } = recordingClient();
  const cluster = `owned-${randomUUID().slice(0, 6)}`;
  const lb = new SimcloudLoadBalancers({ client, strategy: 'lb' });
  const services = Array.from({ length: 12 }, service);
  for (const svc of services) await lb.ensureLoadBalancer(cluster, svc, nodes);
  for (const svc of services) await lb.ensureLoadBalancer(cluster, established(svc), nodes);
  return { lb, cluster, first: established(services[0]!) };
}

describe('OwnedListing through SimcloudLoadBalancers (strategy lb)', () => {
  it('re-ensuring 30 established Services lists the cluster once, not each Service, and changes nothing', async () => {
    const { client, seen } = recordingClient();
    const cluster = `owned-${randomUUID().slice(0, 6)}`;
    const lb = new SimcloudLoadBalancers({ client, strategy: 'lb' });
    const services = Array.from({ length: 30 }, service);
    for (const svc of services) await lb.ensureLoadBalancer(cluster, svc, nodes);
    const before = { ...seen };
    const lbsBefore = await sc.client.loadBalancers.listAll({ label_selector: `${LABELS.cluster}=${cluster}` });

    for (const svc of services) await lb.ensureLoadBalancer(cluster, established(svc), nodes);

    // The first few (below the burst) ask directly; the rest come from one listing of the three kinds:
    // one page of LBs (50 a page, without their resolved targets), one of groups, one of policies.
    expect(seen.clusterLists - before.clusterLists).toBe(3);
    expect(seen.listsWithTargets).toBe(0);
    expect(seen.serviceLists - before.serviceLists).toBeLessThan(3 * 5);
    const lbsAfter = await sc.client.loadBalancers.listAll({ label_selector: `${LABELS.cluster}=${cluster}` });
    expect(lbsAfter).toEqual(lbsBefore);
  });

  it('a Service written to is read from the API again: moving its targets twice in a burst ends with the last set', async () => {
    const { lb, cluster, first } = await inBurst();
    const moved = first;
    const one = nodes.slice(0, 1);
    const ids = (ns: V1Node[]): string[] => ns.map((n) => (n.spec?.providerID ?? '').replace(/^simcloud:\/\//, '')).sort();

    await lb.updateLoadBalancer(cluster, moved, one);
    expect(await groupMembers(moved)).toEqual(ids(one));
    // Within the listing's age: had the listing still answered for this Service, it would hold the two
    // nodes it listed, see nothing to do and leave the group at one node.
    await lb.updateLoadBalancer(cluster, moved, nodes);
    expect(await groupMembers(moved)).toEqual(ids(nodes));
  });

  it('a Service deleted in a burst and ensured again (its old ingress still shown) gets new resources, not the listed ones', async () => {
    const { lb, cluster, first: again } = await inBurst();
    const owned = async (): Promise<number> => (await sc.client.loadBalancers.listAll({ label_selector: `${LABELS.serviceUid}=${uidOf(again)}` })).length;

    await lb.ensureLoadBalancerDeleted(cluster, again);
    expect(await owned()).toBe(0);
    // Within the listing's age, which was taken before the delete.
    await lb.ensureLoadBalancer(cluster, again, nodes);
    expect(await owned()).toBe(1);
    expect(await groupMembers(again)).toHaveLength(nodes.length);
  });

  it('one established Service re-ensured on its own never lists the cluster', async () => {
    const { client, seen } = recordingClient();
    const cluster = `owned-${randomUUID().slice(0, 6)}`;
    const lb = new SimcloudLoadBalancers({ client, strategy: 'lb' });
    const svc = service();
    await lb.ensureLoadBalancer(cluster, svc, nodes);
    await lb.ensureLoadBalancer(cluster, established(svc), nodes);
    await lb.updateLoadBalancer(cluster, established(svc), nodes);
    expect(seen.clusterLists).toBe(0);
  });
});

describe('OwnedListing', () => {
  it('leaves out a Service written to while the listing was in flight', async () => {
    const { client, hold } = recordingClient();
    const cluster = `owned-${randomUUID().slice(0, 6)}`;
    const lb = new SimcloudLoadBalancers({ client, strategy: 'lb' });
    const [a, b] = [service(), service()];
    for (const svc of [a, b]) await lb.ensureLoadBalancer(cluster, svc, nodes);
    const listing = new OwnedListing({ client, withGroups: true, burst: 1 });
    let release = (): void => undefined;
    hold(new Promise<void>((resolve) => (release = resolve)));

    const [uidA, uidB] = [uidOf(a), uidOf(b)];
    const pending = listing.lookup(cluster, uidA, undefined);
    listing.written(uidB);
    release();

    expect((await pending)?.serverGroup?.labels[LABELS.serviceUid]).toBe(uidA);
    expect(await listing.lookup(cluster, uidB, undefined)).toBeUndefined();
    expect((await listing.lookup(cluster, uidA, undefined))?.loadBalancer).toBeDefined();
  });

  it('lists again once its listing is older than maxAgeMs, and not before', async () => {
    const { client, seen } = recordingClient();
    const cluster = `owned-${randomUUID().slice(0, 6)}`;
    const lb = new SimcloudLoadBalancers({ client, strategy: 'lb' });
    const svc = service();
    await lb.ensureLoadBalancer(cluster, svc, nodes);
    const clock = new FakeClock();
    const listing = new OwnedListing({ client, withGroups: true, burst: 1, clock, maxAgeMs: 30_000 });
    const uid = uidOf(svc);
    const listed = async (): Promise<number> => {
      const before = seen.clusterLists;
      expect((await listing.lookup(cluster, uid, undefined))?.loadBalancer).toBeDefined();
      return seen.clusterLists - before;
    };

    expect(await listed()).toBe(3);
    await clock.advance(30_000);
    expect(await listed()).toBe(0);
    await clock.advance(1);
    expect(await listed()).toBe(3);
  });
});
