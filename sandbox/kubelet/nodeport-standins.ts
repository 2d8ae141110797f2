// The kube-proxy stand-in's sockets for the `local` runtime. Virtual kubelets run no kube-proxy and no
// containers, so on the running nodes' own addresses we do what kube-proxy decides, without ever
// dialling a pod: a NodePort is listened on only where the Service has an endpoint usable from that
// node (any ready endpoint, or one on the node itself under externalTrafficPolicy Local), so elsewhere
// the connection is refused as kube-proxy's REJECT makes it. An accepted connection is given an endpoint
// (round robin, ClientIP affinity) and answered for it: an HTTP request gets a JSON reply naming the
// node, Service, pod and endpoint, plus the PROXY header the LB sent; a client that sends nothing gets
// the same JSON as one line. Paths under /unhealthy answer 503 (the "application" failing its check),
// so a test or demo can show the health-check path annotation is used. Each node also serves a Local
// Service's healthCheckNodePort with kube-proxy's contract: any path, 200 with the node's local
// endpoint count, 503 when it has none; and kube-proxy's own health server on port 10256. A UDP Service
// port is served the same way on a UDP socket (udp-standin.ts): a flow keeps its endpoint as conntrack
// does, and each datagram gets the pod's image's UDP answer (or the stand-in's JSON).
//
// LoadBalancer ingress IPs: kube-proxy makes every node accept traffic addressed to a Service's ingress
// IP on the Service's port, which is how a network load balancer that keeps the destination address
// (DigitalOcean's REGIONAL_NETWORK) reaches the pods. On loopback the load balancer holds its VIP, so it
// cannot address the node as the VIP: simcloud's passthrough load balancers connect to the node's own
// address on the Service's port *from* their VIP instead. So each node listens on its addresses at the
// Service ports of LoadBalancer Services with an ingress IP, and takes a connection coming from an
// ingress IP as addressed to it (where kube-proxy reads the destination). A connection from anywhere
// else to such a port, with no NodePort there, is reset.
import { STATUS_CODES } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { V1Pod } from '@kubernetes/client-node';
import { isProxyHeaderStart, parseProxyHeader, type ParsedProxyHeader } from '../../simulator/api/proxy-protocol.ts';
import { realClock, type Clock } from '../../src/kube/clock.ts';
import { EndpointPicker } from './endpoint-picker.ts';
import { KUBE_PROXY_HEALTH_PORT, proxierHealthReply, type StandInHttpReply } from './proxier-health.ts';
import { answerHttp, answerMessage, type ImageReplies, type PodBehaviour } from './images/replies.ts';
import { UdpStandIn, type FlowOpener } from './udp-standin.ts';
import { endpointsOn, localEndpointCount, type ProxiedPort, type ProxiedService, type ProxyEndpoint } from './proxy-table.ts';

export interface StandInNode {
  readonly name: string;
  readonly ips: readonly string[];
}

export interface StandInReply {
  /** The node whose address took the connection. */
  readonly node: string;
  readonly service: string;
  /** The port's NodePort (0 when it has none). */
  readonly nodePort: number;
  /** The LoadBalancer ingress `ip:port` the connection was addressed to; null through a NodePort. */
  readonly ingress: string | null;
  /** The pod that served (the endpoint's targetRef), null for an endpoint without one. */
  readonly pod: string | null;
  /** The endpoint chosen; its address is data only, nothing connects to it. */
  readonly endpoint: { readonly address: string; readonly port: number; readonly node: string | null };
  /** The client as this node saw it (the LB, for proxied traffic). */
  readonly peer: string;
  /** The PROXY header the LB sent, if any: the original client. */
  readonly proxy: Omit<ParsedProxyHeader, 'length'> | null;
  readonly path: string | null;
}

/** kube-proxy's health check body. */
export interface HealthCheckReply {
  readonly service: { readonly namespace: string; readonly name: string };
  readonly localEndpoints: number;
  readonly serviceProxyHealthy: boolean;
}

/** A Service port answered on a node: through its NodePort (`ingress` null) or for an ingress IP (`ip:port`). */
interface ServedRoute {
  readonly node: string;
  readonly service: ProxiedService;
  readonly port: ProxiedPort;
  readonly ingress: string | null;
}

type Route =
  | ({ readonly kind: 'service' } & ServedRoute)
  | { readonly kind: 'health'; readonly node: string; readonly service: ProxiedService }
  | { readonly kind: 'proxier'; readonly node: string };

