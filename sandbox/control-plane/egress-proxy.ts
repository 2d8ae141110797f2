// kube-apiserver's egress proxy: an HTTP CONNECT proxy on a Unix domain socket (0600), which the apiserver's
// egress selector (flags.ts) sends its `cluster` and `controlplane` dials through: kubelets (logs, exec,
// port-forward, node proxy), pods/proxy and services/proxy, admission webhooks, aggregated API servers, webhook
// authentication and authorization. Where each target goes is egress-target.ts's decision: a Node's address
// to its kubelet API on loopback, loopback through, everything else refused with a status line that says why,
// before any socket to it is opened. Every decision is logged (pino) and counted.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { chmodSync, rmSync } from 'node:fs';
import type { Logger } from '../../src/kube/logger.ts';
import { decideEgress, isLoopbackTarget, parseTarget, type EgressDecision, type KubeletLocation, type NodeView } from './egress-target.ts';

/** A node's kubelet API as the proxy reaches it. */
export interface KubeletEndpoint extends KubeletLocation {
  /** Makes its serving certificate cover these names too (the address the apiserver dialled: it verifies it). */
  cover(names: readonly string[]): Promise<void>;
}

/** The kubelet APIs serving in this process, by node name: the kubelets add themselves while they serve. */
export class KubeletDirectory {
  readonly #byNode = new Map<string, KubeletEndpoint>();

  /** Lists the endpoint; answers the function that takes it off again. */
  add(nodeName: string, endpoint: KubeletEndpoint): () => void {
    this.#byNode.set(nodeName, endpoint);
    return () => {
      if (this.#byNode.get(nodeName) === endpoint) this.#byNode.delete(nodeName);
    };
  }

  get(nodeName: string): KubeletEndpoint | undefined {
    return this.#byNode.get(nodeName);
  }

  /** Whether a kubelet listed here listens on this port (a loopback target on it may be a Node's address). */
  servesPort(port: number): boolean {
    for (const endpoint of this.#byNode.values()) if (endpoint.port === port) return true;
    return false;
  }
}

export interface EgressProxyOptions {
  readonly socketPath: string;
  /** The cluster's Nodes, read for each target that is not loopback or has a kubelet's port (a Node's addresses change whenever a CCM says). */
  readonly nodes: () => Promise<NodeView[]>;
  readonly logger: Logger;
  /** Called once close() has removed the socket (the owner removes a directory made for it). */
  readonly onClosed?: () => void;
  /** How long a dial of a loopback target may take (default 5 s). */
  readonly dialTimeoutMs?: number;
}

export type EgressCounts = Record<EgressDecision['kind'], number>;

/** What kube-apiserver sends as the CONNECT's Host (its egress dialer writes it as a constant). */
const APISERVER_HOST = '127.0.0.1';

export class EgressProxy {
  readonly kubelets = new KubeletDirectory();
  readonly #opts: EgressProxyOptions;
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();
  readonly #counts: EgressCounts = { passthrough: 0, mapped: 0, refused: 0 };

  private constructor(options: EgressProxyOptions) {
    this.#opts = options;
    this.#server = createServer((_req, res) => {
      res.writeHead(405, { Allow: 'CONNECT', 'Content-Type': 'text/plain' }).end('the egress proxy takes CONNECT only\n');
    });
    this.#server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#track(socket);
      void this.#connect(req, socket, head);
    });
  }

  /** Listens on the socket (a stale file from an earlier run is replaced), readable and writable by this user only. */
  static async listen(options: EgressProxyOptions): Promise<EgressProxy> {
    const proxy = new EgressProxy(options);
    rmSync(options.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(options.socketPath, () => {
        proxy.#server.off('error', reject);
        resolve();
      });
    });
    chmodSync(options.socketPath, 0o600);
    return proxy;
  }

  get socketPath(): string {
    return this.#opts.socketPath;
  }

  /** Decisions so far, by kind. */
  get counts(): Readonly<EgressCounts> {
    return { ...this.#counts };
  }

  /** Stops listening and cuts every tunnel. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
    rmSync(this.#opts.socketPath, { force: true });
    this.#opts.onClosed?.();
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.#sockets.delete(socket));
  }

  async #connect(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const raw = req.url ?? '';
    const decision = await this.#decide(req, raw);
    this.#counts[decision.kind] += 1;
    if (decision.kind === 'refused') {
      this.#opts.logger.warn({ target: raw, status: decision.status, reason: decision.reason }, 'egress refused');
      answer(socket, decision.status, decision.reason);
      return;
    }
    const dial = `${decision.host}:${decision.port}`;
    if (decision.kind === 'mapped') {
      try {
        await this.kubelets.get(decision.node)?.cover(decision.names);
      } catch (err) {
        this.#refuseLate(socket, raw, `the kubelet certificate of node ${decision.node} could not be issued: ${messageOf(err)}`);
        return;
      }
    }
    this.#opts.logger.info({ target: raw, decision: decision.kind, dial, ...(decision.kind === 'mapped' ? { node: decision.node } : {}) }, 'egress dial');
    this.#tunnel(socket, head, decision, raw);
  }

  async #decide(req: IncomingMessage, raw: string): Promise<EgressDecision> {
    if (req.headers.host !== APISERVER_HOST) return { kind: 'refused', status: 400, reason: `Host ${req.headers.host ?? '(none)'} is not kube-apiserver's` };
    const target = parseTarget(raw);
    if (!target) return { kind: 'refused', status: 400, reason: `malformed CONNECT target ${JSON.stringify(raw)} (host:port expected)` };
    let nodes: NodeView[] = [];
    if (!isLoopbackTarget(target) || this.kubelets.servesPort(target.port)) {
      try {
        nodes = await this.#opts.nodes();
      } catch (err) {
        return { kind: 'refused', status: 502, reason: `cannot read the Nodes to map ${raw}: ${messageOf(err)}` };
      }
    }
    return decideEgress(target, nodes, (node) => this.kubelets.get(node));
  }

  /** The target was let through but cannot be reached: 502, counted as a refusal. */
  #refuseLate(socket: Duplex, raw: string, reason: string): void {
    this.#counts.refused += 1;
    this.#opts.logger.warn({ target: raw, status: 502, reason }, 'egress refused');
    answer(socket, 502, reason);
  }

  #tunnel(socket: Duplex, head: Buffer, to: { host: string; port: number }, raw: string): void {
    const upstream: Socket = connect({ host: to.host, port: to.port, timeout: this.#opts.dialTimeoutMs ?? 5000 });
    this.#track(upstream);
    let connected = false;
    upstream.once('timeout', () => upstream.destroy(new Error('timed out')));
    upstream.once('error', (err) => {
      if (connected) socket.destroy();
      else this.#refuseLate(socket, raw, `dial ${to.host}:${to.port} failed: ${messageOf(err)}`);
    });
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
      upstream.once('close', () => socket.destroy());
      socket.once('close', () => upstream.destroy());
    });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
}

/** A CONNECT answer whose reason phrase carries the reason: kube-apiserver's error quotes the status line. */
function answer(socket: Duplex, status: number, reason: string): void {
  const phrase = reason.replace(/[\r\n]+/g, ' ');
  socket.end(
    `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(phrase) + 1}\r\nConnection: close\r\n\r\n${phrase}\n`,
  );
}
