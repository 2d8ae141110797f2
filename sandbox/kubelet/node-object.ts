// What a kubelet started with --cloud-provider=external writes when it registers, as pure builders: the
// Node it creates (with the uninitialized taint and no providerID, both left to the CCM), its Lease in
// kube-node-lease, and the Ready condition it posts.
import { V1MicroTime, type V1Lease, type V1Node, type V1NodeCondition, type V1Taint } from '@kubernetes/client-node';

export const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';
export const PROVIDED_NODE_IP_ANNOTATION = 'alpha.kubernetes.io/provided-node-ip';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface KubeletIdentity {
  readonly nodeName: string;
  /** The kubelet's --node-ip; without it the Node registers with only a Hostname address (1.31+). */
  readonly nodeIP?: string;
  /** The kubelet's --provider-id; normally empty so the CCM sets it. */
  readonly providerID?: string;
  /** The kubelet's --node-labels. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The kubelet's --register-with-taints, added beside the uninitialized taint. */
  readonly registerWithTaints?: readonly V1Taint[];
  readonly kubeletVersion?: string;
  /** The port its API serves on (daemonEndpoints; the apiserver dials it for logs), default the kubelet's 10250. */
  readonly kubeletPort?: number;
}

/** The Node as the kubelet creates it: uninitialized taint, default labels, temporary addresses. */
export function registrationNode(id: KubeletIdentity, now: Date): V1Node {
  const addresses = [...(id.nodeIP ? [{ type: 'InternalIP', address: id.nodeIP }] : []), { type: 'Hostname', address: id.nodeName }];
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: id.nodeName,
      labels: {
        'kubernetes.io/hostname': id.nodeName,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
        ...id.labels,
      },
      annotations: {
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        ...(id.nodeIP ? { [PROVIDED_NODE_IP_ANNOTATION]: id.nodeIP } : {}),
      },
    },
    spec: {
      ...(id.providerID ? { providerID: id.providerID } : {}),
      taints: [{ key: UNINITIALIZED_TAINT, value: 'true', effect: 'NoSchedule' }, ...(id.registerWithTaints ?? [])],
    },
    status: {
      capacity: { cpu: '2', memory: '4Gi', pods: '110', 'ephemeral-storage': '20Gi' },
      allocatable: { cpu: '2', memory: '4Gi', pods: '110', 'ephemeral-storage': '20Gi' },
      conditions: [...pressureConditions(now), readyCondition(true, now)],
      addresses,
      daemonEndpoints: daemonEndpoints(id.kubeletPort),
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        osImage: 'ccm-sandbox virtual kubelet',
        kernelVersion: 'virtual',
        kubeletVersion: id.kubeletVersion ?? 'v1.37.1',
        kubeProxyVersion: '',
        containerRuntimeVersion: 'virtual://1.0',
        machineID: '',
        systemUUID: '',
        bootID: '',
      },
    },
  };
}

export function daemonEndpoints(port = 10250): NonNullable<V1Node['status']>['daemonEndpoints'] {
  return { kubeletEndpoint: { Port: port } };
}

function pressureConditions(now: Date): V1NodeCondition[] {
  const ok = (type: string, reason: string, message: string): V1NodeCondition => ({
    type,
    status: 'False',
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  return [
    ok('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    ok('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    ok('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
  ];
}

export function readyCondition(ready: boolean, now: Date): V1NodeCondition {
  return ready
    ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }
    : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'virtual kubelet stopped', lastHeartbeatTime: now, lastTransitionTime: now };
}

export function nodeLease(node: Pick<V1Node, 'metadata'>, durationSeconds: number, now: Date): V1Lease {
  const name = node.metadata?.name ?? '';
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: NODE_LEASE_NAMESPACE,
      ownerReferences: node.metadata?.uid ? [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid }] : [],
    },
    spec: { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: new V1MicroTime(now.getTime()) },
  };
}
