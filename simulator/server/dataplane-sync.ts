/**
 * Keeps the data plane in step with the store: after any change that can affect a load balancer it
 * computes the desired view (active LBs, resolved target addresses, listeners, allowed sources) and
 * calls `DataPlane.apply` (coalesced: one apply per burst of commits). Health changes from the data
 * plane are kept here and shown as per-target health in the API.
 */
import type { Logger } from 'pino';
import { own } from '../../lib/keyed.ts';
import type { LoadBalancerService } from '../api/schema/load-balancers.ts';
import type { DataplanePort } from './context.ts';
import { DataPlane } from './dataplane/data-plane.ts';
import type { DataPlaneListener, DataPlaneLoadBalancer, TargetCounters, TargetHealthChange } from './dataplane/types.ts';
import type { EventBus } from './events.ts';
import { isLocalAddress } from './ipam.ts';
import type { LoadBalancerRec } from './store/state.ts';
import type { Store } from './store/store.ts';
import type { TargetView } from './targets.ts';

const RELEVANT = new Set(['servers', 'load_balancers', 'server_groups', 'firewall_policies', 'networks', 'ip_blocks', 'certificates']);
const SERVING = new Set(['active', 'updating']);

/** A service's listener; `certificate` resolves a service's certificate_id to the stored chain and key. */
function toListener(s: LoadBalancerService, certificate: (id: string) => { cert: string; key: string } | null): DataPlaneListener {
  return {
    protocol: s.protocol,
    listenPort: s.listen_port,
    destinationPort: s.destination_port,
    proxyProtocol: s.proxy_protocol,
    healthCheck: {
      protocol: s.health_check.protocol,
      port: s.health_check.port,
      path: s.health_check.path,
      intervalMs: Math.round(s.health_check.interval_seconds * 1000),
      timeoutMs: Math.round(s.health_check.timeout_seconds * 1000),
      retries: s.health_check.retries,
    },
    tls: s.tls ? { cert: s.tls.certificate, key: s.tls.private_key } : s.certificate_id != null ? certificate(s.certificate_id) : null,
    redirectHttpsPort: s.redirect_https_port ?? null,
  };
}

export interface DataplaneSyncOptions {
  store: Store;
  targets: TargetView;
  events: EventBus;
  logger: Logger;
  /** Tests may pass their own DataPlane-like object. */
  dataplane?: DataPlane;
}

export class DataplaneSync implements DataplanePort {
  readonly #opts: DataplaneSyncOptions;
  readonly #dp: DataPlane;
  readonly #health = new Map<string, 'healthy' | 'unhealthy' | 'unknown'>();
  #scheduled = false;
  #closed = false;
  #unsubscribe: () => void;
  #last: Promise<unknown> = Promise.resolve();

  constructor(opts: DataplaneSyncOptions) {
    this.#opts = opts;
    this.#dp = opts.dataplane ?? new DataPlane({ onHealthChange: (c) => this.#onHealth(c), logger: opts.logger });
    this.#unsubscribe = opts.store.onChange((applied) => {
      if (applied.length === 0 || applied.some((c) => RELEVANT.has(c.coll))) this.schedule();
    });
  }

  /** Desired data-plane view of every serving LB. */
  desired(): DataPlaneLoadBalancer[] {
    const lbs = this.#opts.store.all('load_balancers').filter((lb) => SERVING.has(lb.status));
    return lbs.map((lb) => this.#view(lb));
  }

  #view(lb: LoadBalancerRec): DataPlaneLoadBalancer {
    // Addresses are data and may be anything; traffic only ever goes to loopback or private ranges.
    const targets = this.#opts.targets.resolve(lb).flatMap((t) => (t.ip === null || !isLocalAddress(t.ip) ? [] : [{ id: t.id, ip: t.ip }]));
    return {
      id: lb.id,
      vip: lb.public_ipv4,
      algorithm: lb.algorithm,
      sessionAffinity: lb.session_affinity,
      // An LB with its public interface disabled serves nothing on its VIP.
      listeners: lb.public_interface ? lb.services.map((s) => toListener(s, (id) => this.#certificate(lb, id))) : [],
      targets,
      allowedSourceCidrs: this.#opts.targets.allowedSources(lb),
      forwarding: lb.forwarding,
    };
  }

  /** The stored certificate `id` of the LB's project (a service naming another project's or none terminates nothing). */
  #certificate(lb: LoadBalancerRec, id: string): { cert: string; key: string } | null {
    const c = own(this.#opts.store.state.certificates, id);
    return c === undefined || c.project_id !== lb.project_id ? null : { cert: c.certificate, key: c.private_key };
  }

  schedule(): void {
    if (this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (!this.#closed) this.#last = this.#apply();
    });
  }

  /** Resolves after the current desired state has been applied. */
  async settle(): Promise<void> {
    this.schedule();
    await new Promise((r) => setImmediate(r));
    await this.#last;
  }

  async #apply(): Promise<void> {
    try {
      const result = await this.#dp.apply(this.desired());
      for (const e of result.errors) this.#opts.logger.warn({ lbId: e.lbId, listenPort: e.listenPort }, `data plane: ${e.message}`);
    } catch (err) {
      // apply() reports per-listener errors in its result; anything thrown is a bug, logged, never fatal.
      this.#opts.logger.error({ err }, 'data plane apply failed');
    }
  }

  #onHealth(c: TargetHealthChange): void {
    this.#health.set(`${c.lbId}|${c.targetId}|${c.listenPort}`, c.status);
    const lb = this.#opts.store.state.load_balancers[c.lbId];
    this.#opts.events.publish({
      type: 'target_health',
      load_balancer_id: c.lbId,
      target_id: c.targetId,
      listen_port: c.listenPort,
      status: c.status,
      project_id: lb?.project_id ?? null,
    });
  }

  health(lbId: string, targetId: string, listenPort: number): 'healthy' | 'unhealthy' | 'unknown' {
    return this.#health.get(`${lbId}|${targetId}|${listenPort}`) ?? 'unknown';
  }

  counters(lbId: string): Map<string, TargetCounters> {
    return this.#dp.counters(lbId);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe();
    await this.#last;
    await this.#dp.close();
  }
}
