// NodePort stand-ins for the `local` runtime. Virtual kubelets run no kube-proxy and no pods, so on every
// running node's addresses we listen on each NodePort of each NodePort/LoadBalancer Service and answer for
// "node X, service Y". Load-balancer traffic from simcloud's data plane then flows end to end on loopback,
// and what arrives is visible: an HTTP request gets a JSON reply naming the node and service, with the
// PROXY protocol header when the LB sent one; a client that sends nothing gets the same JSON as one line.
// Paths under /unhealthy answer 503, so a health check pointed there marks every node down: that is how
// a test (or a demo) shows the health-check path annotation is really used.
import { createServer, type Server, type Socket } from 'node:net';
import { isProxyHeaderStart, parseProxyHeader, type ParsedProxyHeader } from '../../simulator/api/proxy-protocol.ts';

export interface StandInNode {
  readonly name: string;
  readonly ips: readonly string[];
}

export interface StandInService {
  readonly namespace: string;
  readonly name: string;
  readonly nodePorts: readonly number[];
}

export interface StandInReply {
  readonly node: string;
  readonly service: string;
  readonly nodePort: number;
  /** The client as this node saw it (the LB, for proxied traffic). */
  readonly peer: string;
  /** The PROXY header the LB sent, if any: the original client. */
  readonly proxy: Omit<ParsedProxyHeader, 'length'> | null;
  readonly path: string | null;
}

interface Listener {
  readonly server: Server;
  readonly sockets: Set<Socket>;
  node: string;
  service: string;
}

/** How long a connection may stay silent before we speak first (plain TCP clients wait for us). */
const SILENT_CLIENT_MS = 150;
/** Bytes read before answering anyway: a line that never ends must not grow a buffer without bound. */
const MAX_REQUEST_BYTES = 16 * 1024;

export class NodePortStandIns {
  readonly #listeners = new Map<string, Listener>();
  readonly #onError: (message: string) => void;

  constructor(options: { onError?: (message: string) => void } = {}) {
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Declarative: listens on exactly ip:nodePort for every running node address and Service NodePort. */
  async apply(nodes: readonly StandInNode[], services: readonly StandInService[]): Promise<void> {
    const wanted = new Map<string, { node: string; service: string; ip: string; port: number }>(
      nodes.flatMap((node) =>
        services.flatMap((svc) =>
          svc.nodePorts.flatMap((port) => node.ips.map((ip): [string, { node: string; service: string; ip: string; port: number }] => [`${ip}:${port}`, { node: node.name, service: `${svc.namespace}/${svc.name}`, ip, port }])),
        ),
      ),
    );
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

  async #ensure(key: string, w: { node: string; service: string; ip: string; port: number }): Promise<void> {
    const existing = this.#listeners.get(key);
    if (existing) {
      existing.node = w.node;
      existing.service = w.service;
      return;
    }
    const sockets = new Set<Socket>();
    const listener: Listener = { server: createServer(), sockets, node: w.node, service: w.service };
    listener.server.on('connection', (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      answer(socket, { node: listener.node, service: listener.service, nodePort: w.port });
    });
    this.#listeners.set(key, listener);
    try {
      await new Promise<void>((resolve, reject) => {
        listener.server.once('error', reject);
        listener.server.listen(w.port, w.ip, () => resolve());
      });
    } catch (err) {
      this.#listeners.delete(key);
      this.#onError(`cannot listen on ${key} for ${w.service} on ${w.node}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async #close(key: string): Promise<void> {
    const listener = this.#listeners.get(key);
    if (!listener) return;
    this.#listeners.delete(key);
    for (const s of listener.sockets) s.destroy();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
}

function answer(socket: Socket, who: { node: string; service: string; nodePort: number }): void {
  let buffered = Buffer.alloc(0);
  let proxy: ParsedProxyHeader | null = null;
  const peer = `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`;
  const reply = (path: string | null): StandInReply => ({ ...who, peer, proxy: proxy && stripLength(proxy), path });
  const timer = setTimeout(() => finish(socket, reply(null), false), SILENT_CLIENT_MS);
  socket.on('error', () => clearTimeout(timer));
  socket.on('data', (chunk: Buffer) => {
    if (socket.writableEnded) return; // answered: what a client still sends is dropped, not buffered
    buffered = Buffer.concat([buffered, chunk]);
    if (buffered.length > MAX_REQUEST_BYTES) {
      clearTimeout(timer);
      return finish(socket, reply(null), false);
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
    finish(socket, reply(path), path !== null);
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

function finish(socket: Socket, reply: StandInReply, http: boolean): void {
  if (socket.destroyed) return;
  const body = `${JSON.stringify(reply)}\n`;
  const status = reply.path?.startsWith('/unhealthy') ? '503 Service Unavailable' : '200 OK';
  socket.end(http ? `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}` : body);
}
