// The part of the kubelet's HTTPS API (port 10250 on a real node) a virtual kubelet serves, so `kubectl logs`
// works through the real apiserver: GET /containerLogs/{namespace}/{pod}/{container} with the kubelet's
// query (follow, tailLines, limitBytes, timestamps, previous, sinceSeconds/sinceTime) and /healthz. A
// container of a runnable image answers with what its process wrote (containers/logs.ts); a simulated one has
// no process and answers as a kubelet does for a container that has written nothing: an empty log. exec,
// attach, portForward, metrics and the rest answer 501 Not Implemented (what a kubelet answers when its
// runtime does not implement a call), anything else 404.
// It binds one loopback address only (its machine's public address) on a port of its own, posted in the Node's
// daemonEndpoints; the apiserver reaches it through its egress proxy (control-plane/egress-proxy.ts), which maps
// any of the Node's addresses here, and the serving certificate is reissued to cover the address it dialled. Like a kubelet with anonymous auth off and webhook authorization,
// a request without a client certificate of the cluster CA is 401 and one from anyone but the apiserver's
// kubelet client (--kubelet-client-certificate) 403.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  ApiException,
  type CoreV1Api,
  type V1ContainerStateTerminated,
  type V1ContainerStateWaiting,
  type V1ContainerStatus,
  type V1Pod,
} from '@kubernetes/client-node';
import { z } from 'zod';
import type { Clock } from '../../src/kube/clock.ts';
import type { Logger } from '../../src/kube/logger.ts';
import { issueServerCertificate, type PemPair } from '../control-plane/pki.ts';
import type { KubeletDirectory, KubeletEndpoint } from '../control-plane/egress-proxy.ts';
import { isIPv4, isIPv6, isLoopback } from '../../lib/ip.ts';
import type { ContainerRuntime } from './containers/runtime.ts';
import { streamLog, type LogOptions } from './containers/logs.ts';

export interface KubeletTls {
  /** Its serving certificate, for the address it binds. */
  readonly cert: string;
  readonly key: string;
  /** The CA whose client certificates it authenticates (the kubelet's --client-ca-file). */
  readonly clientCa: string;
}

export interface KubeletApiOptions {
  readonly nodeName: string;
  /** The loopback address it binds: the node's ExternalIP. */
  readonly address: string;
  /**
   * Made at the first start (issuing a certificate takes a moment) for the node's name and address, and again
   * for more names when the egress proxy maps another of the Node's addresses here (`names`: those extra names).
   */
  readonly tls: (names: readonly string[]) => Promise<KubeletTls>;
  /** Where it lists itself while serving: kube-apiserver's egress proxy maps the Node's addresses to it. */
  readonly directory?: KubeletDirectory;
  /** The one user it serves: the CN of the apiserver's kubelet client certificate. */
  readonly apiServerUser: string;
  /** Reads pods (the kubelet's pod manager knows the pods bound to it; this one asks the API). */
  readonly core: CoreV1Api;
  /** The container runtime for runnable images, whose logs it serves. */
  readonly containers?: Pick<ContainerRuntime, 'logOf'>;
  readonly logger?: Logger;
  readonly clock?: Pick<Clock, 'now'>;
}

export class KubeletApiError extends Error {
  override name = 'KubeletApiError';
}

/** A reply the handler stops at: status and plain-text body, as the kubelet writes its errors. */
class Reply extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** The kubelet API's paths this kubelet knows but does not serve: 501, as from a runtime without them. */
const UNSUPPORTED = new Set([
  'exec',
  'attach',
  'portForward',
  'run',
  'metrics',
  'stats',
  'pods',
  'runningpods',
  'spec',
  'configz',
  'debug',
  'logs',
  'checkpoint',
  'cri',
]);

/** The subresource of `nodes` the kubelet authorizes a path as (its auth.go), for the 403 message. */
const SUBRESOURCES: Readonly<Record<string, string>> = {
  healthz: 'healthz',
  metrics: 'metrics',
  stats: 'stats',
  logs: 'log',
  pods: 'pods',
  configz: 'configz',
  checkpoint: 'checkpoint',
};

/** Go's strconv.ParseBool, as the kubelet decodes a query's booleans. */
const goBool = z
  .enum(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'])
  .transform((v) => ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v));
const goInt = z
  .string()
  .regex(/^[+-]?\d+$/)
  .transform(Number);

