// What every capability check gets (the sandbox, Kubernetes clients, the cloud's descriptor and a reader
// for its API, what earlier checks left behind) and how a check reports: return to pass, throw
// CapabilityFailure with a sentence to fail, throw NotOffered when the CCM shows no sign of the capability.
// The objects a check involves are remembered so a failure comes with their Events.
import https from 'node:https';
import { connect } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { AppsV1Api, CoreV1Api, V1Node } from '@kubernetes/client-node';
import type { Requester } from '../../simulator/api/client/requester.ts';
import type { ApiCallEvent, SimEvent } from '../../simulator/api/schema/events.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';
import type { CloudDescriptor, CloudReadContext } from '../cloud/descriptor.ts';
import { SANDBOX_LABELS } from '../cloud/sandbox-cloud.ts';
import type { Sandbox } from '../sandbox.ts';
import { waitFor, WaitTimeoutError } from '../wait.ts';
import type { CloudWrite } from './report.ts';

export class CapabilityFailure extends Error {
  override name = 'CapabilityFailure';
}

export class NotOffered extends Error {
  override name = 'NotOffered';
}

/** A Kubernetes object a check looked at: its Events explain a failure. */
export interface InvolvedObject {
  readonly kind: 'Node' | 'Service';
  readonly name: string;
  readonly namespace?: string;
}

/** What earlier checks leave for later ones. */
export interface RunMemory {
  /** The basic LB Service's ingress address. */
  vip?: string;
  /** The annotated LB Service's ingress address. */
  annotatedVip?: string;
  /** The load balancers of traffic-policy, in-cluster and lb-tls, by Service name: lb-delete removes them too. */
  moreLbs?: Record<string, string>;
  /** The node the update check joined. */
  joined?: string;
  /** When every node was first seen initialised. */
  initialisedAt?: number;
}

/**
 * What a run checks (`--profile`): `kubernetes` what upstream's controllers and Kubernetes itself need of a
 * CCM (providerID, the well-known labels and addresses InstanceMetadata gives, the taints), `cloud` that and
 * what the cloud's own CCM adds (its own Node labels, e.g. hcloud's instance.hetzner.cloud/provided-by).
 */
export const PROFILES = ['kubernetes', 'cloud'] as const;
export type Profile = (typeof PROFILES)[number];

/** Who asks for what a check found missing: Kubernetes (every CCM) or the cloud's own CCM (`--profile cloud`). */
export function requiredBy(origin: Profile, cloud: Pick<CloudDescriptor, 'kind'>): string {
  return origin === 'kubernetes' ? 'required by Kubernetes' : `added by ${cloud.kind}'s own CCM, checked with --profile cloud`;
}

/** How long the adversity checks hold a condition, and the idle budget (`--fault-window`, `--idle-window`, `--idle-budget`). */
export interface AdversityWindows {
  /** How long each injected fault (api-faults) or rate limit (rate-limit) lasts. */
  readonly faultMs: number;
  /** How long idle-budget counts a settled CCM's calls. */
  readonly idleMs: number;
  /** Calls per second on any one endpoint above which idle-budget fails. */
  readonly idleBudgetPerSecond: number;
}

export const DEFAULT_ADVERSITY_WINDOWS: AdversityWindows = { faultMs: 10_000, idleMs: 60_000, idleBudgetPerSecond: 1 };

/** The sandbox's own callers (its harness, status, console, this run) are not the CCM. */
export const isCcmCall = (e: SimEvent): e is ApiCallEvent => e.type === 'api_call' && !(e.caller ?? '').startsWith('ccm-sandbox');

export interface ConformanceContext {
  readonly sandbox: Sandbox;
  readonly cloud: CloudDescriptor;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  /** The cloud's API with the sandbox's token, for reading back what the CCM made. */
  readonly api: Requester;
  /** The namespace of the run's workloads. */
  readonly namespace: string;
  /** How long one condition may take before the check fails. */
  readonly timeoutMs: number;
  /** Whether the run must see this capability (`--only`): then showing no sign of it is a failure. */
  readonly required: boolean;
  readonly memory: RunMemory;
  /** `--upgrade-from`: the command line of the CCM the upgrade check starts from. */
  readonly upgradeFrom?: string;
  /** The CCM's cloud writes a continuity check lists in its result. */
  readonly writes: CloudWrite[];
  /** What the run checks; absent means `kubernetes`. */
  readonly profile?: Profile;
  readonly windows: AdversityWindows;
  involve(object: InvolvedObject): void;
}

