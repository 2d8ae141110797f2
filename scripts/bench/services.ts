// LoadBalancer Services as the benchmark sees them (watch timestamps: created, ingress set, deleted),
// created and deleted in bulk in the `bench` namespace.
import { CoreV1Api, type KubeConfig, type V1Service } from '@kubernetes/client-node';
import type { BenchEnv } from './env.ts';
import { mapAtRate, mapWithConcurrency } from '../../lib/concurrency.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { startWatch } from './watch.ts';

export const NAMESPACE = 'bench';

export interface ServiceTimes {
  added: number;
  ingress?: number;
  deleted?: number;
  exists: boolean;
}

const hasIngress = (s: V1Service): boolean => (s.status?.loadBalancer?.ingress ?? []).length > 0;

export class ServiceTracker {
  readonly times = new Map<string, ServiceTimes>();
  #stop: () => void = () => undefined;

  static async start(kc: KubeConfig): Promise<ServiceTracker> {
    const t = new ServiceTracker();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } }).catch(() => undefined);
    t.#stop = await startWatch<V1Service>(kc, `/api/v1/namespaces/${NAMESPACE}/services`, () => core.listNamespacedService({ namespace: NAMESPACE }), {
      onUpsert: (s, at) => t.#upsert(s, at),
      onDelete: (s, at) => {
        const times = t.times.get(s.metadata?.name ?? '');
        if (times) Object.assign(times, { deleted: at, exists: false });
      },
    });
    return t;
  }

  stop(): void {
    this.#stop();
  }

  existing(): string[] {
    return [...this.times].filter(([, t]) => t.exists).map(([n]) => n);
  }

  #upsert(s: V1Service, at: number): void {
    const name = s.metadata?.name ?? '';
    let t = this.times.get(name);
    if (!t || !t.exists) {
      t = { added: at, exists: true };
      this.times.set(name, t);
    }
    if (t.ingress === undefined && hasIngress(s)) t.ingress = at;
  }
}

export const serviceName = (prefix: string, i: number): string => `${prefix}-${String(i + 1).padStart(4, '0')}`;

function lbService(name: string): V1Service {
  return {
    metadata: { name, namespace: NAMESPACE },
    spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  };
}

/**
 * Creates LoadBalancer Services: `perSecond` paces them (an arrival schedule the same in every pass), else
 * bounded-parallel. Returns when all are created.
 */
export async function createServices(env: BenchEnv, names: readonly string[], perSecond?: number): Promise<void> {
  const create = async (name: string): Promise<void> => {
    await env.core.createNamespacedService({ namespace: NAMESPACE, body: lbService(name) });
  };
  await (perSecond ? mapAtRate(names, perSecond, create) : mapWithConcurrency(names, 32, create));
}

export async function waitForIngress(env: BenchEnv, names: readonly string[], timeoutMs: number): Promise<void> {
  await waitFor(() => names.every((n) => env.services.times.get(n)?.ingress !== undefined), {
    timeoutMs,
    description: `${names.length} Services with ingress`,
  });
}

/** Deletes the Services and waits until they are gone (the CCM removes its finalizer after cleanup). */
export async function deleteServices(env: BenchEnv, names: readonly string[], timeoutMs = 600_000): Promise<void> {
  await mapWithConcurrency(names, 32, async (name) => {
    await env.core.deleteNamespacedService({ name, namespace: NAMESPACE }).catch(() => undefined);
  });
  await waitFor(() => names.every((n) => !env.services.times.get(n)?.exists), { timeoutMs, description: `${names.length} Services to be deleted` });
}
