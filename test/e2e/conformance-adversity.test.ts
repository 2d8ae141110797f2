// The adversity capabilities can fail: one conformance run of the upstream Go CCM on simcloud with faulty
// variants of its provider switched on (CCM_SANDBOX_FAULTY_VARIANTS, go/provider/simcloud), each failing the
// capability it exists for with its cause in the message. One run holds them all: each variant touches what
// only its capability checks (a failed lookup read as "not found" deletes a NotReady Node; a 100 ms poller
// lists the servers; no rate gate and retries at once after a 429; a node that left the target set stays in
// it; a health check keeps its port when the traffic policy changes; a PROXY-protocol load balancer's ingress
// stays at ipMode VIP), and conformance.test.ts passes the same capabilities on the correct provider. A condition that must
// fail waits 30 s here, not the minute a passing run may need. The correct CCMs' passes are there too (projects e2e, e2e-upstream and e2e-hcloud).
import { afterEach, describe, expect, it } from 'vitest';
import { ADVERSITY_CAPABILITIES } from '../../sandbox/conformance/capabilities.ts';
import { ConformanceReport, renderTable, Verdict } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';
import { CI_ADVERSITY_WINDOWS } from '../helpers/adversity.ts';

/** go/provider/simcloud's variant names (VariantLookupErrorNotFound, VariantPoll100ms, VariantIgnore429, VariantKeepExcludedNodes, VariantKeepOldHealthCheckPort, VariantIgnoreIPMode). */
const VARIANTS = {
  'traffic-policy': 'keep-old-hc-port',
  'in-cluster': 'ignore-ipmode',
  'api-faults': 'lookup-error-not-found',
  'idle-budget': 'poll-100ms',
  'rate-limit': 'ignore-429',
  'node-churn': 'keep-excluded-nodes',
} as const;
const ENV = 'CCM_SANDBOX_FAULTY_VARIANTS';

/**
 * What each failure must say: the load balancer whose check stayed on the node port, the ingress left at ipMode VIP,
 * the Node deleted while its server ran, the endpoint polled ten times a second, the early requests, the excluded node.
 */
const CAUSES = {
  'traffic-policy':
    /health checks of the simcloud load balancer lb-\d+ at [\d.]+, read through its API, to probe healthCheckNodePort \d+ over http under policy Local: .*listener 8083: http on port \d+/,
  'in-cluster':
    /^Service default\/conformance-in-cluster's ingress [\d.]+ \(ipMode VIP\) leaves kube-proxy to capture the address although its load balancer sends the PROXY protocol/,
  // Whichever fault the NotReady Node's first lookup meets: with a loaded machine it was 503 as often as 500.
  'api-faults': /Node \S+ deleted during (500 server_error|503 service_unavailable|403 forbidden|timeout).* while every server kept running/,
  'idle-budget': /GET \/v1\/servers \d+\.\d+\/s above the budget of 1\/s per endpoint/,
  'rate-limit': /\d+ requests before the announced time: the first 429 at/,
  'node-churn': /to stop targeting \S+, labelled node\.kubernetes\.io\/exclude-from-external-load-balancers: .*still targets/,
} as const;

const RUN_TIMEOUT_MS = 300_000;

describe('the adversity capabilities on faulty variants of the upstream Go CCM', () => {
  afterEach(() => {
    delete process.env[ENV];
  });

  it(
    `fails ${ADVERSITY_CAPABILITIES.join(', ')}, each on its own variant and naming the cause`,
    async () => {
      // The CCM process inherits this worker's environment (sandbox/ccm/launch.ts).
      process.env[ENV] = Object.values(VARIANTS).join(',');
      const report = await runConformance({
        cloud: 'simcloud',
        ccm: { kind: 'upstream' },
        runtime: 'local',
        timeoutMs: 30_000,
        only: ADVERSITY_CAPABILITIES,
        windows: CI_ADVERSITY_WINDOWS,
      });
      const table = renderTable(ConformanceReport.parse(report));
      const verdicts = Object.fromEntries(report.results.map((r) => [r.capability, r.verdict]));
      expect(verdicts, table).toEqual({
        'node-init': Verdict.pass,
        'lb-basic': Verdict.pass,
        ...Object.fromEntries(ADVERSITY_CAPABILITIES.map((c) => [c, Verdict.fail])),
      });
      for (const [capability, cause] of Object.entries(CAUSES)) expect(report.results.find((r) => r.capability === capability)?.message, table).toMatch(cause);
    },
    RUN_TIMEOUT_MS,
  );
});
