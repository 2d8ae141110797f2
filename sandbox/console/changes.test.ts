// Resource changes are explained from events a real simcloud (in this process, data plane on) sent for a
// scenario run once; Node and Service diffs from Kubernetes objects built here.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { ResourceChangeEvent } from '../../simulator/api/schema/events.ts';
import { recordSimEvents, runCloudScenario, type CloudScenario, type SimEventRecorder } from '../../test/helpers/sim-events.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import { diffService, explainResourceChange, explainTargetHealth, LB_FINALIZER, SHUTDOWN_TAINT, UNINITIALIZED_TAINT, type ChangeStep } from './changes.ts';
import { diffNode } from './node-changes.ts';

const groupOf = (type: string, id: string): string => (type === 'gateway' ? `Node/gw-${id}` : `Cloud/${id}`);

function node(over: { ready?: string; taints?: string[]; providerID?: string; podCIDR?: string; net?: string } = {}): V1Node {
  return {
    metadata: { name: 'w1' },
    spec: { providerID: over.providerID, podCIDR: over.podCIDR, taints: (over.taints ?? []).map((key) => ({ key, effect: 'NoSchedule' })) },
    status: { conditions: [{ type: 'Ready', status: over.ready ?? 'True' }, ...(over.net ? [{ type: 'NetworkUnavailable', status: over.net }] : [])] },
  };
}

