// ADR 0013: the Hetzner, Linode and DigitalOcean personas present RFC 1918 addresses (10.0.0.0/16;
// 192.168.128.0/17 and 10.0.0.0/16; 10.110.0.0/16) but no packet goes to one. test/e2e/conformance.test.ts
// samples every conformance run of our CCMs for that. This file does it for the clouds' own CCMs: with
// <CLOUD>_CCM_BINARY set (HCLOUD_CCM_BINARY, LINODE_CCM_BINARY, DIGITALOCEAN_CCM_BINARY, PHOENIXNAP_CCM_BINARY,
// built by hand, as CI cannot build them), that cloud's run uses the binary with the command line sandbox:up
// prints, and every TCP connection the sandbox's processes hold is sampled from /proc; every peer must be in
// 127.0.0.0/8 (or ::1). phoenixNAP's run goes through the sandbox's interception proxy (sandbox/intercept/)
// whatever the binary: its own CCM has the API hostnames compiled in, and without it (CI) our Go CCM runs in the
// command slot with the PNAP_*_URL variables unset, so its go-sdk-bmc and x/oauth2 clients use phoenixNAP's
// default endpoints (auth.phoenixnap.com, api.phoenixnap.com) and reach the persona only through HTTPS_PROXY with
// the sandbox's CA in SSL_CERT_FILE: the run passing is the proof, as nothing else resolves those names here.
// The proxy's own connections are sampled too (it runs in this process) and dial simcloud alone.
import { upstreamCcmCommand } from '../../sandbox/ccm/launch.ts';
import { ensureUpstreamCcmBinary } from '../../sandbox/ccm/upstream.ts';
import { createExec } from '../../sandbox/exec.ts';
import { describe, expect, it } from 'vitest';
import type { CcmChoice } from '../../sandbox/ccm/slot.ts';
import type { CloudKind } from '../../sandbox/cloud/registry.ts';
import { ADVERSITY_CAPABILITIES, DEFAULT_CAPABILITIES } from '../../sandbox/conformance/capabilities.ts';
import { ConformanceReport, renderTable } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';
import { offLoopback, startSampling } from '../helpers/proc-net.ts';
import { ownCcmOf } from '../helpers/sandbox.ts';

/** The variables that point our Go CCM's phoenixnap provider at the persona; unset, it uses phoenixNAP's own URLs. */
const PNAP_URL_VARIABLES = ['PNAP_TOKEN_URL', 'PNAP_BMC_API_URL', 'PNAP_IP_API_URL', 'PNAP_NETWORK_API_URL'] as const;

/** Our Go CCM on phoenixNAP's default endpoints, through the proxy: what CI runs without phoenixNAP's own CCM. */
async function proxiedGoCcm(): Promise<{ ccm: CcmChoice; comm: string }> {
  const command = `env ${PNAP_URL_VARIABLES.map((v) => `-u ${v}`).join(' ')} ${upstreamCcmCommand(await ensureUpstreamCcmBinary({ exec: createExec() }), 'phoenixnap')}`;
  return { ccm: { kind: 'command', command }, comm: 'upstream-ccm' };
}

const CLOUDS: readonly CloudKind[] = ['hcloud', 'linode', 'digitalocean', 'phoenixnap'];

describe.each(CLOUDS)('a %s conformance run', (cloud) => {
  const own = ownCcmOf(cloud);
  const proxied = own === undefined && cloud === 'phoenixnap';
  const which = proxied
    ? "our Go CCM on phoenixNAP's default endpoints, through the interception proxy"
    : `the cloud's own CCM, ${cloud.toUpperCase()}_CCM_BINARY`;
  it.skipIf(own === undefined && !proxied)(
    `opens TCP connections to loopback only (${which})`,
    async () => {
      const { ccm, comm } = own ?? (await proxiedGoCcm());
      const sampling = startSampling(process.pid);
      // What leaves loopback is the question here, not adversity: those capabilities have suites of their own.
      const report = await runConformance({ cloud, ccm, runtime: 'local', timeoutMs: 60_000, exclude: ADVERSITY_CAPABILITIES }).finally(sampling.stop);
      const table = renderTable(ConformanceReport.parse(report));
      expect(
        report.results.filter((r) => r.verdict === 'fail').map((r) => r.capability),
        table,
      ).toEqual([]);
      expect(report.results.length).toBe(DEFAULT_CAPABILITIES.length - ADVERSITY_CAPABILITIES.length);
      const { connections, commands } = sampling.observed;
      // The sample saw the sandbox at work: the API server, simcloud (node) and the CCM held connections.
      for (const command of ['kube-apiserver', comm]) expect([...commands], [...connections].join('\n')).toContain(command);
      expect(offLoopback(sampling.observed), `${connections.size} connections sampled`).toEqual([]);
    },
    240_000,
  );
});
