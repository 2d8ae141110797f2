// The kind cluster configuration for the sandbox, generated (pure): one control plane and N workers whose
// kubelets all run with --cloud-provider=external and an empty --provider-id (newer kind releases set
// kind://... themselves; the sandbox's CCM must be the one to set it). The kubelet flags go in kubeadm
// patches whose apiVersion must match what kind generates for the node image: kind only applies a patch
// whose apiVersion matches the target document, so a v1beta3 patch on a v1beta4 config is silently
// ignored. kubeadm.k8s.io/v1beta3 (kubeletExtraArgs as a map) for Kubernetes < 1.31,
// kubeadm.k8s.io/v1beta4 (a list of {name, value}, merged by name) from 1.31.
import { dump } from 'js-yaml';

export const KIND_CONFIG_DEFAULTS = {
  podSubnet: '10.244.0.0/16',
  serviceSubnet: '10.96.0.0/16',
} as const;

export const KUBEADM_API_VERSIONS = { v1beta3: 'kubeadm.k8s.io/v1beta3', v1beta4: 'kubeadm.k8s.io/v1beta4' } as const;
export type KubeadmApiVersion = (typeof KUBEADM_API_VERSIONS)[keyof typeof KUBEADM_API_VERSIONS];

/** The kubelet flags every node of a sandbox cluster gets. */
export const SANDBOX_KUBELET_ARGS: Readonly<Record<string, string>> = {
  'cloud-provider': 'external',
  'provider-id': '',
};

export interface KindConfigOptions {
  readonly workers: number;
  /** Node image, e.g. `kindest/node:v1.37.0@sha256:...`; its tag decides the kubeadm API version. */
  readonly image: string;
  readonly podSubnet?: string;
  readonly serviceSubnet?: string;
  /**
   * Port mapping to loopback (the macOS fallback, where container IPs are unreachable from the host):
   * node i publishes each port on listenAddresses[i] of the host.
   */
  readonly portMapping?: { readonly listenAddresses: readonly string[]; readonly ports: readonly number[] };
}

export interface KubernetesVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

export class KindConfigError extends Error {
  override name = 'KindConfigError';
}

/** The Kubernetes version in a node image's tag (`repo/name:v1.37.0[-suffix][@sha256:...]`), if any. */
export function imageKubernetesVersion(image: string): KubernetesVersion | undefined {
  const withoutDigest = image.split('@')[0] ?? '';
  const tag = withoutDigest.includes(':') ? withoutDigest.slice(withoutDigest.lastIndexOf(':') + 1) : '';
  const m = /^v(\d+)\.(\d+)\.(\d+)/.exec(tag);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

/** The kubeadm config API that kind generates for this node image. */
export function kubeadmApiVersion(image: string): KubeadmApiVersion {
  const v = imageKubernetesVersion(image);
  if (!v) {
    throw new KindConfigError(
      `cannot tell the Kubernetes version of node image "${image}": its tag must start with vMAJOR.MINOR.PATCH (e.g. kindest/node:v1.37.0@sha256:...)`,
    );
  }
  return v.major > 1 || v.minor >= 31 ? KUBEADM_API_VERSIONS.v1beta4 : KUBEADM_API_VERSIONS.v1beta3;
}

type ExtraArgs = Record<string, string> | { name: string; value: string }[];

function kubeletExtraArgs(api: KubeadmApiVersion, args: Readonly<Record<string, string>>): ExtraArgs {
  if (api === KUBEADM_API_VERSIONS.v1beta3) return { ...args };
  return Object.entries(args).map(([name, value]) => ({ name, value }));
}

/** The kubeadm patches (YAML documents, as kind's kubeadmConfigPatches wants them). */
export function kubeletPatches(image: string, args: Readonly<Record<string, string>> = SANDBOX_KUBELET_ARGS): string[] {
  const api = kubeadmApiVersion(image);
  return ['InitConfiguration', 'JoinConfiguration'].map((kind) =>
    dump({ apiVersion: api, kind, nodeRegistration: { kubeletExtraArgs: kubeletExtraArgs(api, args) } }, { lineWidth: -1 }),
  );
}

/** The kind Cluster object (kind.x-k8s.io/v1alpha4). */
export function kindConfig(options: KindConfigOptions): Record<string, unknown> {
  if (!Number.isInteger(options.workers) || options.workers < 0) throw new KindConfigError(`workers must be a whole number >= 0, got ${options.workers}`);
  const mapping = options.portMapping;
  if (mapping && mapping.listenAddresses.length < options.workers + 1)
    throw new KindConfigError(`port mapping needs ${options.workers + 1} listen addresses, got ${mapping.listenAddresses.length}`);
  const node = (role: 'control-plane' | 'worker', i: number): Record<string, unknown> => ({
    role,
    image: options.image,
    ...(mapping
      ? {
          extraPortMappings: mapping.ports.map((port) => ({ containerPort: port, hostPort: port, listenAddress: mapping.listenAddresses[i], protocol: 'TCP' })),
        }
      : {}),
  });
  return {
    kind: 'Cluster',
    apiVersion: 'kind.x-k8s.io/v1alpha4',
    networking: {
      podSubnet: options.podSubnet ?? KIND_CONFIG_DEFAULTS.podSubnet,
      serviceSubnet: options.serviceSubnet ?? KIND_CONFIG_DEFAULTS.serviceSubnet,
    },
    kubeadmConfigPatches: kubeletPatches(options.image),
    nodes: [node('control-plane', 0), ...Array.from({ length: options.workers }, (_, i) => node('worker', i + 1))],
  };
}

/** The kind config file's text. */
export function renderKindConfig(options: KindConfigOptions): string {
  const header = '# Generated by ccm-sandbox (sandbox/runtimes/kind-config.ts): kubelets run with --cloud-provider=external.\n';
  return header + dump(kindConfig(options), { lineWidth: -1 });
}