function service(over: { finalizer?: boolean; ip?: string; deleting?: boolean } = {}): V1Service {
  return {
    metadata: {
      name: 'web',
      namespace: 'default',
      finalizers: over.finalizer ? [LB_FINALIZER] : [],
      ...(over.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    status: { loadBalancer: { ingress: over.ip ? [{ ip: over.ip }] : [] } },
  };
}

const octet = randomInt(20, 250);
let sc: InProcessSimcloud;
let rec: SimEventRecorder;
let scenario: CloudScenario;
/** Every step of the captured run, each change diffed against the previous change of its record. */
let steps: (ChangeStep & { seq: number })[];

function explainAll(): (ChangeStep & { seq: number })[] {
  const last = new Map<string, ResourceChangeEvent>();
  const out: (ChangeStep & { seq: number })[] = [];
  for (const e of rec.events) {
    if (e.type === 'resource_change') {
      out.push(...explainResourceChange(e, last.get(e.resource_id), groupOf).map((s) => ({ ...s, seq: e.seq })));
      if (e.resource) last.set(e.resource_id, e);
      else last.delete(e.resource_id);
    } else if (e.type === 'target_health') {
      const lb = last.get(e.load_balancer_id);
      out.push({ ...explainTargetHealth(e, lb?.resource_type === 'load_balancer' ? (lb.resource ?? undefined) : undefined), seq: e.seq });
    }
  }
  return out;
}

beforeAll(async () => {
  sc = await startSimcloudInProcess({ config: { dataplane: true, pools: { lb_vip: `127.${octet}.3.0/24`, server_public: `127.${octet}.4.0/24` } } });
  rec = await recordSimEvents(sc);
  scenario = await runCloudScenario(sc, rec, {});
  steps = explainAll();
}, 60_000);
afterAll(async () => {
  rec?.stop();
  await sc?.stop();
});

const titled = (title: string): (ChangeStep & { seq: number }) | undefined => steps.find((s) => s.title === title);

describe('explainResourceChange and explainTargetHealth, on what simcloud sends', () => {
  it('explains a server going off as the start of the shutdown flow, grouped under its Node', () => {
    const step = titled(`server ${scenario.serverName}: stopping → off`);
    expect(step).toMatchObject({ group: `Node/${scenario.serverName}`, controller: null });
    expect(step!.sentence).toContain('InstanceShutdown');
    expect(titled(`server ${scenario.serverName} deleted`)).toBeDefined();
  });

  it('explains a new server starting as its first boot, not as lifting a shutdown taint it never had', () => {
    const boot = titled(`server ${scenario.serverName}: initializing → starting`);
    expect(boot!.sentence).toContain('for the first time');
    expect(boot!.sentence).not.toContain('shutdown taint');
  });

  it('groups a load balancer under the Service of its owner label and reports it active with its VIP', () => {
    const active = steps.find((s) => s.title.startsWith(`load balancer ${scenario.loadBalancerId}:`) && s.title.endsWith('→ active'));
    expect(active).toMatchObject({ group: 'Service/default/web', controller: 'service-lb-controller' });
    expect(active!.sentence).toMatch(/^load balancer lb-\S+ is active: its VIP 127\.\d+\.\d+\.\d+ accepts traffic/);
  });

  it('reports the target turning healthy, then unhealthy, without blaming the CCM', () => {
    const health = steps.filter((s) => s.title.includes(`target ${scenario.serverId}`));
    expect(health.map((s) => s.title)).toEqual([
      `load balancer ${scenario.loadBalancerId}: target ${scenario.serverId} port ${scenario.listenPort} healthy`,
      `load balancer ${scenario.loadBalancerId}: target ${scenario.serverId} port ${scenario.listenPort} unhealthy`,
    ]);
    expect(health.every((s) => s.controller === null && s.group === 'Service/default/web')).toBe(true);
    expect(health[1]!.sentence).toContain('sends it no traffic');
  });

  it('never renders an empty status or an empty sentence', () => {
    for (const s of steps) {
      expect(s.title, s.title).not.toMatch(/→\s*$|→ \(|: *$/);
      expect(s.sentence, s.title).not.toMatch(/ is \.| \(\)|undefined|null/);
    }
  });

  it('turns route changes into CreateRoute and DeleteRoute steps, grouped by the gateway', () => {
    const r = `${scenario.route.destination} → ${scenario.route.gateway}`;
    expect(steps.filter((s) => s.title.startsWith('route ')).map((s) => [s.title, s.method, s.group])).toEqual([
      [`route ${r} added`, 'CreateRoute', `Node/gw-${scenario.route.gateway}`],
      [`route ${r} removed`, 'DeleteRoute', `Node/gw-${scenario.route.gateway}`],
    ]);
  });

  it('groups an action under the resource it acts on, and owned resources under their Service', () => {
    expect(titled('action poweroff_server running')).toMatchObject({ group: `Cloud/${scenario.serverId}` });
    for (const id of [scenario.serverGroupId, scenario.firewallPolicyId, scenario.ipBlockId]) {
      const [created, deleted] = steps.filter((s) => s.title.includes(id));
      expect(created).toMatchObject({ group: 'Service/default/web', method: null });
      expect(deleted).toMatchObject({ group: 'Service/default/web', method: 'EnsureLoadBalancerDeleted' });
    }
    expect(steps.find((s) => s.title.includes(scenario.serverGroupId))!.sentence).toContain(`Members: ${scenario.serverId}.`);
  });
});

describe('diffNode', () => {
  it('reports NotReady and then the shutdown taint with the controller and method that caused it', () => {
    expect(diffNode(node(), node({ ready: 'Unknown' }))[0]).toMatchObject({
      title: 'Node w1 NotReady (Ready True → Unknown)',
      controller: 'kube-controller-manager',
    });
    const [taint] = diffNode(node({ ready: 'Unknown' }), node({ ready: 'Unknown', taints: [SHUTDOWN_TAINT] }));
    expect(taint).toMatchObject({
      title: `taint ${SHUTDOWN_TAINT}:NoSchedule added`,
      controller: 'cloud-node-lifecycle-controller',
      method: 'InstanceShutdown',
    });
  });

  it('reports initialisation cause first: providerID set, then the uninitialized taint removed, then podCIDR and route', () => {
    const steps = diffNode(node({ taints: [UNINITIALIZED_TAINT] }), node({ providerID: 'simcloud://srv-1', podCIDR: '10.244.1.0/24', net: 'False' }));
    expect(steps.map((s) => s.title)).toEqual([
      'providerID simcloud://srv-1',
      `taint ${UNINITIALIZED_TAINT}:NoSchedule removed`,
      'podCIDR 10.244.1.0/24',
      'NetworkUnavailable=False (RouteCreated)',
    ]);
    expect(steps.slice(0, 2).map((s) => s.method)).toEqual(['InstanceMetadata', 'InstanceMetadata']);
  });

  it('lists added taints and Ready changes before what the CCM set', () => {
    const steps = diffNode(
      node({ taints: [UNINITIALIZED_TAINT] }),
      node({ ready: 'Unknown', taints: ['node.kubernetes.io/unreachable'], providerID: 'simcloud://srv-1' }),
    );
    expect(steps.map((s) => s.title)).toEqual([
      'Node w1 NotReady (Ready True → Unknown)',
      'taint node.kubernetes.io/unreachable:NoSchedule added',
      'providerID simcloud://srv-1',
      `taint ${UNINITIALIZED_TAINT}:NoSchedule removed`,
    ]);
  });

  it('reports a Node registered and a Node deleted', () => {
    expect(diffNode(undefined, node())[0]!.title).toBe('Node w1 registered');
    expect(diffNode(node(), undefined)[0]).toMatchObject({ title: 'Node w1 deleted', method: 'InstanceExists' });
    expect(diffNode(node(), node())).toEqual([]);
  });
});

describe('diffService', () => {
  it('reports the finalizer, the ingress IP, the deletion and the removal', () => {
    expect(diffService(undefined, service())[0]!.title).toBe('Service default/web created');
    expect(diffService(service(), service({ finalizer: true })).map((s) => s.method)).toEqual(['EnsureLoadBalancer']);
    expect(diffService(service({ finalizer: true }), service({ finalizer: true, ip: '127.0.0.9' }))[0]!.title).toBe('ingress 127.0.0.9');
    expect(diffService(service({ finalizer: true }), service({ finalizer: true, deleting: true }))[0]!.title).toBe('Service/default/web deleting');
    expect(diffService(service({ finalizer: true }), service())[0]!.method).toBe('EnsureLoadBalancerDeleted');
    expect(diffService(service(), undefined)[0]!.title).toBe('Service default/web deleted');
  });
});
