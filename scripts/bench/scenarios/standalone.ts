// Scenarios that bring their own processes: S15 bring-up (the sandbox as `sandbox:up` runs it) and S10
// simcloud's API throughput (the simcloud engineer's scripts/bench/simcloud.ts, called as a function).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Sandbox } from '../../../sandbox/sandbox.ts';
import { runSimcloudBench } from '../simcloud.ts';
import type { Scenario } from '../scenario.ts';
import { figure } from '../stats.ts';
import type { Figure } from '../types.ts';
import { reaper } from '../../../sandbox/reaper-client.ts';

async function bringUp(progress: (m: string) => void): Promise<{ controlPlane: number; total: number; steps: Record<string, number> }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'ccm-bench-s15-'));
  reaper().trackDir(stateDir);
  let controlPlane = Number.NaN;
  const sandbox = new Sandbox({
    name: 'bench-s15',
    runtime: 'local',
    workers: 2,
    lbStrategy: 'lb',
    stateDir,
    progress: (m) => {
      const ready = /control plane ready in ([\d.]+) s/.exec(m);
      if (ready) controlPlane = Number(ready[1]);
    },
  });
  const started = Date.now();
  try {
    await sandbox.up();
    const total = (Date.now() - started) / 1000;
    const steps = Object.fromEntries(sandbox.state.steps.map((s) => [s.name, s.durationMs / 1000]));
    progress(`S15: up in ${total.toFixed(1)} s (control plane ${controlPlane} s)`);
    return { controlPlane, total, steps };
  } finally {
    await sandbox.down().catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  }
}

export const S15: Scenario = {
  id: 'S15',
  title: 'bring-up: local control plane ready; sandbox up (1 + 2 nodes) -> all nodes initialised (warm)',
  usesEnv: false,
  async run(ctx) {
    const runs = [];
    for (let r = 1; r <= ctx.opts.runs; r++) runs.push(await bringUp(ctx.progress));
    const figures = [
      figure({ scenario: 'S15', name: 'local control plane ready (warm)', unit: 's', samples: runs.map((r) => r.controlPlane), target: 10, limitNote: 'etcd + kube-apiserver + controller-manager start' }),
      figure({ scenario: 'S15', name: 'sandbox up -> all nodes initialised (warm)', unit: 's', samples: runs.map((r) => r.total), target: 30, limitNote: '' }),
    ];
    return { figures, details: { steps: runs.map((r) => r.steps) }, runs: runs.length };
  },
};

export const S10: Scenario = {
  id: 'S10',
  title: 'simcloud API throughput (scripts/bench/simcloud.ts)',
  usesEnv: false,
  async run(ctx) {
    const result = await runSimcloudBench({ seconds: ctx.opts.smoke ? 2 : 10, outDir: dirname(ctx.opts.out), log: ctx.progress });
    const figures: Figure[] = result.measurements.flatMap((m) => [
      figure({ scenario: 'S10', name: `${m.name}: throughput`, unit: 'req/s', samples: [m.requestsPerSecond], target: m.target.minRequestsPerSecond, direction: 'min', limitNote: `${result.connections} connections` }),
      figure({ scenario: 'S10', name: `${m.name}: p99 latency`, unit: 'ms', samples: [m.p99Ms], target: m.target.maxP99Ms, limitNote: '' }),
    ]);
    return { figures, details: { file: result.file, servers: result.servers, loadBalancers: result.loadBalancers }, runs: 1 };
  },
};
