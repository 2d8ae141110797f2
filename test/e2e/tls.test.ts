// TLS termination with a user's own certificate, as the conformance run's lb-tls checks it
// (sandbox/conformance/checks/tls.ts), with the clouds' own CCMs: DigitalOcean's, Hetzner's and Linode's when
// DIGITALOCEAN_CCM_BINARY, HCLOUD_CCM_BINARY or LINODE_CCM_BINARY names its binary (skipped otherwise). Each run
// is a sandbox with node-init, lb-basic and lb-tls: the handshake on 443 verified against the run's CA alone, a pod
// answering behind it, and port 80 redirecting to https where the cloud redirects (not Linode).
import { describe, expect, it } from 'vitest';
import type { CcmChoice } from '../../sandbox/ccm/slot.ts';
import type { CloudKind } from '../../sandbox/cloud/registry.ts';
import { ConformanceReport, renderTable, Verdict } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';
import { ownCcmOf } from '../helpers/sandbox.ts';

interface TlsRun {
  readonly cloud: CloudKind;
  readonly which: string;
  readonly ccm: CcmChoice | undefined;
}

// Our CCMs (builtin, and the Go CCM's simcloud, digitalocean, hcloud and linode providers) are checked for lb-tls
// by test/e2e/conformance.test.ts, inside each project's whole run.
const RUNS: readonly TlsRun[] = [
  { cloud: 'digitalocean', which: "DigitalOcean's own CCM (DIGITALOCEAN_CCM_BINARY)", ccm: ownCcmOf('digitalocean')?.ccm },
  { cloud: 'hcloud', which: "Hetzner's own CCM (HCLOUD_CCM_BINARY)", ccm: ownCcmOf('hcloud')?.ccm },
  { cloud: 'linode', which: "Linode's own CCM (LINODE_CCM_BINARY)", ccm: ownCcmOf('linode')?.ccm },
];

/** Sandbox up, three capabilities, teardown. */
const RUN_TIMEOUT_MS = 300_000;

describe.each(RUNS)('TLS on $cloud with $which', ({ cloud, ccm }) => {
  it.skipIf(ccm === undefined)(
    'ends TLS on the VIP with the uploaded certificate (verified against its CA), reaches a pod and redirects http to https where the cloud does',
    async () => {
      const report = await runConformance({ cloud, ccm: ccm!, runtime: 'local', timeoutMs: 60_000, only: ['lb-tls'] });
      const table = renderTable(ConformanceReport.parse(report));
      expect(Object.fromEntries(report.results.map((r) => [r.capability, r.verdict])), table).toEqual({
        'node-init': Verdict.pass,
        'lb-basic': Verdict.pass,
        'lb-tls': Verdict.pass,
      });
      const tls = report.results.find((r) => r.capability === 'lb-tls')?.message ?? '';
      expect(tls, table).toMatch(/verified against the run's CA; another CA refused\), answered by conformance-web-/);
      if (cloud !== 'linode') expect(tls, table).toMatch(/port 80 answered 30[1278] to https:\/\/[\d.]+\/conformance\?tls=1$/);
    },
    RUN_TIMEOUT_MS,
  );
});