/** PodLogOptions as a query (the kubelet decodes these and ignores other parameters). */
const logQuery = z.object({
  follow: goBool.default(false),
  previous: goBool.default(false),
  timestamps: goBool.default(false),
  tailLines: goInt.optional(),
  limitBytes: goInt.optional(),
  sinceSeconds: goInt.optional(),
  sinceTime: z
    .string()
    .refine((v) => /^\d{4}-\d\d-\d\dT/.test(v) && !Number.isNaN(Date.parse(v)))
    .transform((v) => Date.parse(v))
    .optional(),
});

export class KubeletApi implements KubeletEndpoint {
  readonly #opts: KubeletApiOptions;
  readonly #clock: Pick<Clock, 'now'>;
  #tls: Promise<KubeletTls> | undefined;
  /** Names its certificate covers beyond the node's name and address (other addresses of the Node), lower-cased. */
  readonly #names = new Set<string>();
  #server: Server | undefined;
  #port = 0;
  #unlist: () => void = () => undefined;
  /** Settles once the certificate for every name in #names is in place. */
  #covered: Promise<void> = Promise.resolve();

  constructor(options: KubeletApiOptions) {
    if (!isLoopback(options.address)) throw new KubeletApiError(`the kubelet API of ${options.nodeName} binds loopback only, not ${options.address}`);
    this.#opts = options;
    this.#clock = options.clock ?? { now: () => Date.now() };
  }

  /** The port it listens on (0 while stopped before its first start). */
  get port(): number {
    return this.#port;
  }

  /** The loopback address it binds. */
  get address(): string {
    return this.#opts.address;
  }

  /**
   * Covers more of the Node's names (addresses a CCM gave it, its Hostname) with its serving certificate, as a
   * kubelet's certificate follows its Node's addresses: the apiserver verifies the one it dialled. Takes new
   * connections only; answers once they get it.
   */
  async cover(names: readonly string[]): Promise<void> {
    const missing = names.map((n) => n.toLowerCase()).filter((n) => !this.#names.has(n) && n !== this.#opts.nodeName && n !== this.#opts.address);
    if (missing.length === 0) return this.#covered;
    for (const n of missing) this.#names.add(n);
    const tls = this.#opts.tls([...this.#names]);
    this.#tls = tls;
    // In order, each certificate covering the names of those before it; a concurrent call for the same names waits for this one.
    this.#covered = this.#covered
      .catch(() => undefined)
      .then(() => tls)
      .then((t) => this.#server?.setSecureContext({ cert: t.cert, key: t.key, ca: t.clientCa }));
    return this.#covered;
  }

  /** Listens (again) on its address: the port it had, or a new one if that is taken. Answers the port. */
  async start(): Promise<number> {
    if (this.#server) return this.#port;
    this.#tls ??= this.#opts.tls([...this.#names]);
    const tls = await this.#tls;
    const server = createServer({ cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      void this.#handle(req, res);
    });
    try {
      this.#port = await listen(server, this.#opts.address, this.#port);
    } catch (err) {
      if (this.#port === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      this.#port = await listen(server, this.#opts.address, 0);
    }
    this.#server = server;
    this.#unlist = this.#opts.directory?.add(this.#opts.nodeName, this) ?? (() => undefined);
    this.#opts.logger?.info({ node: this.#opts.nodeName, address: `${this.#opts.address}:${this.#port}` }, 'kubelet API serving');
    return this.#port;
  }

  /** Stops listening and cuts every open request (a follow ends), as a kubelet going down does. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#unlist();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const url = new URL(req.url ?? '/', 'https://kubelet.invalid');
    const call: Call = { req, res, segments: url.pathname.split('/').filter(Boolean).map(decodeURIComponent), query: url.searchParams, signal: abort.signal };
    let status: number;
    try {
      this.#authorize(req, call.segments[0] ?? '');
      status = await this.#route(call);
    } catch (err) {
      const reply = err instanceof Reply ? err : new Reply(500, err instanceof Error ? err.message : String(err));
      status = reply.status;
      if (!res.headersSent) res.writeHead(reply.status, PLAIN);
      res.end(reply.message);
    }
    this.#opts.logger?.debug({ node: this.#opts.nodeName, method: req.method, path: url.pathname, status }, 'kubelet API request');
  }

  /** The kubelet's authentication (x509 of its client CA) and authorization (the apiserver's user only). */
  #authorize(req: IncomingMessage, first: string): void {
    const socket = req.socket as TLSSocket;
    this.#checkHost(req.headers.host ?? '');
    if (!socket.authorized) throw new Reply(401, 'Unauthorized');
    const user = String(socket.getPeerCertificate().subject?.CN ?? '');
    if (user !== this.#opts.apiServerUser) {
      const verb = VERBS[req.method ?? ''] ?? 'get';
      throw new Reply(403, `Forbidden (user=${user}, verb=${verb}, resource=nodes, subresource=${SUBRESOURCES[first] ?? 'proxy'})`);
    }
  }

  /**
   * Only requests for one of this kubelet's names (what the apiserver sends: the address it dialled, with the port
   * the Node posts), or for a loopback address (on an upgrade, port-forward, the apiserver passes on its own
   * client's Host, 127.0.0.1:<its port>); never another name (a browser's, rebinding DNS to loopback).
   */
  #checkHost(host: string): void {
    const url = URL.canParse(`https://${host}`) ? new URL(`https://${host}`) : undefined;
    const name = url?.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase() ?? '';
    const ours = this.#isName(name) && (url?.port === '' || url?.port === String(this.#port));
    if (!ours && !isLoopback(name)) throw new Reply(400, `Host ${host} is not this kubelet's address`);
  }

  #isName(name: string): boolean {
    return name === this.#opts.address || name === this.#opts.nodeName.toLowerCase() || this.#names.has(name);
  }

  async #route(call: Call): Promise<number> {
    const [first = '', ...rest] = call.segments;
    if (first === 'healthz' && rest.length === 0) {
      call.res.writeHead(200, PLAIN).end('ok');
      return 200;
    }
    if (first === 'containerLogs' && rest.length === 3) {
      if (call.req.method !== 'GET') throw new Reply(405, `${call.req.method ?? ''} is not allowed on /containerLogs`);
      const [namespace, pod, container] = rest as [string, string, string];
      await this.#containerLogs({ namespace, name: pod, container }, call);
      return 200;
    }
    if (UNSUPPORTED.has(first))
      throw new Reply(
        501,
        `${first} is not supported by the virtual kubelet of ${this.#opts.nodeName} (ccm-sandbox): its containers are simulated or local processes; it serves /containerLogs and /healthz only`,
      );
    throw new Reply(404, '404 page not found');
  }

