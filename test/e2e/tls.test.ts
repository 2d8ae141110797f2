// TLS termination with a user's own certificate, as the conformance run's lb-tls checks it
// (sandbox/conformance/checks/tls.ts), on every cloud here whose CCMs offer it: our builtin CCM and our Go
// CCM's simcloud provider on simcloud (/v1/certificates, loadbalancer.simcloud.dev/certificate-id), its
// digitalocean and hcloud providers on their personas (/v2/certificates and /hcloud/v1/certificates, their clouds'
// own annotations), and, with DIGITALOCEAN_CCM_BINARY, HCLOUD_CCM_BINARY or LINODE_CCM_BINARY set, those clouds'
// own CCMs (Linode's reads a kubernetes.io/tls Secret; our Go linode provider reads none, so it is not run here).
// Each run is a sandbox with node-init, lb-basic and lb-tls: the handshake on 443 verified against the run's CA
// alone, a pod answering behind it, and port 80 redirecting to https where the cloud redirects (not Linode).
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

const RUNS: readonly TlsRun[] = [
  { cloud: 'simcloud', which: 'our builtin CCM', ccm: { kind: 'builtin' } },
  { cloud: 'simcloud', which: "our Go CCM's simcloud provider", ccm: { kind: 'upstream' } },
  { cloud: 'digitalocean', which: "our Go CCM's digitalocean provider", ccm: { kind: 'upstream' } },
  { cloud: 'hcloud', which: "our Go CCM's hcloud provider", ccm: { kind: 'upstream' } },
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
