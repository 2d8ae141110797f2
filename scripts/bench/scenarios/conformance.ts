// S16: the conformance run's own time on a warm cache, once per cloud with the CCM a cloud gets by default
// (ours on simcloud, the upstream Go CCM's provider on each persona): sandbox up, every capability, teardown.
import { CLOUD_DESCRIPTORS } from '../../../sandbox/cloud/registry.ts';
import { runConformance } from '../../../sandbox/conformance/run.ts';
import { passed } from '../../../sandbox/conformance/report.ts';
import { defaultCcmFor } from '../../../sandbox/sandbox.ts';
import type { Scenario } from '../scenario.ts';
import { figure } from '../stats.ts';

export const S16: Scenario = {
  id: 'S16',
  title: 'conformance run per cloud (warm): sandbox up, every capability, teardown',
  usesEnv: false,
  async run(ctx) {
    const figures = [];
    const details: Record<string, unknown> = {};
    // A cloud without a default CCM (no upstream provider yet) has nothing to time here.
    for (const cloud of CLOUD_DESCRIPTORS.filter((c) => c.upstream.unavailable === undefined)) {
      const samples: number[] = [];
      for (let r = 1; r <= ctx.opts.runs; r++) {
        const report = await runConformance({ cloud: cloud.kind, ccm: defaultCcmFor(cloud.kind), runtime: 'local', timeoutMs: 60_000 });
        // A run that failed a capability says nothing about the run's speed: no sample.
        samples.push(passed(report) ? report.durationMs / 1000 : Number.NaN);
        ctx.progress(`S16: ${cloud.kind} ${passed(report) ? 'passed' : 'FAILED'} in ${(report.durationMs / 1000).toFixed(1)} s`);
        details[`${cloud.kind}#${r}`] = Object.fromEntries(
          report.results.map((x) => [
            x.capability,
            { verdict: x.verdict, seconds: x.durationMs / 1000, cloudCalls: x.cloudCalls, ...(x.verdict === 'fail' ? { message: x.message } : {}) },
          ]),
        );
      }
      figures.push(
        figure({
          scenario: 'S16',
          name: `conformance run, ${cloud.kind} (${defaultCcmFor(cloud.kind).kind} CCM)`,
          unit: 's',
          samples,
          target: 60,
          limitNote: 'lifecycle waits on kube-controller-manager marking the node NotReady',
        }),
      );
    }
    return { figures, details, runs: ctx.opts.runs };
  },
};
