// Scenarios that bring their own processes: S15 bring-up (the sandbox as `sandbox:up` runs it, in this
// process and as the command itself, with where the time goes) and S10 simcloud's API throughput (the
// simcloud engineer's scripts/bench/simcloud.ts, called as a function).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createExec } from '../../../sandbox/exec.ts';
import { Sandbox } from '../../../sandbox/sandbox.ts';
import type { StepRecord } from '../../../sandbox/state.ts';
import { runSimcloudBench } from '../simcloud.ts';
import type { Scenario } from '../scenario.ts';
import { figure } from '../stats.ts';
import type { Figure } from '../types.ts';
import { reaper } from '../../../sandbox/reaper-client.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** One S15 run, as its JSON details carry it: seconds, per step and per phase (sandbox/startup.ts). */
export const S15Run = z.object({
  /** `npm run sandbox:up` from the command to its summary (the daemon, the CLI and npm included). */
  command: z.number(),
  /** The same run's daemon, start to ready, as its summary says ("after N s"). */
  commandDaemon: z.number(),
  /** Sandbox.up() in this process, to all nodes initialised. */
  total: z.number(),
  controlPlane: z.number(),
  steps: z.record(z.string(), z.number()),
  phases: z.record(z.string(), z.number()),
});
export type S15Run = z.infer<typeof S15Run>;
export const S15Details = z.object({ runs: z.array(S15Run) });

const bySeconds = (records: readonly StepRecord[] | undefined): Record<string, number> =>
  Object.fromEntries((records ?? []).map((s) => [s.name, s.durationMs / 1000]));

async function bringUp(progress: (m: string) => void): Promise<Omit<S15Run, 'command' | 'commandDaemon'>> {
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
    progress(`S15: up in ${total.toFixed(1)} s (control plane ${controlPlane} s)`);
    return { controlPlane, total, steps: bySeconds(sandbox.state.steps), phases: bySeconds(sandbox.state.phases) };
  } finally {
    await sandbox.down().catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** `npm run sandbox:up` as a user runs it (its own state root), timed to its summary; then `sandbox:down`. */
async function commandUp(progress: (m: string) => void): Promise<Pick<S15Run, 'command' | 'commandDaemon'>> {
  const root = mkdtempSync(join(tmpdir(), 'ccm-bench-s15-cli-'));
  reaper().trackDir(root);
  const exec = createExec();
  const env = { ...process.env, CCM_SANDBOX_STATE_DIR: root } as Record<string, string>;
  const started = Date.now();
  try {
    const up = await exec.run('npm', ['run', '--silent', 'sandbox:up', '--', '--name', 'bench-s15'], {
      cwd: REPO,
      env,
      allowFailure: true,
      timeoutMs: 180_000,
    });
    const seconds = (Date.now() - started) / 1000;
    if (up.exitCode !== 0) throw new Error(`npm run sandbox:up failed (${up.exitCode}): ${up.stderr.trim().split('\n').slice(-5).join(' | ')}`);
    const daemon = Number(/ is ready \(.*\) after ([\d.]+) s/.exec(up.stdout)?.[1] ?? Number.NaN);
    progress(`S15: npm run sandbox:up in ${seconds.toFixed(1)} s (its daemon ${daemon} s)`);
    return { command: seconds, commandDaemon: daemon };
  } finally {
    await exec.run('npm', ['run', '--silent', 'sandbox:down', '--', '--name', 'bench-s15'], { cwd: REPO, env, allowFailure: true, timeoutMs: 120_000 });
    rmSync(root, { recursive: true, force: true });
    reaper().untrackDir(root);
  }
}

/** S15's figures from its runs: the three targets, the command's daemon, and a figure per step and phase. */
export function s15Figures(runs: readonly S15Run[]): Figure[] {
  const names = (pick: (r: S15Run) => Record<string, number>): string[] => [...new Set(runs.flatMap((r) => Object.keys(pick(r))))];
  // Where the time goes: a figure per step and per phase (no targets; the steps overlap).
  const breakdown = (kind: 'step' | 'phase', pick: (r: S15Run) => Record<string, number>): Figure[] =>
    names(pick).map((name) =>
      figure({ scenario: 'S15', name: `${kind}: ${name}`, unit: 's', samples: runs.map((r) => pick(r)[name] ?? Number.NaN), judge: 'p50', limitNote: '' }),
    );
  return [
    figure({
      scenario: 'S15',
      name: 'local control plane ready (warm)',
      unit: 's',
      samples: runs.map((r) => r.controlPlane),
      target: 10,
      limitNote: 'etcd + kube-apiserver + controller-manager start',
    }),
    figure({ scenario: 'S15', name: 'sandbox up -> all nodes initialised (warm)', unit: 's', samples: runs.map((r) => r.total), target: 30, limitNote: '' }),
    figure({
      scenario: 'S15',
      name: 'npm run sandbox:up -> summary (warm)',
      unit: 's',
      samples: runs.map((r) => r.command),
      target: 5,
      judge: 'p50',
      limitNote: 'kube-apiserver ready (its RBAC bootstrap polls once a second) + the CCM process start',
    }),
    figure({
      scenario: 'S15',
      name: 'npm run sandbox:up: its daemon, start to ready (warm)',
      unit: 's',
      samples: runs.map((r) => r.commandDaemon),
      judge: 'p50',
      limitNote: '',
    }),
    ...breakdown('step', (r) => r.steps),
    ...breakdown('phase', (r) => r.phases),
  ];
}

export const S15: Scenario = {
  id: 'S15',
  title: 'bring-up: local control plane ready; sandbox up (1 + 2 nodes) -> all nodes initialised (warm), in process and as `npm run sandbox:up`',
  usesEnv: false,
  async run(ctx) {
    const runs: S15Run[] = [];
    for (let r = 1; r <= ctx.opts.runs; r++) runs.push({ ...(await bringUp(ctx.progress)), ...(await commandUp(ctx.progress)) });
    return { figures: s15Figures(runs), details: S15Details.parse({ runs }), runs: runs.length };
  },
};

export const S10: Scenario = {
  id: 'S10',
  title: 'simcloud API throughput (scripts/bench/simcloud.ts)',
  usesEnv: false,
  async run(ctx) {
    const result = await runSimcloudBench({ seconds: ctx.opts.smoke ? 2 : 10, outDir: dirname(ctx.opts.out), log: ctx.progress });
    const figures: Figure[] = result.measurements.flatMap((m) => [
      figure({
        scenario: 'S10',
        name: `${m.name}: throughput`,
        unit: 'req/s',
        samples: [m.requestsPerSecond],
        target: m.target.minRequestsPerSecond,
        direction: 'min',
        limitNote: `${result.connections} connections`,
      }),
      figure({ scenario: 'S10', name: `${m.name}: p99 latency`, unit: 'ms', samples: [m.p99Ms], target: m.target.maxP99Ms, limitNote: '' }),
    ]);
    return { figures, details: { file: result.file, servers: result.servers, loadBalancers: result.loadBalancers }, runs: 1 };
  },
};
