// The continuity capabilities (restart, upgrade, down-delete, neighbours) on the CCM and cloud of the project:
// e2e runs them on our CCM on simcloud (no upgrade: ours has no older release to come from), e2e-upstream on
// the upstream Go CCM on simcloud and e2e-hcloud on its hcloud provider, both upgrading from the upstream Go
// CCM as a command line (the same code, run as another CCM would be).
import { describe, expect, it } from 'vitest';
import { upstreamCcmCommand } from '../../sandbox/ccm/launch.ts';
import { ensureUpstreamCcmBinary } from '../../sandbox/ccm/upstream.ts';
import type { Capability } from '../../sandbox/conformance/capabilities.ts';
import { ConformanceReport, renderTable, Verdict } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';
import { createExec } from '../../sandbox/exec.ts';
import { e2eCcm, e2eCloud } from '../helpers/sandbox.ts';

const cloud = e2eCloud();
const ccm = e2eCcm();
const CONTINUITY: readonly Capability[] =
  ccm.kind === 'upstream' ? ['restart', 'upgrade', 'down-delete', 'neighbours'] : ['restart', 'down-delete', 'neighbours'];

/** Node initialisation, then each capability with its Services, settle windows, a joining node and a second cluster. */
const RUN_TIMEOUT_MS = 600_000;

describe(`the continuity capabilities of the ${ccm.kind} CCM on ${cloud}`, () => {
  it(
    `pass: ${CONTINUITY.join(', ')}`,
    async () => {
      const upgradeFrom = ccm.kind === 'upstream' ? upstreamCcmCommand(await ensureUpstreamCcmBinary({ exec: createExec() }), cloud) : undefined;
      const report = await runConformance({ cloud, ccm, runtime: 'local', timeoutMs: 60_000, only: CONTINUITY, ...(upgradeFrom ? { upgradeFrom } : {}) });
      const table = renderTable(ConformanceReport.parse(report));
      expect(Object.fromEntries(report.results.map((r) => [r.capability, r.verdict])), table).toEqual(
        Object.fromEntries(['node-init', ...CONTINUITY].map((c) => [c, Verdict.pass])),
      );
      // What the restart judged: the two Services' load balancers, read back before and after.
      expect(report.results.find((r) => r.capability === 'restart')?.message, table).toMatch(
        /^2 load balancers kept their id, name, address, targets and settings/,
      );
    },
    RUN_TIMEOUT_MS,
  );
});