  async #containerLogs(target: { namespace: string; name: string; container: string }, call: Call): Promise<void> {
    const { options, previous } = logOptions(call.query, this.#clock.now());
    const log = await this.#logOf(target, previous);
    call.res.writeHead(200, PLAIN);
    this.#opts.logger?.info(
      { node: this.#opts.nodeName, pod: `${target.namespace}/${target.name}`, container: target.container, follow: options.follow, previous },
      'serving container log',
    );
    if (log) await streamLog(log, options, (chunk) => call.res.write(chunk), call.signal);
    // A simulated container has no process and writes nothing; a follow waits, as on a silent container, until the client goes.
    else if (options.follow) await new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }));
    call.res.end();
  }

  /** The run of a runnable container the request reads; undefined for a simulated container (no process, no log). */
  async #logOf(target: { namespace: string; name: string; container: string }, previous: boolean): Promise<ReturnType<ContainerRuntime['logOf']>> {
    const { namespace, name, container } = target;
    const pod = await this.#pod(namespace, name);
    if (!pod) throw new Reply(404, `pod "${name}" does not exist`);
    if (!containerNames(pod).includes(container)) throw new Reply(404, `container "${container}" not found in pod "${name}"`);
    const containerId = logContainerId(pod, container, previous);
    if (containerId.startsWith('virtual://')) return undefined;
    const log = this.#opts.containers?.logOf(`${namespace}/${name}`, pod.metadata?.uid ?? '', container, containerId);
    if (!log) throw new Reply(400, `container "${container}" in pod "${name}": no log for ${containerId} (its process is not known to this kubelet any more)`);
    return log;
  }

  async #pod(namespace: string, name: string): Promise<V1Pod | undefined> {
    try {
      const pod = await this.#opts.core.readNamespacedPod({ namespace, name });
      // A kubelet knows only the pods bound to its node.
      return pod.spec?.nodeName === this.#opts.nodeName ? pod : undefined;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw err;
    }
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

interface Call {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  /** Aborts when the client goes (or the kubelet stops). */
  readonly signal: AbortSignal;
}

const PLAIN = { 'Content-Type': 'text/plain; charset=utf-8' } as const;