/** What one node address and port answers: connections from an ingress IP by that IP, any other by `local`. */
interface Routes {
  readonly ingress: Map<string, Route>;
  local: Route | undefined;
}

interface Listener {
  readonly server: Server;
  readonly sockets: Set<Socket>;
  routes: Routes;
}

interface Wanted {
  readonly ip: string;
  readonly port: number;
  readonly transport: Transport;
  readonly routes: Routes;
}

/** A Service port's transport; SCTP ports are not served. */
type Transport = 'tcp' | 'udp';

/** One route of a node: its port, and the ingress IP it answers for (null: any client). */
interface PortRoute {
  readonly port: number;
  readonly transport: Transport;
  readonly route: Route;
  readonly from: string | null;
}

/** A pod by namespace and name, from the stand-in's cache. */
export type PodLookup = (namespace: string, name: string) => V1Pod | undefined;

export interface NodePortStandInsOptions {
  readonly onError?: (message: string) => void;
  readonly clock?: Pick<Clock, 'now'>;
  /** Where kube-proxy's own health server answers (10256; tests pick a free one). */
  readonly proxierHealthPort?: number;
  /** With `images`: an endpoint's pod answers as its image does (images/replies.ts). */
  readonly pods?: PodLookup;
  readonly images?: ImageReplies;
}

/** How long a connection may stay silent before we speak first (plain TCP clients wait for us). */
const SILENT_CLIENT_MS = 150;
/** Bytes read before answering anyway: a line that never ends must not grow a buffer without bound. */
const MAX_REQUEST_BYTES = 16 * 1024;

export class NodePortStandIns {
  readonly #listeners = new Map<string, Listener>();
  readonly #udp = new Map<string, UdpStandIn>();
  /** The usable endpoints (`address:port`) of every served Service port, by picker key: what keeps a UDP flow alive. */
  #usable = new Map<string, Set<string>>();
  readonly #onError: (message: string) => void;
  readonly #picker: EndpointPicker;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #proxierPort: number;
  readonly #pods: PodLookup | undefined;
  readonly #images: ImageReplies | undefined;
  #lastSynced = 0;

  constructor(options: NodePortStandInsOptions = {}) {
    this.#onError = options.onError ?? (() => undefined);
    this.#pods = options.pods;
    this.#images = options.images;
    this.#clock = options.clock ?? realClock;
    this.#picker = new EndpointPicker(this.#clock);
    this.#proxierPort = options.proxierHealthPort ?? KUBE_PROXY_HEALTH_PORT;
  }

