// Load-balancer data plane of simcloud: real TCP listeners on each LB's VIP that forward to healthy
// targets, with active health checks, PROXY protocol, a source-CIDR firewall and per-target counters.
//
// apply() is declarative and idempotent: it opens the listeners that should exist, closes those that
// should not (resetting their connections) and updates the rest in place (targets, algorithm,
// affinity, health checks, PROXY setting, firewall) without touching established connections.
// Calls are serialised. Bind failures and invalid input are reported in ApplyResult.errors, never
// thrown; a listener that failed to bind is retried by the next apply().
//
// Scope: `http` and `https` listeners are forwarded at TCP level like `tcp`, an https one with a
// certificate after terminating TLS, an http one with a redirect port answering a 301 itself; `udp`
// listeners forward datagrams per client flow (udp-listener.ts). Other L7 features (X-Forwarded-For,
// path routing, sticky cookies) are out of scope. Health checks are sent
// without a PROXY header. Connections to a target removed from an LB are left to finish.
import type { Logger } from 'pino';
import { compileSourceFilter } from './firewall.ts';
import { HealthMonitor, type Scheduler } from './health-checker.ts';
import { VipListener, type ListenerConfig, type ListenerHooks } from './listener.ts';
import { UdpVipListener } from './udp-listener.ts';
import { validateLoadBalancer } from './validate.ts';
import type { ApplyResult, DataPlaneLoadBalancer, DataPlaneListener, DataPlaneOptions, TargetCounters, TargetHealthChange } from './types.ts';

type ApplyError = ApplyResult['errors'][number];

export interface LoadBalancerStats {
  /** Connections refused by the source-CIDR firewall. */
  denied: number;
  /** Connections reset because no target was eligible. */
  noTarget: number;
}

/** Options beyond the shared contract. */
export interface DataPlaneExtraOptions {
  /** Refuse VIPs and targets outside 127.0.0.0/8 and ::1 (reported in errors). Default true. */
  loopbackOnly?: boolean;
  /** Timers of the health checks (tests). */
  scheduler?: Scheduler;
}

interface ListenerRuntime {
  server: VipListener | UdpVipListener;
  monitor: HealthMonitor;
}

interface LbRuntime {
  spec: DataPlaneLoadBalancer;
  counters: Map<string, TargetCounters>;
  listeners: Map<number, ListenerRuntime>;
  stats: LoadBalancerStats;
}

interface Planned {
  lb: DataPlaneLoadBalancer;
  listener: DataPlaneListener;
  config: ListenerConfig;
}

const zero = (): TargetCounters => ({ connections: 0, activeConnections: 0, bytesIn: 0, bytesOut: 0 });

export class DataPlane {
  #opts: DataPlaneOptions;
  #logger: Logger | undefined;
  #lbs = new Map<string, LbRuntime>();
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #scheduler: Scheduler | undefined;
  #loopbackOnly: boolean;

  constructor(opts: DataPlaneOptions & DataPlaneExtraOptions) {
    this.#opts = opts;
    this.#scheduler = opts.scheduler;
    this.#loopbackOnly = opts.loopbackOnly ?? true;
    this.#logger = opts.logger?.child({ component: 'dataplane' });
  }