const VERBS: Readonly<Record<string, string>> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The query's PodLogOptions as the kubelet decodes (400) and validates (422) them; `now` for sinceSeconds. */
export function logOptions(query: URLSearchParams, now: number): { options: LogOptions; previous: boolean } {
  const params = Object.fromEntries(query);
  // The kubelet's legacy `tail` parameter ("all": every line).
  if (params.tail !== undefined && params.tail !== 'all') params.tailLines = params.tail;
  const parsed = logQuery.safeParse(params);
  if (!parsed.success) throw new Reply(400, '{"message": "Unable to decode query."}');
  const { follow, previous, timestamps, tailLines, limitBytes, sinceSeconds, sinceTime } = parsed.data;
  if (!validLogQuery(parsed.data)) throw new Reply(422, '{"message": "Invalid request."}');
  const sinceMs = sinceSeconds === undefined ? sinceTime : now - sinceSeconds * 1000;
  return { options: { follow, timestamps, tailLines, limitBytes, sinceMs }, previous };
}

/** The kubelet's ValidatePodLogOptions. */
function validLogQuery(q: z.infer<typeof logQuery>): boolean {
  const atLeast = (v: number | undefined, min: number): boolean => v === undefined || v >= min;
  return atLeast(q.tailLines, 0) && atLeast(q.limitBytes, 1) && atLeast(q.sinceSeconds, 1) && (q.sinceSeconds === undefined || q.sinceTime === undefined);
}

function containerNames(pod: V1Pod): string[] {
  const spec = pod.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])].map((c) => c.name);
}

function containerStatus(pod: V1Pod, container: string): V1ContainerStatus | undefined {
  const s = pod.status;
  return [...(s?.containerStatuses ?? []), ...(s?.initContainerStatuses ?? []), ...(s?.ephemeralContainerStatuses ?? [])].find((c) => c.name === container);
}

/**
 * Which run of the container a log request reads, by the kubelet's rules (its validateContainerLogStatus): the
 * previous run's for `previous`; else the running one, the terminated one, or the last terminated one (a
 * container in CrashLoopBackOff shows the run that crashed); a container still waiting has no log yet.
 */
export function logContainerId(pod: V1Pod, container: string, previous: boolean): string {
  const what = `container "${container}" in pod "${pod.metadata?.name ?? ''}"`;
  const status = containerStatus(pod, container);
  if (!status) throw new Reply(400, `${what} is not available`);
  const last = lastRun(status);
  if (previous) return previousRun(last, `previous terminated ${what}`);
  const state = status.state ?? {};
  if (state.running) return status.containerID ?? '';
  if (state.terminated || last) return endedRun(state.terminated, last, `${what} is terminated`);
  throw new Reply(400, `${what} is waiting to start${waitingWhy(state.waiting)}`);
}

function lastRun(status: V1ContainerStatus): V1ContainerStateTerminated | undefined {
  return status.lastState?.terminated;
}

function waitingWhy(waiting: V1ContainerStateWaiting | undefined): string {
  return waiting ? `: ${waiting.reason ?? ''}` : ' - no logs yet';
}

function previousRun(last: V1ContainerStateTerminated | undefined, message: string): string {
  if (!last?.containerID) throw new Reply(400, `${message} not found`);
  return last.containerID;
}

/** The run that ended: the terminated state's, else the last one's (the next run did not start). */
function endedRun(terminated: V1ContainerStateTerminated | undefined, last: V1ContainerStateTerminated | undefined, message: string): string {
  const id = terminated ? terminated.containerID || last?.containerID : last?.containerID;
  if (!id) throw new Reply(400, message);
  return id;
}

export interface KubeletApiFactoryOptions extends Pick<KubeletApiOptions, 'core' | 'containers' | 'logger' | 'apiServerUser' | 'directory'> {
  /** The cluster CA: it issues each kubelet's serving certificate and is the CA its clients' certificates must chain to. */
  readonly ca: PemPair;
}

/** Each node's kubelet API, its serving certificate issued by the cluster CA for the node's name and address. */
export function kubeletApiFactory(options: KubeletApiFactoryOptions): (nodeName: string, address: string) => KubeletApi {
  const { ca, ...rest } = options;
  return (nodeName, address) =>
    new KubeletApi({
      ...rest,
      nodeName,
      address,
      tls: async (names) => {
        const ips = names.filter((n) => isIPv4(n) || isIPv6(n));
        const dns = names.filter((n) => !ips.includes(n));
        return { ...(await issueServerCertificate(ca, `CN=system:node:${nodeName}`, [nodeName, ...dns], [address, ...ips])), clientCa: ca.cert };
      },
    });
}
