// Command lines of the four control-plane components, as pure functions of the layout (directory,
// ports, networks) so they can be unit-tested and printed by a dry run.
import { join } from 'node:path';

export interface ControlPlanePorts {
  readonly etcdClient: number;
  readonly etcdPeer: number;
  readonly apiServer: number;
  /** kube-scheduler's HTTPS port (health and metrics), on 127.0.0.1. */
  readonly scheduler: number;
}

export interface ControlPlaneNetwork {
  readonly clusterCidr: string;
  readonly serviceCidr: string;
  readonly nodeCidrMaskSize: number;
  readonly nodeMonitorGracePeriodSeconds: number;
  /**
   * The tolerationSeconds admission gives every pod for the not-ready and unreachable NoExecute taints: how
   * long taint-eviction leaves a pod on a node that stopped reporting (upstream: 300 s).
   */
  readonly podEvictionTolerationSeconds: number;
}

export interface ControlPlaneLayout {
  readonly dir: string;
  readonly ports: ControlPlanePorts;
  readonly network: ControlPlaneNetwork;
}

/**
 * kube-controller-manager runs every controller it enables by default, as on a real cluster: workloads
 * (deployment, replicaset, daemonset, statefulset, job, cronjob), endpoints and EndpointSlices, taint
 * eviction and pod garbage collection, node lifecycle and node IPAM, and the rest. It has no cloud loops
 * any more; --cloud-provider=external tells node-lifecycle and node-ipam that a CCM owns initialisation,
 * load balancers and routes.
 */
export const KCM_CONTROLLERS = ['*'] as const;

/** The egress selector's file in the control plane's directory (written by control-plane.ts). */
export const EGRESS_SELECTOR_FILE = 'egress-selector.json';

/**
 * kube-apiserver's EgressSelectorConfiguration (k8s.io/apiserver's apiserver.k8s.io/v1beta1; JSON is YAML):
 * `cluster` (kubelets, pods/services proxy, Service-referenced webhooks, aggregated APIs) and `controlplane`
 * (URL webhooks, webhook authn/authz, audit webhooks, OIDC, tracing) through the proxy's socket; `etcd` is
 * not listed, so the apiserver dials its etcd on 127.0.0.1 directly, as its own loopback client always does.
 */
export function egressSelectorConfiguration(socketPath: string): object {
  const connection = { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: socketPath } } };
  return {
    apiVersion: 'apiserver.k8s.io/v1beta1',
    kind: 'EgressSelectorConfiguration',
    egressSelections: ['cluster', 'controlplane'].map((name) => ({ name, connection })),
  };
}

