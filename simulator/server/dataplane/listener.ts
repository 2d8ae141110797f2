// One VIP:port TCP server of a load balancer. On accept: firewall check (refused with a reset and
// counted as denied), target choice among eligible targets (none -> reset, counted), then a spliced
// connection to target:destinationPort (from the VIP's own address when `passthrough`: see
// DataPlaneLoadBalancer.forwarding). update() swaps targets, policy, filter, PROXY and forwarding
// settings in place: established connections are never touched by it; close() ends them all.
import net from 'node:net';
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
    this.#server = net.createServer({ allowHalfOpen: true, noDelay: true }, (s) => this.#onConnection(s));
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
    this.#config = config;
    this.#balancer.setPolicy(config.policy);
  }

  #track(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  #onConnection(client: net.Socket): void {
    this.#track(client);
    client.on('error', () => undefined);
    if (!this.#config.filter.allows(client.remoteAddress)) {
      this.#hooks.onDenied();
      abort(client);
      return;
    }
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
