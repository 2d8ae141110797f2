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
// endpoint count, 503 when it has none; and kube-proxy's own health server on port 10256.
//
// LoadBalancer ingress IPs: kube-proxy makes every node accept traffic addressed to a Service's ingress
// IP on the Service's port, which is how a network load balancer that keeps the destination address
// (DigitalOcean's REGIONAL_NETWORK) reaches the pods. On loopback the load balancer holds its VIP, so it
// cannot address the node as the VIP: simcloud's passthrough load balancers connect to the node's own
// address on the Service's port *from* their VIP instead. So each node listens on its addresses at the
// Service ports of LoadBalancer Services with an ingress IP, and takes a connection coming from an
// ingress IP as addressed to it (where kube-proxy reads the destination). A connection from anywhere
// else to such a port, with no NodePort there, is reset.
import { createServer, type Server, type Socket } from 'node:net';
import { isProxyHeaderStart, parseProxyHeader, type ParsedProxyHeader } from '../../simulator/api/proxy-protocol.ts';
import { realClock, type Clock } from '../../src/kube/clock.ts';
import { EndpointPicker } from './endpoint-picker.ts';
import { KUBE_PROXY_HEALTH_PORT, proxierHealthReply, type StandInHttpReply } from './proxier-health.ts';
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
  readonly routes: Routes;
}

/** One route of a node: its port, and the ingress IP it answers for (null: any client). */
interface PortRoute {
  readonly port: number;
  readonly route: Route;
  readonly from: string | null;
}

/** How long a connection may stay silent before we speak first (plain TCP clients wait for us). */
const SILENT_CLIENT_MS = 150;
/** Bytes read before answering anyway: a line that never ends must not grow a buffer without bound. */
const MAX_REQUEST_BYTES = 16 * 1024;

export class NodePortStandIns {
  readonly #listeners = new Map<string, Listener>();
  readonly #onError: (message: string) => void;
  readonly #picker: EndpointPicker;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #proxierPort: number;
  #lastSynced = 0;

  /** `proxierHealthPort`: where kube-proxy's own health server answers (10256; tests pick a free one). */
  constructor(options: { onError?: (message: string) => void; clock?: Pick<Clock, 'now'>; proxierHealthPort?: number } = {}) {
    this.#onError = options.onError ?? (() => undefined);
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
    const served = [...wanted.values()].flatMap(({ routes }) => [routes.local, ...routes.ingress.values()]);
    this.#picker.retain(new Set(served.flatMap((route) => (route?.kind === 'service' ? [pickerKey(route)] : []))));
    await Promise.all([...this.#listeners.keys()].filter((k) => !wanted.has(k)).map((k) => this.#close(k)));
    await Promise.all([...wanted].map(([key, w]) => this.#ensure(key, w)));
  }

  /** Addresses currently served, as "ip:port". */
  listening(): string[] {
    return [...this.#listeners.keys()].sort();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#listeners.keys()].map((k) => this.#close(k)));
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
      serve(socket, (path) => proxierHealthReply(path, this.#clock.now(), this.#lastSynced));
      return;
    }
    if (route.kind === 'health') {
      serve(socket, () => healthResponse(route.service, route.node));
      return;
    }
    const endpoint = this.#picker.pick(pickerKey(route), endpointsOn(route.service, route.port, route.node), socket.remoteAddress ?? '', route.service.affinityTimeoutMs);
    // The last endpoint left between two apply() calls: what kube-proxy's REJECT rule does to a new flow.
    if (!endpoint) {
      socket.resetAndDestroy();
      return;
    }
    const peer = `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`;
    serve(socket, (path, proxy) => json(path?.startsWith('/unhealthy') ? 503 : 200, { ...served(route, endpoint), peer, proxy, path } satisfies StandInReply));
  }

  async #close(key: string): Promise<void> {
    const listener = this.#listeners.get(key);
    if (!listener) return;
    this.#listeners.delete(key);
    for (const s of listener.sockets) s.destroy();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
}

/** What one node listens on for these Services, port by port, and kube-proxy's health port. */
function routesOn(node: string, services: readonly ProxiedService[], proxierPort: number): PortRoute[] {
  const servedPorts = (service: ProxiedService): ProxiedPort[] => service.ports.filter((port) => endpointsOn(service, port, node).length > 0);
  return [
    { port: proxierPort, route: { kind: 'proxier', node }, from: null },
    ...services.flatMap((service): PortRoute[] => [
      ...servedPorts(service).filter((port) => port.nodePort > 0).map((port) => ({ port: port.nodePort, route: { kind: 'service', node, service, port, ingress: null } as const, from: null })),
      ...servedPorts(service).flatMap((port) =>
        service.ingressIps.map((ip) => ({ port: port.port, route: { kind: 'service', node, service, port, ingress: `${ip}:${port.port}` } as const, from: ip })),
      ),
      ...(service.healthCheckNodePort === null ? [] : [{ port: service.healthCheckNodePort, route: { kind: 'health', node, service } as const, from: null }]),
    ]),
  ];
}

/** Adds a route at `ip` (a node's address): one per ingress IP, and the first for any other client. */
function addRoute(wanted: Map<string, Wanted>, ip: string, { port, route, from }: PortRoute): void {
  const key = `${ip}:${port}`;
  const w = wanted.get(key) ?? { ip, port, routes: { ingress: new Map<string, Route>(), local: undefined } };
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

/** Reads a request (an optional PROXY header, then an HTTP request line or any line) and answers it. */
function serve(socket: Socket, respond: (path: string | null, proxy: Omit<ParsedProxyHeader, 'length'> | null) => StandInHttpReply): void {
  let buffered = Buffer.alloc(0);
  let proxy: ParsedProxyHeader | null = null;
  const reply = (path: string | null, http: boolean): void => finish(socket, respond(path, proxy && stripLength(proxy)), http);
  const timer = setTimeout(() => reply(null, false), SILENT_CLIENT_MS);
  socket.on('error', () => clearTimeout(timer));
  socket.on('data', (chunk: Buffer) => {
    if (socket.writableEnded) return; // answered: what a client still sends is dropped, not buffered
    buffered = Buffer.concat([buffered, chunk]);
    if (buffered.length > MAX_REQUEST_BYTES) {
      clearTimeout(timer);
      return reply(null, false);
    }
    if (!proxy && isProxyHeaderStart(buffered)) {
      proxy = safeParse(buffered);
      if (!proxy) return;
      buffered = buffered.subarray(proxy.length);
    }
    const text = buffered.toString('latin1');
    if (!text.includes('\r\n\r\n') && !text.includes('\n')) return;
    clearTimeout(timer);
    const path = /^[A-Z]+ (\S+) HTTP\/1\.[01]/.exec(text)?.[1] ?? null;
    reply(path, path !== null);
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

const STATUS_TEXT = { 200: 'OK', 404: 'Not Found', 503: 'Service Unavailable' } as const;

function finish(socket: Socket, reply: StandInHttpReply, http: boolean): void {
  if (socket.destroyed) return;
  const body = reply.payload;
  const head = `HTTP/1.1 ${reply.status} ${STATUS_TEXT[reply.status]}\r\ncontent-type: ${reply.contentType}\r\nx-content-type-options: nosniff\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  socket.end(http ? `${head}${body}` : body);
}
