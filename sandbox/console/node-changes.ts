// Kubernetes Node changes between two polls, as console timeline steps: registered, deleted, Ready flips,
// taints the kubelet, kube-controller-manager or the CCM added or removed, providerID, podCIDR and routes.
import type { V1Node } from '@kubernetes/client-node';
import { nameOf, SHUTDOWN_TAINT, UNINITIALIZED_TAINT, type ChangeStep } from './changes.ts';
import { Controller, CloudMethod } from './explain.ts';

export function readyOf(node: V1Node | undefined): string {
  return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

const taintsOf = (node: V1Node | undefined): Set<string> => new Set((node?.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`));

const TAINT_ADDED: Record<string, { sentence: string; controller: string | null; method: CloudMethod | null }> = {
  [SHUTDOWN_TAINT]: {
    sentence:
      'cloud-node-lifecycle-controller added the shutdown taint: the Node is NotReady and InstanceShutdown said its server is off, so its pods are not considered lost yet.',
    controller: Controller.lifecycle,
    method: CloudMethod.instanceShutdown,
  },
  [UNINITIALIZED_TAINT]: {
    sentence: 'The kubelet (with --cloud-provider=external) registered the Node with the uninitialized taint: no pod lands on it until the CCM initialises it.',
    controller: null,
    method: null,
  },
  'node.kubernetes.io/unreachable': {
    sentence: 'kube-controller-manager tainted the Node unreachable: its kubelet stopped posting status.',
    controller: 'kube-controller-manager',
    method: null,
  },
  'node.kubernetes.io/not-ready': { sentence: 'kube-controller-manager tainted the Node not-ready.', controller: 'kube-controller-manager', method: null },
};

const TAINT_REMOVED: Record<string, { sentence: string; controller: string | null; method: CloudMethod | null }> = {
  [SHUTDOWN_TAINT]: {
    sentence: 'The Node is Ready again, so cloud-node-lifecycle-controller removed the shutdown taint.',
    controller: Controller.lifecycle,
    method: null,
  },
  [UNINITIALIZED_TAINT]: {
    sentence: 'cloud-node-controller initialised the Node from its server (InstanceMetadata) and removed the uninitialized taint: pods can be scheduled.',
    controller: Controller.node,
    method: CloudMethod.instanceMetadata,
  },
};

function taintSteps(name: string, before: V1Node, after: V1Node): ChangeStep[] {
  const was = taintsOf(before);
  const now = taintsOf(after);
  const step = (t: string, added: boolean): ChangeStep => {
    const key = t.split(':')[0]!;
    const known = (added ? TAINT_ADDED : TAINT_REMOVED)[key];
    return {
      group: `Node/${name}`,
      title: `taint ${t} ${added ? 'added' : 'removed'}`,
      sentence: known?.sentence ?? `The taint ${t} was ${added ? 'added' : 'removed'}.`,
      controller: known?.controller ?? null,
      method: known?.method ?? null,
    };
  };
  return [...[...now].filter((t) => !was.has(t)).map((t) => step(t, true)), ...[...was].filter((t) => !now.has(t)).map((t) => step(t, false))];
}

function readySteps(name: string, before: V1Node, after: V1Node): ChangeStep[] {
  const was = readyOf(before);
  const now = readyOf(after);
  if (was === now) return [];
  const sentence =
    now === 'True'
      ? `Node ${name} is Ready: its kubelet posts status again.`
      : `Node ${name} is NotReady (Ready=${now}): its kubelet stopped posting status (server off, rebooting or gone); cloud-node-lifecycle-controller now checks the cloud (InstanceExists, InstanceShutdown) every node-monitor period.`;
  return [
    {
      group: `Node/${name}`,
      title: `Node ${name} ${now === 'True' ? 'Ready' : 'NotReady'} (Ready ${was} → ${now})`,
      sentence,
      controller: now === 'True' ? 'kubelet' : 'kube-controller-manager',
      method: null,
    },
  ];
}

const netOf = (n: V1Node): string => n.status?.conditions?.find((c) => c.type === 'NetworkUnavailable')?.status ?? '';

function fieldSteps(name: string, before: V1Node, after: V1Node): ChangeStep[] {
  const steps: ChangeStep[] = [];
  const group = `Node/${name}`;
  const was = { providerID: before.spec?.providerID, podCIDR: before.spec?.podCIDR };
  const { providerID, podCIDR } = after.spec ?? {};
  if (!was.providerID && providerID) {
    steps.push({
      group,
      title: `providerID ${providerID}`,
      sentence: `cloud-node-controller set providerID ${providerID}, the link from Node ${name} to its server, with instance-type, zone and region labels (InstanceMetadata).`,
      controller: Controller.node,
      method: CloudMethod.instanceMetadata,
    });
  }
  if (!was.podCIDR && podCIDR) {
    steps.push({
      group,
      title: `podCIDR ${podCIDR}`,
      sentence: `kube-controller-manager's node-ipam gave Node ${name} the podCIDR ${podCIDR}; node-route-controller will create a cloud route for it (CreateRoute).`,
      controller: 'kube-controller-manager',
      method: null,
    });
  }
  if (netOf(before) !== 'False' && netOf(after) === 'False') {
    steps.push({
      group,
      title: 'NetworkUnavailable=False (RouteCreated)',
      sentence: `node-route-controller created the route for Node ${name}'s podCIDR and set NetworkUnavailable=False.`,
      controller: Controller.route,
      method: CloudMethod.createRoute,
    });
  }
  return steps;
}

/** Steps for a Node that appeared, changed or disappeared between two polls. */
export function diffNode(before: V1Node | undefined, after: V1Node | undefined): ChangeStep[] {
  const name = nameOf(after, before);
  const group = `Node/${name}`;
  if (!before)
    return after
      ? [
          {
            group,
            title: `Node ${name} registered`,
            sentence: `The kubelet of ${name} registered its Node (with the uninitialized taint, as kubelets with --cloud-provider=external do).`,
            controller: 'kubelet',
            method: null,
          },
        ]
      : [];
  if (!after)
    return [
      {
        group,
        title: `Node ${name} deleted`,
        sentence: `Node ${name} is gone: cloud-node-lifecycle-controller deleted it because InstanceExists said its server no longer exists.`,
        controller: Controller.lifecycle,
        method: CloudMethod.instanceExists,
      },
    ];
  // Cause before effect: the CCM sets providerID (and the labels) and in the same update removes the uninitialized
  // taint, so a poll that sees both lists providerID first; Ready changes and added taints come first.
  const taints = taintSteps(name, before, after);
  const removed = taints.filter((t) => t.title.endsWith(' removed'));
  const fields = fieldSteps(name, before, after);
  const providerId = fields.filter((f) => f.title.startsWith('providerID '));
  return [
    ...readySteps(name, before, after),
    ...taints.filter((t) => !removed.includes(t)),
    ...providerId,
    ...removed,
    ...fields.filter((f) => !providerId.includes(f)),
  ];
}
