// Each continuity capability can fail: the upstream Go CCM's simcloud provider with its faulty variants
// (go/provider/simcloud/faulty.go, switched on by CCM_SANDBOX_FAULTY_VARIANTS in the CCM's environment, which
// the sandbox passes on from this process) fails exactly the capability the variant's bug belongs to, with a
// message naming the load balancer and the call. Two runs: a variant that names load balancers otherwise would
// hide the one that adopts them by name.
import { afterEach, describe, expect, it } from 'vitest';
import type { Capability } from '../../sandbox/conformance/capabilities.ts';
import { ConformanceReport, renderTable, type CapabilityResult } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';

const VARIANTS = 'CCM_SANDBOX_FAULTY_VARIANTS';
const RUN_TIMEOUT_MS = 600_000;

async function runWith(
  variants: string,
  only: readonly Capability[],
  upgradeFrom?: string,
): Promise<{ results: Record<string, CapabilityResult>; table: string }> {
  process.env[VARIANTS] = variants;
  const report = await runConformance({
    cloud: 'simcloud',
    ccm: { kind: 'upstream' },
    runtime: 'local',
    timeoutMs: 30_000,
    only,
    ...(upgradeFrom ? { upgradeFrom } : {}),
  });
  return { results: Object.fromEntries(report.results.map((r) => [r.capability, r])), table: renderTable(ConformanceReport.parse(report)) };
}

afterEach(() => {
  delete process.env[VARIANTS];
});

describe('the upstream Go CCM with faulty variants', () => {
  it(
    'renaming on start fails restart, forgetting deletions made while it was down fails down-delete',
    async () => {
      const { results, table } = await runWith('rename-on-start,forget-deletes-on-restart', ['restart', 'down-delete']);
      expect(Object.fromEntries(Object.entries(results).map(([c, r]) => [c, r.verdict])), table).toEqual({
        'node-init': 'pass',
        restart: 'fail',
        'down-delete': 'fail',
      });
      expect(results.restart?.message, table).toMatch(
        /PATCH \/v1\/load_balancers\/lb-\d+ identity changed: load balancer lb-\d+ \(conformance-a\w+-\d+\): name "conformance-a\w+-\d+" → "conformance-a\w+-\d+"/,
      );
      expect(
        results.restart?.writes.filter((w) => w.effect === 'identity changed'),
        table,
      ).toHaveLength(2);
      expect(results['down-delete']?.message, table).toMatch(
        /^the simcloud load balancer lb-\d+ at [\d.]+ of Service down-delete-gone is still there after its finalizer was released/,
      );
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "adopting load balancers by name alone fails neighbours: the second cluster takes the first one's",
    async () => {
      const { results, table } = await runWith('adopt-by-name', ['neighbours']);
      expect(results.neighbours?.verdict, table).toBe('fail');
      expect(results.neighbours?.message, table).toMatch(
        /^the second cluster's Service neighbour-web got the first one's simcloud load balancer lb-\d+ at [\d.]+/,
      );
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'a previous CCM that cannot start fails upgrade alone: the CCM under test is back in the slot for down-delete',
    async () => {
      const { results, table } = await runWith('', ['upgrade', 'down-delete'], 'false');
      expect(Object.fromEntries(Object.entries(results).map(([c, r]) => [c, r.verdict])), table).toEqual({
        'node-init': 'pass',
        upgrade: 'fail',
        'down-delete': 'pass',
      });
      expect(results.upgrade?.message, table).toMatch(/^the CCM command `false` exited during start-up \(exit code 1\)/);
    },
    RUN_TIMEOUT_MS,
  );
});
