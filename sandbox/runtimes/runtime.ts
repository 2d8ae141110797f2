// The runtime contract (kwokctl's split): a runtime provides a Kubernetes cluster whose kubelets run with
// --cloud-provider=external, and machines that exist as simcloud servers. The sandbox orchestration
// (simcloud, the CCM, the console) is the same for every runtime; only this part differs.
//   local     real control plane + virtual kubelets driven by simcloud servers (no Docker needed)
//   kind      `kind create cluster`, node containers registered as servers, power actions -> docker
//   vagrant   the top-level Vagrantfile (kubeadm VMs), power actions -> vagrant halt/up/destroy
//   existing  any kubeconfig; servers adopted for the cluster's nodes by name
import type { Exec } from '../exec.ts';
import type { RecordSink } from '../startup.ts';

export const RUNTIME_NAMES = ['local', 'kind', 'vagrant', 'existing'] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];

export const NODE_ROLES = { controlPlane: 'control-plane', worker: 'worker' } as const;
export type NodeRole = (typeof NODE_ROLES)[keyof typeof NODE_ROLES];

/** A machine of the cluster as the cloud should know it. */
export interface MachineSpec {
  /** Node name = server name (how the CCM matches them before a providerID exists). */
  readonly name: string;
  readonly role: NodeRole;
  /** Addresses the machine really has (kind containers, VMs); omitted = simcloud allocates. */
  readonly publicIPv4?: string;
  readonly privateIPv4?: string;
}

export interface RegisteredServer {
  readonly id: string;
  readonly name: string;
  readonly publicIPv4: string | null;
  readonly privateIPv4: string | null;
}

export const POWER_ACTIONS = { powerOff: 'poweroff', powerOn: 'poweron', reboot: 'reboot', delete: 'delete' } as const;
export type PowerAction = (typeof POWER_ACTIONS)[keyof typeof POWER_ACTIONS];

export interface PowerEvent {
  readonly serverId: string;
  readonly name: string;
  readonly action: PowerAction;
}

/** The narrow view of simcloud a runtime needs (the orchestration implements it on the typed client). */
export interface SandboxCloud {
  /** Creates the server, or returns the existing one with that name (idempotent). */
  registerServer(machine: MachineSpec): Promise<RegisteredServer>;
  /** Power actions taken in the cloud (API, console, CLI), to be mirrored on the real machine. */
  onPowerEvent(handler: (event: PowerEvent) => void): () => void;
}

/** What a runtime knows before simcloud runs: everything but the cloud. */
export type RuntimeBaseContext = Omit<RuntimeContext, 'cloud' | 'cloudEndpoint'>;

export interface RuntimeContext {
  readonly exec: Exec;
  /** The sandbox's state directory: logs, kubeconfig, generated configs live here. */
  readonly stateDir: string;
  /** Cluster name (`--name`), also the CCM's --cluster-name. */
  readonly name: string;
  readonly workers: number;
  readonly cloud: SandboxCloud;
  /** simcloud's API URL as seen from the cluster's machines (host address for VMs/containers). */
  readonly cloudEndpoint: string;
  /** Progress lines for humans. */
  readonly progress: (message: string) => void;
  /** For `existing`: the kubeconfig to use. */
  readonly kubeconfig?: string;
  /** Receives the phases inside the runtime's start (etcd, kube-apiserver, machines created, ...). */
  readonly phase?: RecordSink;
}

/** How to reach a cluster's API: known before its machines are (a CCM can start then). */
export interface ClusterAccess {
  readonly kubeconfigPath: string;
  /** The cluster's pod network, for the CCM's --cluster-cidr. */
  readonly clusterCidr: string;
}

export interface ClusterInfo extends ClusterAccess {
  readonly machines: readonly RegisteredServer[];
}

export interface Availability {
  readonly ok: boolean;
  /** When not ok: one line saying what is missing and how to get it. */
  readonly reason?: string;
}

export interface Runtime {
  readonly name: RuntimeName;
  /** Whether this runtime can work on this machine (tools present, engine running). */
  available(ctx: Pick<RuntimeContext, 'exec'>): Promise<Availability>;
  /** Creates the cluster and registers its machines with the cloud; resolves when the API answers. */
  up(ctx: RuntimeContext): Promise<ClusterInfo>;
  /** Destroys what up() created. Idempotent: a second call, or a call after a failed up(), succeeds. */
  down(ctx: RuntimeContext): Promise<void>;
  /** Where up() writes (or wrote) the kubeconfig. */
  kubeconfigPath(ctx: Pick<RuntimeContext, 'stateDir' | 'name' | 'kubeconfig'>): string;
  /** Copies component and node logs into dir (called before down()). */
  collectLogs(ctx: RuntimeContext, dir: string): Promise<void>;
  /** Adds one worker machine (registered with the cloud) and returns it. */
  addWorker?(ctx: RuntimeContext): Promise<RegisteredServer>;
  /** Holds a node's kubelet silent while its machine keeps running (`silent`), or releases it. */
  silenceKubelet?(nodeName: string, silent: boolean): Promise<void>;
  /**
   * Where the machines' real addresses live (kind's docker network, Vagrant's host-only network), known
   * before up(): simcloud's cluster network must have this range (registerServer passes the real private
   * IPs) and, when given, its LB VIP pool should be vipPool. Absent or undefined = the loopback defaults.
   */
  cloudNetwork?(): CloudNetwork | undefined;
}

/**
 * A runtime with a part that needs no cloud (local: its control plane), started by prestart() while the
 * sandbox starts simcloud. prestart() resolves once the cluster's API serves clients with the admin
 * kubeconfig it gives, so the CCM can start while up() creates the machines and registers their kubelets;
 * up() still resolves only when all of it is ready. down() needs no cloud either: it can follow a
 * prestart() whose up() never ran.
 */
export interface PrestartingRuntime extends Runtime {
  prestart(ctx: RuntimeBaseContext): Promise<ClusterAccess>;
  down(ctx: RuntimeBaseContext): Promise<void>;
}

export function prestarts(runtime: Runtime): runtime is PrestartingRuntime {
  return 'prestart' in runtime && typeof runtime.prestart === 'function';
}

export interface CloudNetwork {
  /** IPv4 CIDR for simcloud's private network of the cluster. */
  readonly range: string;
  /** IPv4 CIDR for simcloud's LB VIP pool, when the runtime needs VIPs somewhere specific. */
  readonly vipPool?: string;
}
