// What the sandbox knows about one cloud it can present (`--cloud`): simcloud's own /v1 API or one of
// simcloud's personas. One descriptor per cloud, in its own folder (sandbox/cloud/<kind>/), listed once in
// registry.ts; nothing else in the sandbox branches on a cloud's name. A descriptor says how a CCM is pointed
// at the cloud (environment, upstream flags, the cloud's own CCM's command line), how the sandbox makes
// machines through the cloud's API, what the cloud's CCM writes on a Node, and how the conformance run
// reads a load balancer back through the cloud's API.
import type { Requester } from '../../simulator/api/client/requester.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';
import type { RealHost } from '../intercept/proxy.ts';
import type { CcmKind } from '../ccm/slot.ts';
import type { Capability } from '../conformance/capabilities.ts';

/** What a CCM's environment is built from. */
export interface CcmEnvInput {
  readonly simcloudUrl: string;
  readonly token: string;
  /** The cluster network's name (the sandbox's name): nodes' private addresses and pod routes. */
  readonly network: string;
  readonly lbStrategy: 'lb' | 'ip-block';
  /** The simcloud zone the sandbox's machines are in. */
  readonly zone: string;
}

export interface NetworkSpec {
  readonly name: string;
  readonly ipRange: string;
  readonly zone: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface MachineCreateSpec {
  readonly name: string;
  readonly zone: string;
  readonly serverType: string;
  readonly image: string;
  /** The sandbox's labels for the machine (cluster, role). */
  readonly labels: Readonly<Record<string, string>>;
  /** The cluster network's name. */
  readonly network: string;
}

/** What a persona's create left for /v1 to do: its API may have no network to join or no place for the labels. */
export interface MachineCreated {
  readonly joinedNetwork: boolean;
  readonly labelled: boolean;
}

/** How the sandbox makes a persona's machines, as that cloud's user would, through its API. */
export interface PersonaMachines {
  /** Creates the cluster network through the persona; absent: the network is made through /v1. */
  createNetwork?(spec: NetworkSpec): Promise<void>;
  createMachine(spec: MachineCreateSpec): Promise<MachineCreated>;
  /** Deletes a machine (a simcloud server id) through the persona, where that does more than /v1's delete. */
  deleteMachine?(serverId: string): Promise<void>;
  /** The `--provider-id` a machine's kubelet registers with; absent: none (the CCM sets it). */
  kubeletProviderId?(serverId: string): string;
}

/** A load balancer as the cloud's own API shows it, reduced to what the conformance run checks. */
export interface CloudLoadBalancerView {
  /** The cloud's id for it, as its API spells it. */
  readonly id: string;
  /** Ports it listens on. */
  readonly ports: readonly number[];
  /** simcloud ids of the servers it sends traffic to. */
  readonly serverIds: readonly string[];
  /** The whole object the cloud's API returned for it (a Linode NodeBalancer with its configs), for the continuity checks' settings diff. */
  readonly raw?: Readonly<Record<string, unknown>>;
  /** An address a node announces (kube-vip on phoenixNAP): the cloud shows no ports or targets to compare. */
  readonly announced?: boolean;
  /** Each listener's health check, where the cloud's API shows one (traffic-policy reads it). */
  readonly healthChecks?: readonly LbHealthCheck[];
}

/** A listener's health check as the cloud's API shows it: the port and protocol it probes the nodes on. */
export interface LbHealthCheck {
  /** The listener's port (the Service port). */
  readonly listenPort: number;
  /** The node port it probes (the listener's destination port where the API leaves it unset). */
  readonly port: number;
  /** `http`, `tcp`, ... as the API spells it, lower case. */
  readonly protocol: string;
}

/** Reads through a cloud's API with the sandbox's token. */
export interface CloudReadContext {
  readonly api: Requester;
  /** The cluster's servers (simcloud's view), to map the cloud's targets (ids, addresses) back to them. */
  readonly servers: readonly Server[];
  /** simcloud's URL and the sandbox's token, for a cloud whose API takes credentials of its own (phoenixNAP's OAuth2). */
  readonly simcloud: { readonly url: string; readonly token: string };
}

/** A certificate a user terminates TLS with: its chain (server certificate first) and key, PEM. */
export interface TlsCertificate {
  readonly name: string;
  readonly chain: string;
  readonly key: string;
}

/** Where a TLS profile puts a certificate: the cloud's API, or the cluster (a Secret its CCM reads). */
export interface TlsUploadContext extends CloudReadContext {
  /** Creates a `kubernetes.io/tls` Secret in the run's namespace. */
  createTlsSecret(name: string, certificate: TlsCertificate): Promise<void>;
}

/**
 * lb-tls: how this cloud's users terminate TLS on a load balancer with a certificate of their own, as its CCM
 * documents it: where the certificate goes and the Service's annotations naming it.
 */
export interface TlsProfile {
  /** Puts the certificate where the cloud's CCM reads it; the annotations (full keys) a Service names it with. */
  upload(ctx: TlsUploadContext, certificate: TlsCertificate): Promise<Readonly<Record<string, string>>>;
  /**
   * The Service's ports: 443 terminates TLS; 80, where listed, answers plain HTTP with a redirect to https. A
   * cloud that adds the redirecting listener itself (Hetzner's `redirect_http`) lists 443 alone and `redirect`.
   */
  readonly servicePorts: readonly (80 | 443)[];
  /** Whether port 80 of the load balancer redirects to https (else it is not checked). */
  readonly redirect: boolean;
}

/** A call the cloud's CCM makes besides the server lookup itself while it looks up an instance. */
export interface LookupSecondaryCall {
  /** A path glob in the cloud's API (`*` one segment, `**` any), as simcloud's fault rules take it. */
  readonly path: string;
  /** What the call is, in a few words, with the CCM code that makes it. */
  readonly what: string;
}

/** A capability a CCM of these kinds cannot offer on this cloud, and why (the cloud has nothing to do it with). */
export interface CloudNotOffered {
  readonly ccms: readonly CcmKind[];
  readonly reason: string;
}

/** A status the cloud's API says a server is gone with, and where that is seen. */
export interface GoneStatus {
  readonly status: number;
  readonly evidence: string;
}

/** The per-cloud half of the conformance run (sandbox/conformance/). */
export interface ConformanceProfile {
  /**
   * Capabilities the cloud gives a CCM nothing to offer with (no route API, no load-balancer settings): the run
   * reports them not offered with the reason, without checking. `command` is the cloud's own CCM's slot.
   */
  readonly notOffered?: { readonly [C in Capability]?: CloudNotOffered };
  /**
   * The network, VPC or interface call the cloud's CCM makes while it looks up an instance (api-faults fails
   * it for a window), or why there is none: the server record already carries what the CCM needs.
   */
  readonly lookupSecondary: LookupSecondaryCall | { readonly none: string };
  /**
   * The statuses the cloud's API answers for a server that is gone, each with its evidence (404 when absent): a
   * CCM is right to read them as the instance not found, so api-faults does not inject them as faults.
   */
  readonly goneStatuses?: readonly GoneStatus[];
  /** Node labels this cloud's CCM sets besides the well-known ones. */
  readonly nodeLabels: Readonly<Record<string, string>>;
  /** Whether the cloud has zones (its CCM sets topology.kubernetes.io/zone) or regions only. */
  readonly zones: boolean;
  /** The zone label its CCM writes on a server's Node, where that is not simcloud's zone of the server. */
  zoneLabel?(server: Server): string;
  /** Whether a load balancer honours a Service's loadBalancerSourceRanges. */
  readonly sourceRanges: boolean;
  /**
   * The most used annotations, in the cloud CCM's own keys: PROXY protocol v1 and an HTTP health check on
   * `healthPathKey` failing fast (the run sets that path to /unhealthy, then /healthz).
   */
  readonly annotations: { readonly prefix: string; readonly values: Readonly<Record<string, string>>; readonly healthPathKey: string };
  /**
   * traffic-policy: the annotations (full keys) that make the load balancer's health checks fast without choosing
   * their port, protocol or path, so the CCM is free to point them at healthCheckNodePort; or why its load
   * balancers have no health check a CCM could point there (the capability is then not offered).
   */
  readonly healthChecks: { readonly fast: Readonly<Record<string, string>> } | { readonly none: string };
  /**
   * in-cluster: the annotations (full keys) that turn the PROXY protocol (v1) on for a load balancer, or why the
   * cloud's CCM has none (the capability is then not offered).
   */
  readonly proxyProtocol: { readonly annotations: Readonly<Record<string, string>> } | { readonly none: string };
  /** lb-tls: how a user terminates TLS with an uploaded certificate, or why the cloud's CCM cannot (not offered). */
  readonly tls: TlsProfile | { readonly none: string };
  /** The load balancer whose address is `vip`, read through the cloud's API; undefined when there is none. */
  readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined>;
  /** What the annotations set that traffic cannot show, read back through the cloud's API: each mismatch a sentence. */
  checkAnnotated?(ctx: CloudReadContext, vip: string): Promise<string[]>;
  /**
   * The address behind a hostname ingress, for a CCM that writes only hostnames (Brightbox's), found through the
   * cloud's API from the hostname and the Service it is the ingress of.
   */
  resolveHostname?(
    ctx: CloudReadContext,
    ingress: { readonly hostname: string; readonly namespace: string; readonly service: string; readonly cluster: string },
  ): Promise<string | undefined>;
}

/** The cloud's own CCM (built from its public source, run in the slot with `--ccm command`). */
export interface OwnCcm {
  /** Its binary, as its releases name it. */
  readonly binary: string;
  /** The `--ccm-command` that runs it in the slot, from the environment the slot gives a command. */
  command(binary?: string): string;
  /** What to know before running it (one or two lines for the summary). */
  readonly note: string;
}

export interface CloudDescriptor<K extends string = string> {
  readonly kind: K;
  /** The cloud's name in prose, e.g. `Hetzner Cloud`. */
  readonly title: string;
  /** Where the API a CCM is given lives, for the summary: its URL for a simcloud URL. */
  apiUrl(simcloudUrl: string): string;
  /** The environment variable a CCM reads its token from. */
  readonly tokenVariable: string;
  /**
   * The cloud's real API hostnames, where the persona serves each one's paths: the interception proxy
   * (sandbox/intercept/) tunnels to these names only, so a tool with compiled-in URLs reaches the persona.
   */
  readonly realHosts?: readonly RealHost[];
  /** The SDK-based programs that work against the cloud (for the summary). */
  readonly clients: string;
  /** The providerID the cloud's CCM gives the Node of simcloud server `serverId`. */
  providerId(serverId: string): string;
  /** The CCM environment for this cloud. */
  ccmEnv(input: CcmEnvInput): Record<string, string>;
  /** The upstream Go CCM's provider for this cloud (go/provider/<name>) and whether it offers Routes. */
  readonly upstream: {
    readonly provider: string;
    readonly routes: boolean;
    readonly extraArgs: readonly string[];
    /** Why the upstream Go CCM cannot run this cloud yet; then `--ccm upstream` is refused and there is no default CCM. */
    readonly unavailable?: string;
  };
  /** Whether our TypeScript CCM speaks this cloud's API. */
  readonly builtinCcm: boolean;
  /** The Service annotation the cloud's CCM takes a load balancer's name from, if it has one. */
  readonly lbNameAnnotation?: string;
  /**
   * A server's private address as the cloud's API presents it, where that is not simcloud's loopback one
   * (Linode shows 192.168.128.0/17, Hetzner 10.0.0.0/16, DigitalOcean 10.110.0.0/16: ADR 0013): what the
   * cloud's CCM writes as the Node's InternalIP (null: none, as Brightbox's CCM writes only ExternalIPs).
   */
  presentedPrivateIp?(server: Server): string | null;
  /** How the cloud's API spells a simcloud id (`srv-00000042` → `42`), for showing both side by side; undefined where it has no such resource. */
  personaId?(simcloudId: string): string | undefined;
  /** The cloud's own word for each kind of resource it shows, by simcloud id prefix (`lb` → `NodeBalancer`). */
  readonly nouns?: Readonly<Record<string, string>>;
  /** The cloud's own CCM; absent for simcloud. */
  readonly ownCcm?: OwnCcm;
  /**
   * What the cloud's own deploy manifests grant its CCM beyond upstream's role (deploy/rbac.yaml), e.g.
   * reading Secrets for TLS certificates: the sandbox's CCM identity gets these too, as one ClusterRole.
   */
  readonly ccmRbacRules?: readonly CcmRbacRule[];
  /**
   * Makes what the cloud's own CCM needs before it starts, through the cloud's API and in `ccmDir` (the directory
   * the CCM slot names in CCM_SANDBOX_CCM_DIR): phoenixNAP's the cluster's public network and a cloud config
   * naming it.
   */
  /** The cloud's load balancers are addresses a node announces with kube-vip (phoenixNAP's model): the local runtime stands in for it. */
  readonly kubeVip?: boolean;
  readonly prepareCcm?: (o: {
    readonly endpoint: string;
    readonly token: string;
    readonly network: string;
    readonly zone: string;
    readonly ccmDir: string;
  }) => Promise<void>;
  /** How machines are made through the persona; absent: through /v1 (and then any runtime works). */
  machines?(o: { readonly endpoint: string; readonly token: string }): PersonaMachines;
  readonly conformance: ConformanceProfile;
}

/** One RBAC PolicyRule a cloud's CCM is granted (the Kubernetes shape). */
export interface CcmRbacRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** A descriptor with its kind as a literal type, so the registry derives the union of kinds. */
export function defineCloud<const K extends string>(d: CloudDescriptor<K>): CloudDescriptor<K> {
  return d;
}

/** A server's private address as `cloud` presents it (its loopback one unless the cloud translates it). */
export function presentedPrivateIp(cloud: Pick<CloudDescriptor, 'presentedPrivateIp'>, server: Server): string | null {
  return cloud.presentedPrivateIp === undefined ? server.private_ipv4 : cloud.presentedPrivateIp(server);
}

/** simcloud's base URL without a trailing slash, for joining a persona's prefix. */
export const bareUrl = (simcloudUrl: string): string => simcloudUrl.replace(/\/+$/, '');

/**
 * A simcloud resource as the cloud's API shows it, to stand beside simcloud's id: `Linode: NodeBalancer 10`,
 * `Brightbox: Server Group grp-0000a`; undefined on simcloud and where the cloud has no such resource.
 */
export function inCloudWords(cloud: Pick<CloudDescriptor, 'title' | 'personaId' | 'nouns'>, simcloudId: string): string | undefined {
  const id = cloud.personaId?.(simcloudId);
  if (id === undefined) return undefined;
  const noun = cloud.nouns?.[simcloudId.slice(0, simcloudId.indexOf('-'))];
  return `${cloud.title}: ${noun === undefined ? '' : `${noun} `}${id}`;
}