/** Waits for `condition`; on timeout the check fails with `description` and the last observation. */
export async function until<T>(
  ctx: Pick<ConformanceContext, 'timeoutMs'>,
  description: string,
  condition: () => Promise<T | undefined | false>,
  timeoutMs = ctx.timeoutMs,
): Promise<T> {
  try {
    return await waitFor(condition, { timeoutMs, intervalMs: 250, description });
  } catch (err) {
    if (err instanceof WaitTimeoutError) throw new CapabilityFailure(err.message);
    throw err;
  }
}

/** Fails the check with `message` unless `ok`. */
export function check(ok: boolean, message: string): asserts ok {
  if (!ok) throw new CapabilityFailure(message);
}

export { UNINITIALIZED_TAINT } from '../kubelet/node-object.ts';
export { readyOf } from '../console/node-changes.ts';
export { hasTaintKey as hasTaint } from '../../src/kube/taints.ts';
export const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';
export const EXCLUDE_FROM_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';

/** The cluster's servers (simcloud's view of the machines, whatever API made them). */
export async function clusterServers(ctx: Pick<ConformanceContext, 'sandbox'>): Promise<Server[]> {
  return ctx.sandbox.client.servers.listAll({ label_selector: `${SANDBOX_LABELS.cluster}=${ctx.sandbox.options.name}` });
}

/** What the cloud's read-back is given: its API, the cluster's servers, simcloud's URL and token. */
export async function cloudRead(ctx: Pick<ConformanceContext, 'sandbox' | 'api'>): Promise<CloudReadContext> {
  const sim = ctx.sandbox.state.simcloud;
  return { api: ctx.api, servers: await clusterServers(ctx), simcloud: { url: sim?.url ?? '', token: sim?.token ?? '' } };
}

export async function listNodes(ctx: Pick<ConformanceContext, 'core'>): Promise<V1Node[]> {
  return (await ctx.core.listNode()).items;
}

/** Worker nodes a load balancer must send traffic to: not the control plane, not excluded by label. */
export function lbNodes(nodes: readonly V1Node[]): V1Node[] {
  return nodes.filter((n) => n.metadata?.labels?.[CONTROL_PLANE_LABEL] === undefined && n.metadata?.labels?.[EXCLUDE_FROM_LB_LABEL] === undefined);
}

/** One HTTP/1.1 exchange over a raw socket (optionally from a chosen loopback source address). */
export function httpGet(ip: string, port: number, path = '/', localAddress?: string): Promise<{ status: number; body: string; location: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: ip, port, ...(localAddress ? { localAddress } : {}) });
    let raw = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`timeout talking to ${ip}:${port}`)));
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nhost: ${ip}\r\nconnection: close\r\n\r\n`));
    socket.on('data', (d: Buffer) => (raw += d.toString()));
    socket.on('end', () => {
      const head = raw.slice(0, Math.max(0, raw.indexOf('\r\n\r\n')));
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(raw)?.[1] ?? 0);
      resolve({ status, body: raw.slice(raw.indexOf('\r\n\r\n') + 4), location: /\r\nlocation: *([^\r]*)/i.exec(head)?.[1] ?? null });
    });
    socket.on('error', reject);
  });
}

/**
 * An HTTPS GET of `path` through ip:port as `servername` (SNI and Host), the server's certificate verified
 * against `ca` alone: the status, the body and the certificate's subject CN; a handshake the CA does not
 * verify rejects.
 */
export function httpsGet(
  ip: string,
  port: number,
  opts: { ca: string; servername: string; path?: string },
): Promise<{ status: number; body: string; cn: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: ip, port, path: opts.path ?? '/', servername: opts.servername, ca: opts.ca, agent: false, timeout: 5000, headers: { host: opts.servername } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cn: String((res.socket as TLSSocket).getPeerCertificate().subject.CN) }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout talking to ${ip}:${port} over TLS`)));
    req.on('error', reject);
    req.end();
  });
}

/** The JSON a node's kube-proxy stand-in answers with (local runtime), or undefined for any other body. */
export function standInReply(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
