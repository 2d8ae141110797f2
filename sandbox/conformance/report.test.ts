import { describe, expect, it } from 'vitest';
import { ConformanceReport, passed, renderJunit, renderTable, Verdict, type CapabilityResult } from './report.ts';

const row = (capability: CapabilityResult['capability'], verdict: CapabilityResult['verdict'], extra: Partial<CapabilityResult> = {}): CapabilityResult => ({
  capability,
  verdict,
  message: '',
  durationMs: 1500,
  cloudCalls: 3,
  events: [],
  ccmLog: [],
  writes: [],
  ...extra,
});
const report = (results: CapabilityResult[], error: string | null = null): ConformanceReport =>
  ConformanceReport.parse({
    cloud: 'hcloud',
    ccm: 'command',
    command: 'my-ccm --v=2',
    runtime: 'local',
    sandboxVersion: '0.1.0',
    kubernetesVersion: 'v1.37.1',
    startedAt: '2026-11-25T00:00:00.000Z',
    durationMs: 61_000,
    error,
    results,
  });

describe('the conformance report', () => {
  it('passes when every attempted capability passed; not offered counts, skipped and failed do not', () => {
    expect(passed(report([row('node-init', Verdict.pass), row('routes', Verdict.notOffered)]))).toBe(true);
    expect(passed(report([row('node-init', Verdict.pass), row('lb-update', Verdict.skipped)]))).toBe(false);
    expect(passed(report([row('lb-basic', Verdict.fail)]))).toBe(false);
    expect(passed(report([], 'simcloud exited'))).toBe(false);
  });

  it('writes JUnit with one case per capability, failures with their Events and log, skipped rows as skipped, and XML escaped', () => {
    const xml = renderJunit(
      report([
        row('node-init', Verdict.pass, { message: 'ok' }),
        row('lb-basic', Verdict.fail, {
          message: 'no ingress for <web> & "friends"',
          events: ['Service/web: Warning SyncLoadBalancerFailed'],
          ccmLog: ['E1125 boom\u001b[0m'],
        }),
        row('lb-update', Verdict.skipped, { message: 'needs lb-basic, which is fail' }),
        row('routes', Verdict.notOffered, { message: 'no route controller' }),
      ]),
    );
    expect(xml).toContain('<testsuites name="ccm-sandbox conformance" tests="4" failures="1" errors="0" skipped="2" time="61.000">');
    expect(xml).toContain('<property name="ccm-command" value="my-ccm --v=2"/>');
    expect(xml).toContain('<failure message="no ingress for &lt;web&gt; &amp; &quot;friends&quot;" type="CapabilityFailure">');
    expect(xml).toContain('Service/web: Warning SyncLoadBalancerFailed');
    expect(xml).toContain('E1125 boom[0m');
    expect(xml).not.toContain('\u001b');
    expect(xml).toContain('<skipped message="skipped: needs lb-basic, which is fail"/>');
    expect(xml).toContain('<skipped message="not offered: no route controller"/>');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
  });

  it("prints one row per capability and each failure's evidence, and only the bring-up error when the sandbox did not come up", () => {
    const failed = renderTable(report([row('lb-basic', Verdict.fail, { message: 'no ingress', events: ['Service/web: Warning X'] })]));
    expect(failed).toMatch(/^conformance of the command CCM on hcloud \(local runtime\): FAIL in 61\.0 s/);
    expect(failed).toMatch(/lb-basic\s+fail\s+1\.5 s\s+3/);
    expect(failed).toContain('lb-basic failed: no ingress\n  Events:\n    Service/web: Warning X');
    const down = renderTable(
      report([row('node-init', Verdict.fail, { message: 'not checked: the sandbox did not come up' })], 'simcloud exited\nCCM log (last lines):\nE1'),
    );
    expect(down).toContain('the sandbox did not come up: simcloud exited\n    CCM log (last lines):\n    E1');
    expect(down).not.toContain('node-init failed:');
  });

  it('says which faults the CCM ran under, in the table and in the JUnit properties', () => {
    const faults = {
      file: '/ci/slow-lb.json',
      rules: [
        { kind: 'latency', match: { method: 'PUT', path: '/v2/load_balancers/*' }, latency_ms: 500 },
        { kind: 'rate_limit', limit: 10, window_seconds: 1 },
      ],
    };
    const r = ConformanceReport.parse({ ...report([row('lb-basic', Verdict.pass)]), faults });
    expect(renderTable(r)).toContain('under 2 fault rule(s) from /ci/slow-lb.json: latency 500 ms on PUT /v2/load_balancers/*; rate limit 10/1 s');
    expect(renderJunit(r)).toContain('<property name="faults" value="/ci/slow-lb.json"/>');
    expect(report([]).faults).toBeNull();
  });

  it('says which sandbox and which Kubernetes the CCM ran against, in the table and the JUnit properties; older reports read as unknown', () => {
    const r = report([row('node-init', Verdict.pass)]);
    expect(renderTable(r)).toMatch(/^conformance of the command CCM on hcloud \(local runtime\): PASS in 61\.0 s, ccm-sandbox 0\.1\.0, Kubernetes v1\.37\.1\n/);
    expect(renderJunit(r)).toContain('<property name="ccm-sandbox-version" value="0.1.0"/>\n      <property name="kubernetes-version" value="v1.37.1"/>');
    const { sandboxVersion: _s, kubernetesVersion: _k, ...older } = r;
    expect(ConformanceReport.parse(older)).toMatchObject({ sandboxVersion: 'unknown', kubernetesVersion: 'unknown' });
  });
});
