// `npm run conformance` as a CCM author runs it, on a deliberately broken CCM: the upstream Go CCM's hcloud
// provider as a command line, told to put its load balancers in a location Hetzner does not have. Nodes,
// lifecycle and routes work; every load balancer create is refused. The run must fail exactly the LB
// capabilities, with the Service's SyncLoadBalancerFailed Events and the CCM's log in the report, exit 1,
// and write JUnit XML and JSON that a CI system can read.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureUpstreamCcmBinary } from '../../sandbox/ccm/upstream.ts';
import { hcloudCcmCommand } from '../../sandbox/cloud/hcloud/env.ts';
import { createExec } from '../../sandbox/exec.ts';
import { REPO_ROOT } from '../../sandbox/state.ts';
import { ConformanceReport } from '../../sandbox/conformance/report.ts';

const dir = mkdtempSync(join(tmpdir(), 'ccm-conformance-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A whole run: sandbox up, fourteen capabilities (a joining node may wait for a 100 s resync, a vanished one 90 s), teardown. */
const RUN_TIMEOUT_MS = 600_000;

describe('npm run conformance on a CCM whose load balancers all fail', () => {
  it(
    'fails lb-basic with its Events, skips what needs it, passes the rest, exits 1 and writes JUnit and JSON',
    async () => {
      const exec = createExec();
      const binary = await ensureUpstreamCcmBinary({ exec });
      // The printed command line for Hetzner's CCM, run on our Go CCM, with a location no Hetzner API knows.
      const command = `HCLOUD_LOAD_BALANCERS_LOCATION=nowhere ${hcloudCcmCommand(binary)}`;
      const junit = join(dir, 'junit.xml');
      const json = join(dir, 'report.json');
      const res = await exec.run(
        process.execPath,
        [
          join(REPO_ROOT, 'sandbox/conformance/main.ts'),
          '--cloud',
          'hcloud',
          '--ccm',
          'command',
          '--ccm-command',
          command,
          '--timeout',
          '20',
          '--idle-window',
          '15',
          '--fault-window',
          '4',
          '--junit',
          'junit.xml',
          '--json',
          'report.json',
        ],
        { cwd: REPO_ROOT, env: { ...process.env, INIT_CWD: dir }, allowFailure: true, timeoutMs: 300_000 },
      );
      expect(res.exitCode, res.stdout + res.stderr).toBe(1);
      const report = ConformanceReport.parse(JSON.parse(readFileSync(json, 'utf8')));
      expect(Object.fromEntries(report.results.map((r) => [r.capability, r.verdict])), res.stdout).toEqual({
        'node-init': 'pass',
        'lb-basic': 'fail',
        'lb-update': 'skipped',
        'lb-annotations': 'skipped',
        'traffic-policy': 'skipped',
        'in-cluster': 'skipped',
        'idle-budget': 'pass',
        'api-faults': 'pass',
        'rate-limit': 'pass',
        'node-churn': 'skipped',
        'lb-delete': 'skipped',
        lifecycle: 'pass',
        routes: 'pass',
        leak: 'pass',
      });
      const failed = report.results.find((r) => r.capability === 'lb-basic')!;
      expect(failed.message).toContain('an ingress IP on Service default/conformance-web');
      expect(failed.events.some((e) => e.includes('Warning SyncLoadBalancerFailed') && e.includes('nowhere'))).toBe(true);
      expect(failed.ccmLog.length).toBeGreaterThan(0);
      expect(res.stdout).toContain('lb-basic failed: ');
      expect(res.stdout).toMatch(/lb-basic\s+fail/);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/<testsuites name="ccm-sandbox conformance" tests="14" failures="1" errors="0" skipped="6"/);
      expect(xml).toMatch(
        /<testcase classname="ccm-conformance.hcloud" name="lb-basic: [^"]*" time="[\d.]+">\s*<failure message="[^"]*" type="CapabilityFailure">[^<]*SyncLoadBalancerFailed/,
      );
      expect(xml.match(/<testcase /g)).toHaveLength(14);
    },
    RUN_TIMEOUT_MS,
  );
});
