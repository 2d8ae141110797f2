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
// endpoint count, 503 when it has none.
import { createServer, type Server, type Socket } from 'node:net';
import { isProxyHeaderStart, parseProxyHeader, type ParsedProxyHeader } from '../../simulator/api/proxy-protocol.ts';
import { realClock, type Clock } from '../../src/kube/clock.ts';
import { EndpointPicker } from './endpoint-picker.ts';
import { endpointsOn, localEndpointCount, type ProxiedPort, type ProxiedService, type ProxyEndpoint } from './proxy-table.ts';

export interface StandInNode {
  readonly name: string;
  readonly ips: readonly string[];
}

export interface StandInReply {
  /** The node whose address took the connection. */
  readonly node: string;
  readonly service: string;
  readonly nodePort: number;
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

type Route =
  | { readonly kind: 'nodePort'; readonly node: string; readonly service: ProxiedService; readonly port: ProxiedPort }
  | { readonly kind: 'health'; readonly node: string; readonly service: ProxiedService };

interface Listener {
  readonly server: Server;
  readonly sockets: Set<Socket>;
  route: Route;
}

interface Response {
  readonly status: 200 | 503;
  readonly body: unknown;
}

/** How long a connection may stay silent before we speak first (plain TCP clients wait for us). */
const SILENT_CLIENT_MS = 150;
/** Bytes read before answering anyway: a line that never ends must not grow a buffer without bound. */
const MAX_REQUEST_BYTES = 16 * 1024;

export class NodePortStandIns {
  readonly #listeners = new Map<string, Listener>();
  readonly #onError: (message: string) => void;
  readonly #picker: EndpointPicker;

  constructor(options: { onError?: (message: string) => void; clock?: Pick<Clock, 'now'> } = {}) {
    this.#onError = options.onError ?? (() => undefined);
    this.#picker = new EndpointPicker(options.clock ?? realClock);
  }

  /**
   * Declarative: listens on exactly the node addresses and ports kube-proxy would accept on: each
   * NodePort with a usable endpoint from that node, and each Local Service's health check node port.
   * Calls must not overlap (the caller serialises them).
   */
  async apply(nodes: readonly StandInNode[], services: readonly ProxiedService[]): Promise<void> {
    const wanted = new Map<string, { ip: string; port: number; route: Route }>();
    for (const node of nodes) {
      for (const { port, route } of routesOn(node.name, services)) for (const ip of node.ips) wanted.set(`${ip}:${port}`, { ip, port, route });
    }
    this.#picker.retain(new Set([...wanted.values()].flatMap(({ route }) => (route.kind === 'nodePort' ? [pickerKey(route)] : []))));
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

  async #ensure(key: string, w: { ip: string; port: number; route: Route }): Promise<void> {
    const existing = this.#listeners.get(key);
    if (existing) {
      existing.route = w.route;
      return;
    }
    const sockets = new Set<Socket>();
    const listener: Listener = { server: createServer(), sockets, route: w.route };
    listener.server.on('connection', (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      this.#accept(socket, listener.route);
    });
    this.#listeners.set(key, listener);
    try {
      await new Promise<void>((resolve, reject) => {
        listener.server.once('error', reject);
        listener.server.listen(w.port, w.ip, () => resolve());
      });
    } catch (err) {
      this.#listeners.delete(key);
      this.#onError(`cannot listen on ${key} for ${w.route.service.namespace}/${w.route.service.name} on ${w.route.node}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  #accept(socket: Socket, route: Route): void {
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
    serve(socket, (path, proxy) => ({
      status: path?.startsWith('/unhealthy') ? 503 : 200,
      body: { ...served(route, endpoint), peer, proxy, path } satisfies StandInReply,
    }));
  }

  async #close(key: string): Promise<void> {
    const listener = this.#listeners.get(key);
    if (!listener) return;
    this.#listeners.delete(key);
    for (const s of listener.sockets) s.destroy();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
}

/** What one node listens on for these Services, port by port. */
function routesOn(node: string, services: readonly ProxiedService[]): { port: number; route: Route }[] {
  return services.flatMap((service) => [
    ...service.ports.filter((port) => endpointsOn(service, port, node).length > 0).map((port) => ({ port: port.nodePort, route: { kind: 'nodePort', node, service, port } as const })),
    ...(service.healthCheckNodePort === null ? [] : [{ port: service.healthCheckNodePort, route: { kind: 'health', node, service } as const }]),
  ]);
}

/** Round robin and affinity are per node and Service port: each node's kube-proxy keeps its own. */
function pickerKey(route: { node: string; service: ProxiedService; port: ProxiedPort }): string {
  return `${route.node} ${route.service.namespace}/${route.service.name}:${route.port.name}`;
}

function served(route: { node: string; service: ProxiedService; port: ProxiedPort }, endpoint: ProxyEndpoint): Pick<StandInReply, 'node' | 'service' | 'nodePort' | 'pod' | 'endpoint'> {
  return {
    node: route.node,
    service: `${route.service.namespace}/${route.service.name}`,
    nodePort: route.port.nodePort,
    pod: endpoint.pod,
    endpoint: { address: endpoint.address, port: endpoint.port, node: endpoint.node },
  };
}

function healthResponse(service: ProxiedService, node: string): Response {
  const localEndpoints = localEndpointCount(service, node);
  const body: HealthCheckReply = { service: { namespace: service.namespace, name: service.name }, localEndpoints, serviceProxyHealthy: true };
  return { status: localEndpoints > 0 ? 200 : 503, body };
}

/** Reads a request (an optional PROXY header, then an HTTP request line or any line) and answers it. */
function serve(socket: Socket, respond: (path: string | null, proxy: Omit<ParsedProxyHeader, 'length'> | null) => Response): void {
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

const STATUS_TEXT = { 200: 'OK', 503: 'Service Unavailable' } as const;

function finish(socket: Socket, response: Response, http: boolean): void {
  if (socket.destroyed) return;
  const body = `${JSON.stringify(response.body)}\n`;
  const head = `HTTP/1.1 ${response.status} ${STATUS_TEXT[response.status]}\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  socket.end(http ? `${head}${body}` : body);
}