  apply(lbs: DataPlaneLoadBalancer[]): Promise<ApplyResult> {
    const run = this.#queue.then(() => this.#apply(lbs));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #apply(lbs: DataPlaneLoadBalancer[]): Promise<ApplyResult> {
    const errors: ApplyError[] = [];
    if (this.#closed) {
      for (const lb of lbs) for (const l of lb.listeners) errors.push({ lbId: lb.id, listenPort: l.listenPort, message: 'data plane is closed' });
      return { errors };
    }
    const wanted = new Map(lbs.map((lb) => [lb.id, lb]));
    const planned = [...wanted.values()].flatMap((lb) => this.#plan(lb, errors));
    await this.#closeUnwanted(wanted, new Set(planned.map((p) => `${p.lb.id}\u0000${p.listener.listenPort}`)), planned);
    for (const lb of wanted.values()) this.#syncLb(lb);
    await Promise.all(planned.map((p) => this.#ensureListener(p, errors)));
    return { errors };
  }

  /** Validated listener configs of one LB; problems go to `errors`. */
  #plan(lb: DataPlaneLoadBalancer, errors: ApplyError[]): Planned[] {
    const { listeners, targets, issues } = validateLoadBalancer(lb, this.#loopbackOnly);
    for (const i of issues) errors.push({ lbId: lb.id, ...i });
    const { filter, invalid } = compileSourceFilter(lb.allowedSourceCidrs);
    const policy = { algorithm: lb.algorithm, sessionAffinity: lb.sessionAffinity };
    return listeners.map((listener) => {
      if (invalid.length > 0) errors.push({ lbId: lb.id, listenPort: listener.listenPort, message: `invalid source CIDRs ignored: ${invalid.join(', ')}` });
      return { lb, listener, config: { vip: lb.vip, listener, targets, policy, filter, passthrough: lb.forwarding === 'passthrough' } };
    });
  }

  /** Closes listeners of removed LBs, removed listeners and listeners whose VIP changed. */
  async #closeUnwanted(wanted: Map<string, DataPlaneLoadBalancer>, keep: Set<string>, planned: Planned[]): Promise<void> {
    // A listener is rebound when its VIP changes, or its transport (TCP, TLS or UDP).
    const bindingOf = (vip: string, l: DataPlaneListener): string => `${vip} ${l.protocol === 'udp' ? 'udp' : l.tls ? 'tls' : 'tcp'}`;
    const wantedBinding = new Map(planned.map((p) => [`${p.lb.id}\u0000${p.listener.listenPort}`, bindingOf(p.config.vip, p.listener)]));
    const closing: Promise<void>[] = [];
    for (const [id, rt] of this.#lbs) {
      for (const [port, l] of rt.listeners) {
        const key = `${id}\u0000${port}`;
        if (keep.has(key) && wantedBinding.get(key) === bindingOf(l.server.config.vip, l.server.config.listener)) continue;
        rt.listeners.delete(port);
        closing.push(this.#stopListener(l));
      }
      if (!wanted.has(id)) this.#lbs.delete(id);
    }
    await Promise.all(closing);
  }

  async #stopListener(l: ListenerRuntime): Promise<void> {
    l.monitor.stop();
    await l.server.close();
  }

  #syncLb(lb: DataPlaneLoadBalancer): void {
    let rt = this.#lbs.get(lb.id);
    if (rt === undefined) {
      rt = { spec: lb, counters: new Map(), listeners: new Map(), stats: { denied: 0, noTarget: 0 } };
      this.#lbs.set(lb.id, rt);
    }
    rt.spec = lb;
    const ids = new Set(lb.targets.map((t) => t.id));
    for (const id of rt.counters.keys()) if (!ids.has(id)) rt.counters.delete(id);
    for (const id of ids) if (!rt.counters.has(id)) rt.counters.set(id, zero());
  }

  async #ensureListener(p: Planned, errors: ApplyError[]): Promise<void> {
    const rt = this.#lbs.get(p.lb.id);
    if (rt === undefined) return;
    const { listener, config } = p;
    const existing = rt.listeners.get(listener.listenPort);
    if (existing !== undefined) {
      existing.server.update(config);
      existing.monitor.sync(config.targets, listener.healthCheck, listener.destinationPort);
      return;
    }
    const monitor = this.#newMonitor(p.lb.id, listener.listenPort);
    try {
      const hooks = this.#hooks(rt, monitor);
      const server = listener.protocol === 'udp' ? await UdpVipListener.open(config, hooks) : await VipListener.open(config, hooks);
      rt.listeners.set(listener.listenPort, { server, monitor });
      monitor.sync(config.targets, listener.healthCheck, listener.destinationPort);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#logger?.warn({ lbId: p.lb.id, listenPort: listener.listenPort, err }, 'data plane listener failed to bind');
      errors.push({ lbId: p.lb.id, listenPort: listener.listenPort, message });
    }
  }

  #newMonitor(lbId: string, listenPort: number): HealthMonitor {
    const onChange = (targetId: string, status: TargetHealthChange['status']): void => {
      this.#logger?.debug({ lbId, listenPort, targetId, status }, 'target health changed');
      try {
        this.#opts.onHealthChange({ lbId, listenPort, targetId, status });
      } catch (err) {
        this.#logger?.error({ err }, 'onHealthChange threw');
      }
    };
    return new HealthMonitor({ onChange, scheduler: this.#scheduler });
  }

  #hooks(rt: LbRuntime, monitor: HealthMonitor): ListenerHooks {
    return {
      counters: (id) => rt.counters.get(id) ?? zero(),
      health: (id) => monitor.status(id),
      onDenied: () => {
        rt.stats.denied += 1;
      },
      onNoTarget: () => {
        rt.stats.noTarget += 1;
      },
      logger: this.#logger,
    };
  }

  /** Snapshot of the per-target counters of one LB (summed over its listeners). */
  counters(lbId: string): Map<string, TargetCounters> {
    const rt = this.#lbs.get(lbId);
    return new Map([...(rt?.counters ?? [])].map(([id, c]) => [id, { ...c }]));
  }

  /** Current health of every (listener, target) of one LB, in listener then target order. */
  health(lbId: string): TargetHealthChange[] {
    const rt = this.#lbs.get(lbId);
    if (rt === undefined) return [];
    const ports = [...new Set(rt.spec.listeners.map((l) => l.listenPort))];
    return ports.flatMap((listenPort) => {
      const statuses = rt.listeners.get(listenPort)?.monitor.statuses() ?? [];
      return statuses.map(([targetId, status]) => ({ lbId, listenPort, targetId, status }));
    });
  }

  stats(lbId: string): LoadBalancerStats {
    const rt = this.#lbs.get(lbId);
    return { denied: rt?.stats.denied ?? 0, noTarget: rt?.stats.noTarget ?? 0 };
  }

  /** Listen ports currently bound for an LB. */
  listening(lbId: string): number[] {
    return [...(this.#lbs.get(lbId)?.listeners.keys() ?? [])];
  }

  /** Closes every listener, health check timer and connection. Later apply() calls do nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    const all = [...this.#lbs.values()].flatMap((rt) => [...rt.listeners.values()]);
    this.#lbs.clear();
    await Promise.all(all.map((l) => this.#stopListener(l)));
  }
}
