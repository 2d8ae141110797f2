// The cost of running pods, for S12: a DaemonSet across the resident nodes (one pod per node, what a
// kube-proxy or CNI DaemonSet puts on a real cluster) rolled out and deleted again. kube-scheduler binds
// each pod, the virtual kubelets' pod runner (in the benchmark's own process) runs it, then finishes its
// deletion. Reports the rollout and removal times and the CPU and peak RSS of kube-scheduler and of the
// benchmark process (kubelets + pod runner) during the phase.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { waitFor } from '../../sandbox/wait.ts';
import type { BenchEnv } from './env.ts';
import { NAMESPACE } from './services.ts';
import { figure } from './stats.ts';
import type { Figure } from './types.ts';

const NAME = 'bench-agent';

export interface PodPhase {
  readonly figures: Figure[];
  readonly details: Record<string, unknown>;
}

export async function daemonSetPhase(env: BenchEnv, progress: (m: string) => void): Promise<PodPhase> {
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const labels = { app: NAME };
  const close = env.sampler.window();
  const cpuBefore = process.cpuUsage();
  const started = Date.now();
  await apps.createNamespacedDaemonSet({
    namespace: NAMESPACE,
    body: {
      metadata: { name: NAME },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'agent', image: 'busybox' }] } } },
    },
  });
  const count = await waitFor(
    async () => {
      const ds = await apps.readNamespacedDaemonSet({ name: NAME, namespace: NAMESPACE });
      const want = ds.status?.desiredNumberScheduled ?? 0;
      return want > 0 && ds.status?.numberReady === want ? want : undefined;
    },
    { timeoutMs: 600_000, intervalMs: 500, description: 'every DaemonSet pod Ready' },
  );
  const running = (Date.now() - started) / 1000;
  progress(`${count} DaemonSet pods Ready in ${running.toFixed(1)} s; deleting`);
  const removed = await deleteAll(apps, core);
  const cpu = process.cpuUsage(cpuBefore);
  const usage = close();
  const scheduler = usage['kube-scheduler'];
  const bench = usage['bench+kubelets'];
  const what = `DaemonSet of ${count} pods (one per node), rolled out and deleted`;
  const figures = [
    figure({ scenario: 'S12', name: `pods: ${count} DaemonSet pods created, bound and Running`, unit: 's', samples: [running] }),
    figure({ scenario: 'S12', name: `pods: ${count} DaemonSet pods deleted and gone`, unit: 's', samples: [removed] }),
    figure({ scenario: 'S12', name: `kube-scheduler CPU seconds, ${what}`, unit: 's', samples: [scheduler?.cpuSeconds ?? Number.NaN] }),
    figure({ scenario: 'S12', name: `kube-scheduler peak RSS, ${what}`, unit: 'MB', samples: [scheduler?.peakRssMb ?? Number.NaN] }),
    figure({
      scenario: 'S12',
      name: `pod simulator (benchmark process: virtual kubelets + pod runner) CPU seconds, ${what}`,
      unit: 's',
      samples: [(cpu.user + cpu.system) / 1e6],
    }),
    figure({ scenario: 'S12', name: `pod simulator (benchmark process) peak RSS, ${what}`, unit: 'MB', samples: [bench?.peakRssMb ?? Number.NaN] }),
  ];
  return { figures, details: { pods: count, runningSeconds: running, removedSeconds: removed, processes: usage } };
}

/** Deletes the DaemonSet and waits until its last pod is gone; returns the seconds it took. */
async function deleteAll(apps: AppsV1Api, core: CoreV1Api): Promise<number> {
  const deleting = Date.now();
  await apps.deleteNamespacedDaemonSet({ name: NAME, namespace: NAMESPACE, propagationPolicy: 'Foreground' });
  await waitFor(async () => (await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: `app=${NAME}`, limit: 1 })).items.length === 0, {
    timeoutMs: 600_000,
    intervalMs: 500,
    description: 'every DaemonSet pod gone',
  });
  return (Date.now() - deleting) / 1000;
}
