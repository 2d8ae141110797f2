// One VIP:port UDP socket of a load balancer. UDP has no connection, so a flow is what a load balancer's
// connection tracking makes of it: the datagrams of one client address and port. A flow's first datagram
// passes the firewall (dropped and counted as denied otherwise), is given an eligible target (none: dropped,
// counted) and a socket of its own towards target:destinationPort (bound to the VIP when `passthrough`);
// what the target sends back on it goes to the client from the VIP. Later datagrams of the flow go to the
// same target while it stays eligible; a flow idle for FLOW_IDLE_MS is forgotten (its socket closed). No
// PROXY header is sent over UDP. Counters: a flow is a connection, bytes both ways.
import dgram from 'node:dgram';
import net from 'node:net';
import { Balancer, type Candidate } from './balancer.ts';
import { isEligible } from './health-state.ts';
import type { ListenerConfig, ListenerHooks } from './listener.ts';
import type { DataPlaneTarget } from './types.ts';

/** How long a flow lives without a datagram either way (conntrack's UDP stream timeout is of this order). */
export const FLOW_IDLE_MS = 30_000;

interface Flow {
  readonly target: DataPlaneTarget;
  readonly upstream: dgram.Socket;
  lastSeen: number;
}

const family = (ip: string): 'udp4' | 'udp6' => (net.isIPv6(ip) ? 'udp6' : 'udp4');

export class UdpVipListener {
  #config: ListenerConfig;
  readonly #hooks: ListenerHooks;
  readonly #balancer: Balancer;
  readonly #socket: dgram.Socket;
  readonly #flows = new Map<string, Flow>();
  readonly #sweep: NodeJS.Timeout;

  private constructor(config: ListenerConfig, hooks: ListenerHooks) {
    this.#config = config;
    this.#hooks = hooks;
    this.#balancer = new Balancer(config.policy);
    this.#socket = dgram.createSocket({ type: family(config.vip), reuseAddr: false });
    this.#socket.on('message', (msg, rinfo) => this.#onDatagram(msg, rinfo));
    this.#sweep = setInterval(() => this.#expire(Date.now()), Math.min(FLOW_IDLE_MS, 5000)).unref();
  }

  /** Binds vip:listenPort (UDP); rejects when the address cannot be bound. */
  static async open(config: ListenerConfig, hooks: ListenerHooks): Promise<UdpVipListener> {
    const l = new UdpVipListener(config, hooks);
    try {
      await l.#bind();
    } catch (err) {
      clearInterval(l.#sweep);
      l.#socket.close();
      throw err;
    }
    return l;
  }

  #bind(): Promise<void> {
    const socket = this.#socket;
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: this.#config.vip, port: this.#config.listener.listenPort, exclusive: true }, () => {
        socket.off('error', reject);
        socket.on('error', (err) => this.#hooks.logger?.warn({ err }, 'data plane UDP listener error'));
        resolve();
      });
    });
  }

  get config(): ListenerConfig {
    return this.#config;
  }

  /** Open flows (for tests and diagnostics). */
  get openFlows(): number {
    return this.#flows.size;
  }

  update(config: ListenerConfig): void {
    this.#config = config;
    this.#balancer.setPolicy(config.policy);
  }

  #onDatagram(msg: Buffer, from: dgram.RemoteInfo): void {
    const key = `${from.address}|${from.port}`;
    let flow = this.#flows.get(key);
    if (flow && !this.#usable(flow.target)) {
      this.#end(key, flow);
      flow = undefined;
    }
    if (!flow) {
      if (!this.#config.filter.allows(from.address)) return this.#hooks.onDenied();
      const target = this.#choose(from.address);
      if (!target) return this.#hooks.onNoTarget();
      flow = this.#open(key, target, from);
    }
    flow.lastSeen = Date.now();
    this.#hooks.counters(flow.target.id).bytesIn += msg.length;
    flow.upstream.send(msg, this.#config.listener.destinationPort, flow.target.ip);
  }

  /** A target still serves a flow while it is in the list and eligible. */
  #usable(target: DataPlaneTarget): boolean {
    return this.#config.targets.some((t) => t.id === target.id && t.ip === target.ip) && isEligible(this.#hooks.health(target.id));
  }

  #choose(sourceIp: string): DataPlaneTarget | undefined {
    const eligible = this.#config.targets.filter((t) => isEligible(this.#hooks.health(t.id)));
    const candidates: Candidate[] = eligible.map((t) => ({ id: t.id, activeConnections: this.#hooks.counters(t.id).activeConnections }));
    const id = this.#balancer.pick(candidates, sourceIp);
    return eligible.find((t) => t.id === id);
  }

  #open(key: string, target: DataPlaneTarget, client: dgram.RemoteInfo): Flow {
    const upstream = dgram.createSocket(family(target.ip));
    const counters = this.#hooks.counters(target.id);
    counters.connections += 1;
    counters.activeConnections += 1;
    const flow: Flow = { target, upstream, lastSeen: Date.now() };
    upstream.on('error', () => this.#end(key, flow));
    upstream.on('message', (reply, sender) => {
      if (sender.address !== target.ip) return; // only the target's answers go back
      flow.lastSeen = Date.now();
      counters.bytesOut += reply.length;
      this.#socket.send(reply, client.port, client.address);
    });
    // Passthrough: the target sees the VIP as the sender, where it reads which VIP the datagram was for.
    // Datagrams sent while the bind is under way are queued by node:dgram.
    upstream.bind({ port: 0, ...(this.#config.passthrough ? { address: this.#config.vip } : {}) });
    this.#flows.set(key, flow);
    return flow;
  }

  #end(key: string, flow: Flow): void {
    if (this.#flows.get(key) !== flow) return;
    this.#flows.delete(key);
    this.#hooks.counters(flow.target.id).activeConnections -= 1;
    try {
      flow.upstream.close();
    } catch {
      // already closed
    }
  }

  #expire(now: number): void {
    for (const [key, flow] of this.#flows) if (now - flow.lastSeen >= FLOW_IDLE_MS) this.#end(key, flow);
  }

  /** Stops receiving and forgets every flow. */
  close(): Promise<void> {
    clearInterval(this.#sweep);
    for (const [key, flow] of this.#flows) this.#end(key, flow);
    return new Promise((resolve) => this.#socket.close(() => resolve()));
  }
}