export function etcdArgs(layout: ControlPlaneLayout): string[] {
  const client = `https://127.0.0.1:${layout.ports.etcdClient}`;
  const peer = `https://127.0.0.1:${layout.ports.etcdPeer}`;
  const pki = (f: string): string => join(layout.dir, 'pki', f);
  return [
    // Mutual TLS on both ports: any local process (or a web page) can reach loopback; only clients of
    // etcd's own CA (the apiserver) may read or write the cluster's data.
    `--cert-file=${pki('etcd.crt')}`,
    `--key-file=${pki('etcd.key')}`,
    '--client-cert-auth=true',
    `--trusted-ca-file=${pki('etcd-ca.crt')}`,
    `--peer-cert-file=${pki('etcd.crt')}`,
    `--peer-key-file=${pki('etcd.key')}`,
    '--peer-client-cert-auth=true',
    `--peer-trusted-ca-file=${pki('etcd-ca.crt')}`,
    '--name=default',
    `--data-dir=${join(layout.dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // A throwaway store: durability is not worth the fsync latency here.
    '--unsafe-no-fsync=true',
    '--quota-backend-bytes=8589934592',
    '--log-level=warn',
  ];
}

export function apiServerArgs(layout: ControlPlaneLayout): string[] {
  const pki = (f: string): string => join(layout.dir, 'pki', f);
  return [
    `--etcd-servers=https://127.0.0.1:${layout.ports.etcdClient}`,
    `--etcd-cafile=${pki('etcd-ca.crt')}`,
    `--etcd-certfile=${pki('etcd-client.crt')}`,
    `--etcd-keyfile=${pki('etcd-client.key')}`,
    `--secure-port=${layout.ports.apiServer}`,
    '--bind-address=127.0.0.1',
    // Without a default route the apiserver cannot pick an address to advertise.
    '--advertise-address=127.0.0.1',
    '--endpoint-reconciler-type=none',
    // Every dial into the cluster and to webhooks goes through the sandbox's egress proxy (egress-proxy.ts): a
    // Node's address reaches its kubelet on loopback, loopback passes, anything else is refused before it is dialled.
    `--egress-selector-config-file=${join(layout.dir, EGRESS_SELECTOR_FILE)}`,
    // kubeadm's order, so kind's: every node address maps to the node's kubelet on loopback through the proxy.
    '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
    // The virtual kubelets' API (kubelet/kubelet-api.ts) serves this client certificate alone, and its serving
    // certificate is issued by the cluster CA for the node's loopback address: verified here, so a request for
    // a pod's logs never goes to whatever else binds that loopback port.
    `--kubelet-client-certificate=${pki('apiserver-kubelet-client.crt')}`,
    `--kubelet-client-key=${pki('apiserver-kubelet-client.key')}`,
    `--kubelet-certificate-authority=${pki('ca.crt')}`,
    `--service-cluster-ip-range=${layout.network.serviceCidr}`,
    '--allow-privileged=true',
    '--authorization-mode=Node,RBAC',
    `--client-ca-file=${pki('ca.crt')}`,
    `--tls-cert-file=${pki('apiserver.crt')}`,
    `--tls-private-key-file=${pki('apiserver.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki('sa.pub')}`,
    `--service-account-signing-key-file=${pki('sa.key')}`,
    '--profiling=false',
    // Virtual kubelets and benchmarks issue many requests at once; the defaults (400/200) throttle them.
    '--max-requests-inflight=1600',
    '--max-mutating-requests-inflight=800',
    // The DefaultTolerationSeconds admission plugin's values: a short wait keeps eviction demos and tests quick.
    `--default-not-ready-toleration-seconds=${layout.network.podEvictionTolerationSeconds}`,
    `--default-unreachable-toleration-seconds=${layout.network.podEvictionTolerationSeconds}`,
  ];
}

export function controllerManagerArgs(layout: ControlPlaneLayout): string[] {
  const pki = (f: string): string => join(layout.dir, 'pki', f);
  return [
    `--kubeconfig=${join(layout.dir, 'controller-manager.kubeconfig')}`,
    '--cloud-provider=external',
    `--controllers=${KCM_CONTROLLERS.join(',')}`,
    '--allocate-node-cidrs=true',
    `--cluster-cidr=${layout.network.clusterCidr}`,
    `--node-cidr-mask-size=${layout.network.nodeCidrMaskSize}`,
    `--service-cluster-ip-range=${layout.network.serviceCidr}`,
    `--node-monitor-grace-period=${layout.network.nodeMonitorGracePeriodSeconds}s`,
    '--node-monitor-period=1s',
    `--service-account-private-key-file=${pki('sa.key')}`,
    `--root-ca-file=${pki('ca.crt')}`,
    '--use-service-account-credentials=true',
    '--leader-elect=false',
    // No metrics/health listener: readiness is judged from the API (the default ServiceAccount exists).
    '--secure-port=0',
    '--kube-api-qps=200',
    '--kube-api-burst=400',
  ];
}

/** kube-scheduler as kubeadm runs it: its own identity, delegated authn/authz, serving on 127.0.0.1 only. */
export function schedulerArgs(layout: ControlPlaneLayout): string[] {
  const kubeconfig = join(layout.dir, 'scheduler.kubeconfig');
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${layout.ports.scheduler}`,
    `--tls-cert-file=${join(layout.dir, 'pki', 'scheduler-serving.crt')}`,
    `--tls-private-key-file=${join(layout.dir, 'pki', 'scheduler-serving.key')}`,
    '--leader-elect=false',
    '--profiling=false',
  ];
}
