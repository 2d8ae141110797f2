// EndpointSlices written by hand, for tests of the kube-proxy stand-in that must not depend on pods:
// the shape the EndpointSlice controller writes (service-name label, targetRef to a pod, nodeName,
// conditions), under a managed-by value of our own so that controller leaves them alone.
import { DiscoveryV1Api, type KubeConfig, type V1EndpointSlice, type V1Service } from '@kubernetes/client-node';
import { SERVICE_NAME_LABEL } from '../../sandbox/kubelet/proxy-table.ts';

export interface HandEndpoint {
  readonly pod: string;
  readonly node: string;
  readonly ip: string;
  readonly ready?: boolean;
  readonly serving?: boolean;
  readonly terminating?: boolean;
}

export const HAND_MANAGED_BY = 'ccm-sandbox-tests';

/** A slice of `service` with one port (`name`, `port` on the pods; default http 8080) and these endpoints. */
export function endpointSlice(
  namespace: string,
  service: string,
  endpoints: readonly HandEndpoint[],
  options: { readonly port?: { readonly name?: string; readonly port: number }; readonly sliceName?: string; readonly ownerUid?: string } = {},
): V1EndpointSlice {
  const { port = { name: 'http', port: 8080 }, sliceName = `${service}-hand`, ownerUid } = options;
  // Owned by the Service (as the controller's slices are), the garbage collector removes it with the Service.
  const owners = ownerUid
    ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: service, uid: ownerUid, controller: true, blockOwnerDeletion: true }] }
    : {};
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: sliceName, namespace, labels: { [SERVICE_NAME_LABEL]: service, 'endpointslice.kubernetes.io/managed-by': HAND_MANAGED_BY }, ...owners },
    addressType: 'IPv4',
    ports: [{ ...(port.name !== undefined ? { name: port.name } : {}), port: port.port, protocol: 'TCP' }],
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      nodeName: e.node,
      targetRef: { kind: 'Pod', namespace, name: e.pod },
      conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
    })),
  };
}

/** A NodePort/LoadBalancer Service as the apiserver returns it (nodePorts allocated). */
export function nodePortService(
  namespace: string,
  name: string,
  spec: { readonly nodePort: number; readonly type?: 'NodePort' | 'LoadBalancer'; readonly portName?: string } & Pick<
    NonNullable<V1Service['spec']>,
    'externalTrafficPolicy' | 'healthCheckNodePort' | 'sessionAffinity' | 'sessionAffinityConfig'
  >,
): V1Service {
  const { nodePort, type = 'LoadBalancer', portName = 'http', ...rest } = spec;
  return { metadata: { namespace, name }, spec: { type, ports: [{ name: portName, port: 80, targetPort: 8080, protocol: 'TCP', nodePort }], ...rest } };
}

/**
 * Gives a created Service one ready endpoint per named node (pods `<service>-hand-<i>`), matching its
 * first port, in a slice the Service owns: traffic through its NodePorts then has somewhere to go.
 */
export async function handEndpoints(kubeConfig: KubeConfig, svc: V1Service, nodes: readonly string[]): Promise<V1EndpointSlice> {
  const { namespace = 'default', name: service = '', uid } = svc.metadata ?? {};
  const endpoints = nodes.map((node, i) => ({ pod: `${service}-hand-${i}`, node, ip: `10.244.250.${i + 1}` }));
  const body = endpointSlice(namespace, service, endpoints, { port: slicePortOf(svc), ...(uid ? { ownerUid: uid } : {}) });
  return kubeConfig.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({ namespace, body });
}

/** The pods' side of a Service's first port: same name, the numeric targetPort (or the port). */
function slicePortOf(svc: V1Service): { name?: string; port: number } {
  const first = svc.spec?.ports?.[0];
  const port = typeof first?.targetPort === 'number' ? first.targetPort : (first?.port ?? 80);
  return first?.name ? { name: first.name, port } : { port };
}