  /**
   * Declarative: listens on exactly the node addresses and ports kube-proxy would accept on: each
   * NodePort and each ingress IP's Service port with a usable endpoint from that node, each Local
   * Service's health check node port, and kube-proxy's health port. Calls must not overlap (the caller
   * serialises them).
   */
  async apply(nodes: readonly StandInNode[], services: readonly ProxiedService[]): Promise<void> {
    this.#lastSynced = this.#clock.now();
    const wanted = new Map<string, Wanted>();
    for (const node of nodes) {
      for (const r of routesOn(node.name, services, this.#proxierPort)) for (const ip of node.ips) addRoute(wanted, ip, r);
    }
    const served = [...wanted.values()].flatMap(({ routes }) => [routes.local, ...routes.ingress.values()]).flatMap((r) => (r?.kind === 'service' ? [r] : []));
    this.#picker.retain(new Set(served.map(pickerKey)));
    this.#usable = new Map(served.map((r) => [pickerKey(r), new Set(endpointsOn(r.service, r.port, r.node).map((e) => `${e.address}:${e.port}`))]));
    await Promise.all([...this.#listeners.keys(), ...this.#udp.keys()].filter((k) => !wanted.has(k)).map((k) => this.#close(k)));
    await Promise.all([...wanted].map(([key, w]) => (w.transport === 'udp' ? this.#ensureUdp(key, w) : this.#ensure(key, w))));
  }

  /** Addresses currently served, as "ip:port" (TCP) and "ip:port/udp". */
  listening(): string[] {
    return [...this.#listeners.keys(), ...this.#udp.keys()].sort();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#listeners.keys(), ...this.#udp.keys()].map((k) => this.#close(k)));
  }

  async #ensureUdp(key: string, w: Wanted): Promise<void> {
    const existing = this.#udp.get(key);
    if (existing) {
      existing.open = this.#flowOpener(w.routes);
      return;
    }
    try {
      this.#udp.set(key, await UdpStandIn.listen(w.ip, w.port, this.#flowOpener(w.routes), this.#clock));
    } catch (err) {
      this.#onError(`cannot listen on ${key} for ${describe(w.routes)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** A UDP flow from a client: an endpoint as for a TCP connection, answered as its pod's image does (or the stand-in's JSON). */
  #flowOpener(routes: Routes): FlowOpener {
    return (client) => {
      const route = routes.ingress.get(client.ip) ?? routes.local;
      if (route?.kind !== 'service') return undefined;
      const key = pickerKey(route);
      const endpoint = this.#picker.pick(key, endpointsOn(route.service, route.port, route.node), client.ip, route.service.affinityTimeoutMs);
      if (!endpoint) return undefined;
      const image = this.#imageOf(route, endpoint);
      const peer = `${client.ip}:${client.port}`;
      return {
        alive: () => this.#usable.get(key)?.has(`${endpoint.address}:${endpoint.port}`) ?? false,
        answer: (payload) =>
          image
            ? answerMessage(image, 'udp', { payload: payload.toString('latin1'), client, now: new Date(this.#clock.now()) })
            : JSON.stringify({ ...served(route, endpoint), peer, proxy: null, path: null } satisfies StandInReply),
      };
    };
  }

  async #ensure(key: string, w: Wanted): Promise<void> {
    const existing = this.#listeners.get(key);
    if (existing) {
      existing.routes = w.routes;
      return;
    }
    const sockets = new Set<Socket>();
    const listener: Listener = { server: createServer(), sockets, routes: w.routes };
    listener.server.on('connection', (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      this.#accept(socket, listener.routes);
    });
    this.#listeners.set(key, listener);
    try {
      await new Promise<void>((resolve, reject) => {
        listener.server.once('error', reject);
        listener.server.listen(w.port, w.ip, () => resolve());
      });
    } catch (err) {
      this.#listeners.delete(key);
      this.#onError(`cannot listen on ${key} for ${describe(w.routes)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  #accept(socket: Socket, routes: Routes): void {
    const route = routes.ingress.get(socket.remoteAddress ?? '') ?? routes.local;
    if (route === undefined) {
      socket.resetAndDestroy();
      return;
    }
    if (route.kind === 'proxier') {
      serve(socket, (req) => standIn(proxierHealthReply(req.http?.uri ?? null, this.#clock.now(), this.#lastSynced), req));
      return;
    }
    if (route.kind === 'health') {
      serve(socket, (req) => standIn(healthResponse(route.service, route.node), req));
      return;
    }
    const endpoint = this.#picker.pick(
      pickerKey(route),
      endpointsOn(route.service, route.port, route.node),
      socket.remoteAddress ?? '',
      route.service.affinityTimeoutMs,
    );
    // The last endpoint left between two apply() calls: what kube-proxy's REJECT rule does to a new flow.
    if (!endpoint) {
      socket.resetAndDestroy();
      return;
    }
    this.#answer(socket, route, endpoint);
  }

  /** Answers for the endpoint: as its pod's image does, else with the stand-in's JSON. */
  #answer(socket: Socket, route: ServedRoute, endpoint: ProxyEndpoint): void {
    const client = { ip: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
    const image = this.#imageOf(route, endpoint);
    if (image) return serve(socket, (req) => imageAnswer(image, req, client, new Date(this.#clock.now())));
    const peer = `${client.ip}:${client.port}`;
    serve(socket, (req) => {
      const path = req.http?.uri ?? null;
      return standIn(
        json(path?.startsWith('/unhealthy') ? 503 : 200, { ...served(route, endpoint), peer, proxy: req.proxy, path } satisfies StandInReply),
        req,
      );
    });
  }

  /** The behaviour of the endpoint's pod, by its image or annotation; null keeps the stand-in's own reply. */
  #imageOf(route: ServedRoute, endpoint: ProxyEndpoint): PodBehaviour | null {
    const pod = endpoint.pod === null ? undefined : this.#pods?.(route.service.namespace, endpoint.pod);
    return pod && this.#images ? this.#images.of(pod, endpoint.port, endpoint.address) : null;
  }

  async #close(key: string): Promise<void> {
    const udp = this.#udp.get(key);
    if (udp) {
      this.#udp.delete(key);
      await udp.close();
    }
    const listener = this.#listeners.get(key);
    if (!listener) return;
    this.#listeners.delete(key);
    for (const s of listener.sockets) s.destroy();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
}

/** What one node listens on for these Services, port by port, and kube-proxy's health port. */
function routesOn(node: string, services: readonly ProxiedService[], proxierPort: number): PortRoute[] {
  const servedPorts = (service: ProxiedService): ProxiedPort[] =>
    service.ports.filter((port) => transportOf(port) !== null && endpointsOn(service, port, node).length > 0);
  const tcp = 'tcp' as const;
  return [
    { port: proxierPort, transport: tcp, route: { kind: 'proxier', node }, from: null },
    ...services.flatMap((service): PortRoute[] => [
      ...servedPorts(service)
        .filter((port) => port.nodePort > 0)
        .map((port) => ({
          port: port.nodePort,
          transport: transportOf(port)!,
          route: { kind: 'service', node, service, port, ingress: null } as const,
          from: null,
        })),
      ...servedPorts(service).flatMap((port) =>
        service.ingressIps.map((ip) => ({
          port: port.port,
          transport: transportOf(port)!,
          route: { kind: 'service', node, service, port, ingress: `${ip}:${port.port}` } as const,
          from: ip,
        })),
      ),
      ...(service.healthCheckNodePort === null
        ? []
        : [{ port: service.healthCheckNodePort, transport: tcp, route: { kind: 'health', node, service } as const, from: null }]),
    ]),
  ];
}

function transportOf(port: ProxiedPort): Transport | null {
  return port.protocol === 'TCP' ? 'tcp' : port.protocol === 'UDP' ? 'udp' : null;
}

/** Adds a route at `ip` (a node's address): one per ingress IP, and the first for any other client. */
function addRoute(wanted: Map<string, Wanted>, ip: string, { port, transport, route, from }: PortRoute): void {
  const key = transport === 'udp' ? `${ip}:${port}/udp` : `${ip}:${port}`;
  const w = wanted.get(key) ?? { ip, port, transport, routes: { ingress: new Map<string, Route>(), local: undefined } };
  wanted.set(key, w);
  // A node holding the ingress IP itself (kube-vip announced it there, kube-vip.ts) takes it from any client.
  if (from === null || from === ip) w.routes.local ??= route;
  else w.routes.ingress.set(from, route);
}

/** What a listener is for, in an error message. */
function describe(routes: Routes): string {
  const route = routes.local ?? [...routes.ingress.values()][0];
  if (route === undefined) return 'nothing';
  return route.kind === 'proxier' ? `kube-proxy's health on ${route.node}` : `${route.service.namespace}/${route.service.name} on ${route.node}`;
}

/** Round robin and affinity are per node and Service port: each node's kube-proxy keeps its own. */
function pickerKey(route: ServedRoute): string {
  return `${route.node} ${route.service.namespace}/${route.service.name}:${route.port.name}`;
}

function served(route: ServedRoute, endpoint: ProxyEndpoint): Pick<StandInReply, 'node' | 'service' | 'nodePort' | 'ingress' | 'pod' | 'endpoint'> {
  return {
    node: route.node,
    service: `${route.service.namespace}/${route.service.name}`,
    nodePort: route.port.nodePort,
    ingress: route.ingress,
    pod: endpoint.pod,
    endpoint: { address: endpoint.address, port: endpoint.port, node: endpoint.node },
  };
}

function healthResponse(service: ProxiedService, node: string): StandInHttpReply {
  const localEndpoints = localEndpointCount(service, node);
  const body: HealthCheckReply = { service: { namespace: service.namespace, name: service.name }, localEndpoints, serviceProxyHealthy: true };
  return json(localEndpoints > 0 ? 200 : 503, body);
}

/** A JSON answer, one line. */
function json(status: 200 | 503, body: unknown): StandInHttpReply {
  return { status, payload: `${JSON.stringify(body)}\n`, contentType: 'application/json' };
}

/** What a client sent: its PROXY header, its HTTP request head if it sent one, else its first line ('' when silent). */
interface Incoming {
  readonly proxy: Omit<ParsedProxyHeader, 'length'> | null;
  readonly http: HttpHead | null;
  readonly line: string;
}

interface HttpHead {
  readonly method: string;
  readonly uri: string;
  /** Names lower-cased; a repeated header keeps its first value. */
  readonly headers: Readonly<Record<string, string>>;
}

/** What goes back: an HTTP response, raw bytes (a line protocol), or nothing (the connection just ends). */
type Outgoing = { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string } | { readonly raw: string } | null;

function parseHead(text: string): HttpHead | null {
  const [requestLine = '', ...lines] = text.split('\r\n\r\n')[0]!.split(/\r?\n/);
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine.trimEnd());
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] ??= line.slice(colon + 1).trim();
  }
  return { method: m[1]!, uri: m[2]!, headers };
}

/** Reads a request (an optional PROXY header, then an HTTP request head or any line) and answers it. */
function serve(socket: Socket, respond: (req: Incoming) => Outgoing): void {
  let buffered = Buffer.alloc(0);
  let proxy: ParsedProxyHeader | null = null;
  const reply = (http: HttpHead | null, line: string): void => finish(socket, respond({ proxy: proxy && stripLength(proxy), http, line }));
  const timer = setTimeout(() => reply(null, ''), SILENT_CLIENT_MS);
  socket.on('error', () => clearTimeout(timer));
  socket.on('data', (chunk: Buffer) => {
    if (socket.writableEnded) return; // answered: what a client still sends is dropped, not buffered
    buffered = Buffer.concat([buffered, chunk]);
    if (buffered.length > MAX_REQUEST_BYTES) {
      clearTimeout(timer);
      return reply(null, buffered.toString('latin1'));
    }
    if (!proxy && isProxyHeaderStart(buffered)) {
      proxy = safeParse(buffered);
      if (!proxy) return;
      buffered = buffered.subarray(proxy.length);
    }
    const text = buffered.toString('latin1');
    const isHttp = /^[A-Z]+ \S+ HTTP\/1\.[01]\r?\n/.test(text);
    if (isHttp ? !/\r?\n\r?\n/.test(text) : !text.includes('\n')) return;
    clearTimeout(timer);
    reply(isHttp ? parseHead(text) : null, text.split('\n')[0]!);
  });
}

function safeParse(buf: Buffer): ParsedProxyHeader | null {
  try {
    return parseProxyHeader(buf);
  } catch {
    return null;
  }
}

function stripLength(p: ParsedProxyHeader): Omit<ParsedProxyHeader, 'length'> {
  const { length: _length, ...rest } = p;
  return rest;
}

/**
 * A pod's answer: an HTTP request gets its image's HTTP reply (a server with no HTTP takes the request line
 * as a TCP line); a line, or silence, gets its TCP reply as one line; an HTTP-only server answers a line
 * that is not HTTP with 400, as Go's and nginx's do, and a silent client with nothing.
 */
function imageAnswer(image: PodBehaviour, req: Incoming, client: { ip: string; port: number }, now: Date): Outgoing {
  if (image.behaviour.proxyProtocol === 'required' && req.proxy === null) return null;
  const proxySource = req.proxy ? `${req.proxy.srcAddress}:${req.proxy.srcPort}` : '';
  if (req.http) {
    const http = answerHttp(image, { ...req.http, client, now, proxySource });
    if (http) return http;
  }
  const line = answerMessage(image, 'tcp', { payload: req.line, client, now, proxySource });
  if (line !== null) return { raw: line.endsWith('\n') ? line : `${line}\n` };
  return image.behaviour.http && req.line !== ''
    ? { raw: 'HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\n400 Bad Request' }
    : null;
}

/** A stand-in reply as sent: an HTTP response to an HTTP request, the bare payload to any other client. */
function standIn(reply: StandInHttpReply, req: Incoming): Outgoing {
  return req.http
    ? { status: reply.status, headers: { 'content-type': reply.contentType, 'x-content-type-options': 'nosniff' }, body: reply.payload }
    : { raw: reply.payload };
}

function finish(socket: Socket, out: Outgoing): void {
  if (socket.destroyed) return;
  if (out === null) return void socket.end();
  if ('raw' in out) return void socket.end(out.raw);
  const headers = { ...out.headers, 'content-length': String(Buffer.byteLength(out.body)), connection: 'close' };
  const head = [`HTTP/1.1 ${out.status} ${STATUS_CODES[out.status] ?? ''}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
  socket.end(`${head}\r\n\r\n${out.body}`);
}
