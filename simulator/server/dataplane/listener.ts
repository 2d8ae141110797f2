// One VIP:port TCP server of a load balancer. On accept: firewall check (refused with a reset and
// counted as denied), target choice among eligible targets (none -> reset, counted), then a spliced
// connection to target:destinationPort (from the VIP's own address when `passthrough`: see
// DataPlaneLoadBalancer.forwarding). An https listener with a certificate terminates TLS first (the
// target gets the plaintext); an http listener with `redirectHttpsPort` answers every request itself with
// a 301 to https. update() swaps targets, policy, filter, PROXY, forwarding and the certificate in place:
// established connections are never touched by it; close() ends them all.
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from 'pino';
import { abort, splice } from './connection.ts';
import { Balancer, type BalancerPolicy, type Candidate } from './balancer.ts';
import type { SourceFilter } from './firewall.ts';
import { isEligible, type HealthStatus } from './health-state.ts';
import { encodeProxyHeader } from './proxy-protocol.ts';
import type { DataPlaneListener, DataPlaneTarget, TargetCounters } from './types.ts';

export const CONNECT_TIMEOUT_MS = 10_000;

export interface ListenerConfig {
  vip: string;
  listener: DataPlaneListener;
  targets: readonly DataPlaneTarget[];
  policy: BalancerPolicy;
  filter: SourceFilter;
  /** Connect to targets from the VIP (a passthrough load balancer). */
  passthrough: boolean;
}

export interface ListenerHooks {
  /** The LB-wide counters of a target (created on demand). */
  counters: (targetId: string) => TargetCounters;
  health: (targetId: string) => HealthStatus;
  onDenied: () => void;
  onNoTarget: () => void;
  logger?: Logger | undefined;
}

export class VipListener {
  #config: ListenerConfig;
  #hooks: ListenerHooks;
  #balancer: Balancer;
  #server: net.Server;
  #sockets = new Set<net.Socket>();

  private constructor(config: ListenerConfig, hooks: ListenerHooks) {
    this.#config = config;
    this.#hooks = hooks;
    this.#balancer = new Balancer(config.policy);
    const cert = config.listener.tls;
    if (cert) {
      const server = tls.createServer({ cert: cert.cert, key: cert.key, allowHalfOpen: true, noDelay: true }, (s) => this.#onSecure(s));
      // The firewall acts on the TCP connection, before any handshake.
      server.on('connection', (raw: net.Socket) => this.#admit(raw));
      server.on('tlsClientError', () => undefined);
      this.#server = server;
    } else {
      this.#server = net.createServer({ allowHalfOpen: true, noDelay: true }, (s) => this.#onConnection(s));
    }
  }

  /** Binds vip:listenPort; rejects when the address cannot be bound. */
  static async open(config: ListenerConfig, hooks: ListenerHooks): Promise<VipListener> {
    const l = new VipListener(config, hooks);
    await l.#listen();
    return l;
  }

  #listen(): Promise<void> {
    const server = this.#server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.#config.vip, port: this.#config.listener.listenPort, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', (err) => this.#hooks.logger?.warn({ err }, 'data plane listener error'));
        resolve();
      });
    });
  }

  get config(): ListenerConfig {
    return this.#config;
  }

  /** Open client and target sockets (for tests and diagnostics). */
  get openSockets(): number {
    return this.#sockets.size;
  }

  update(config: ListenerConfig): void {
    const cert = config.listener.tls;
    if (cert && this.#server instanceof tls.Server) this.#server.setSecureContext({ cert: cert.cert, key: cert.key });
    this.#config = config;
    this.#balancer.setPolicy(config.policy);
  }

  #track(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  /** Tracks a new connection and applies the firewall; false when it was refused. */
  #admit(client: net.Socket): boolean {
    this.#track(client);
    client.on('error', () => undefined);
    if (this.#config.filter.allows(client.remoteAddress)) return true;
    this.#hooks.onDenied();
    abort(client);
    return false;
  }

  #onConnection(client: net.Socket): void {
    if (!this.#admit(client)) return;
    const redirect = this.#config.listener.redirectHttpsPort;
    if (redirect != null) return redirectToHttps(client, redirect);
    this.#balance(client);
  }

  /** A TLS connection whose handshake is done: balanced like a plain one, the plaintext forwarded. */
  #onSecure(client: tls.TLSSocket): void {
    this.#track(client);
    client.on('error', () => undefined);
    this.#balance(client);
  }

  #balance(client: net.Socket): void {
    const target = this.#choose(client.remoteAddress ?? '');
    if (target === undefined) {
      this.#hooks.onNoTarget();
      abort(client);
      return;
    }
    this.#forward(client, target);
  }

  #choose(sourceIp: string): DataPlaneTarget | undefined {
    const { targets } = this.#config;
    const eligible = targets.filter((t) => isEligible(this.#hooks.health(t.id)));
    const candidates: Candidate[] = eligible.map((t) => ({ id: t.id, activeConnections: this.#hooks.counters(t.id).activeConnections }));
    const id = this.#balancer.pick(candidates, sourceIp);
    return eligible.find((t) => t.id === id);
  }

  #forward(client: net.Socket, target: DataPlaneTarget): void {
    const { listener } = this.#config;
    const from = this.#config.passthrough ? { localAddress: this.#config.vip } : {};
    const upstream = net.connect({ host: target.ip, port: listener.destinationPort, allowHalfOpen: true, ...from });
    this.#track(upstream);
    const header = encodeProxyHeader(
      listener.proxyProtocol,
      { address: client.remoteAddress ?? '', port: client.remotePort ?? 0 },
      { address: client.localAddress ?? this.#config.vip, port: client.localPort ?? listener.listenPort },
    );
    splice({ client, upstream, header, counters: this.#hooks.counters(target.id), connectTimeoutMs: CONNECT_TIMEOUT_MS });
  }

  /** Stops accepting and resets every open connection. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      for (const s of this.#sockets) abort(s);
    });
  }
}

/** Bytes of a request head read before answering a redirect anyway. */
const MAX_HEAD_BYTES = 16 * 1024;

/** Answers an HTTP request with a 301 to the same host and path over https on `port`. */
function redirectToHttps(client: net.Socket, port: number): void {
  let head = '';
  client.setEncoding('latin1');
  client.on('data', (chunk: string) => {
    if (client.writableEnded) return;
    head += chunk;
    if (!head.includes('\r\n\r\n') && head.length < MAX_HEAD_BYTES) return;
    const target = /^[A-Z]+ (\S+) HTTP\/1\.[01]\r\n/.exec(head)?.[1] ?? '/';
    const host = (/\r\nhost:[ \t]*([^\r\n]*)/i.exec(head)?.[1] ?? '').trim().replace(/:\d+$/, '');
    const location = `https://${host}${port === 443 ? '' : `:${port}`}${target.startsWith('/') ? target : '/'}`;
    client.end(`HTTP/1.1 301 Moved Permanently\r\nlocation: ${location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
  });
}
