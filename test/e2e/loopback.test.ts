// ADR 0013: the Hetzner, Linode and DigitalOcean personas present RFC 1918 addresses (10.0.0.0/16;
// 192.168.128.0/17 and 10.0.0.0/16; 10.110.0.0/16) but no packet goes to one. While a conformance run on
// each goes (our Go CCM's provider, whose Nodes carry the presented InternalIPs, whose routes name them as
// gateways and whose load balancers are given them), every TCP connection the sandbox's processes (this
// process and everything it started: simcloud, etcd, kube-apiserver, the CCM, ...) hold is sampled from
// /proc; every peer must be in 127.0.0.0/8 (or ::1). With <CLOUD>_CCM_BINARY set (HCLOUD_CCM_BINARY,
// LINODE_CCM_BINARY, DIGITALOCEAN_CCM_BINARY, PHOENIXNAP_CCM_BINARY: the cloud's own CCM, built by hand, as CI
// cannot build it), that cloud's run uses the binary with the command line sandbox:up prints. phoenixNAP's run
// always goes through the sandbox's interception proxy (sandbox/intercept/): its own CCM has the API hostnames
// compiled in, and without it our Go CCM runs in the command slot with the PNAP_*_URL variables unset, so its
// go-sdk-bmc and x/oauth2 clients use phoenixNAP's default endpoints (auth.phoenixnap.com, api.phoenixnap.com)
// and reach the persona only through HTTPS_PROXY with the sandbox's CA in SSL_CERT_FILE: the run passing is the
// proof, as nothing else resolves those names here. The proxy's own connections are sampled too (it runs in this
// process) and dial simcloud alone.
import { basename } from 'node:path';
import { upstreamCcmCommand } from '../../sandbox/ccm/launch.ts';
import { ensureUpstreamCcmBinary } from '../../sandbox/ccm/upstream.ts';
import { createExec } from '../../sandbox/exec.ts';
import { describe, expect, it } from 'vitest';
import type { CcmChoice } from '../../sandbox/ccm/slot.ts';
import { cloudOf, type CloudKind } from '../../sandbox/cloud/registry.ts';
import { ADVERSITY_CAPABILITIES, DEFAULT_CAPABILITIES } from '../../sandbox/conformance/capabilities.ts';
import { ConformanceReport, renderTable } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';
import { isLoopbackPeer, startSampling } from '../helpers/proc-net.ts';

/** The variables that point our Go CCM's phoenixnap provider at the persona; unset, it uses phoenixNAP's own URLs. */
const PNAP_URL_VARIABLES = ['PNAP_TOKEN_URL', 'PNAP_BMC_API_URL', 'PNAP_IP_API_URL', 'PNAP_NETWORK_API_URL'] as const;

/** The CCM of `cloud`'s run, a few words on it, and the name its process shows in /proc/<pid>/comm (15 characters at most). */
async function ccmOf(cloud: CloudKind): Promise<{ ccm: CcmChoice; what: string; comm: string }> {
  const binary = process.env[`${cloud.toUpperCase()}_CCM_BINARY`];
  const own = cloudOf(cloud).ownCcm;
  if (binary && own !== undefined) return { ccm: { kind: 'command', command: own.command(binary) }, what: `its own CCM, ${basename(binary)}`, comm: basename(binary).slice(0, 15) };
  if (cloud !== 'phoenixnap') return { ccm: { kind: 'upstream' }, what: 'upstream CCM', comm: 'upstream-ccm' };
  const command = `env ${PNAP_URL_VARIABLES.map((v) => `-u ${v}`).join(' ')} ${upstreamCcmCommand(await ensureUpstreamCcmBinary({ exec: createExec() }), cloud)}`;
  return { ccm: { kind: 'command', command }, what: "upstream CCM on phoenixNAP's default endpoints, through the proxy", comm: 'upstream-ccm' };
}

const CLOUDS: readonly CloudKind[] = ['hcloud', 'linode', 'digitalocean', 'phoenixnap'];

describe.each(CLOUDS)('a %s conformance run', (cloud) => {
  it('opens TCP connections to loopback only', async () => {
    const { ccm, what, comm } = await ccmOf(cloud);
    console.log(`${cloud}: ${what}`);
    const sampling = startSampling(process.pid);
    // What leaves loopback is the question here, not adversity: those capabilities have suites of their own.
    const report = await runConformance({ cloud, ccm, runtime: 'local', timeoutMs: 60_000, exclude: ADVERSITY_CAPABILITIES }).finally(sampling.stop);
    const table = renderTable(ConformanceReport.parse(report));
    expect(report.results.filter((r) => r.verdict === 'fail').map((r) => r.capability), table).toEqual([]);
    expect(report.results.length).toBe(DEFAULT_CAPABILITIES.length - ADVERSITY_CAPABILITIES.length);
    const { connections, commands } = sampling.observed;
    // The sample saw the sandbox at work: the API server, simcloud (node) and the CCM held connections.
    for (const command of ['kube-apiserver', comm]) expect([...commands], [...connections].join('\n')).toContain(command);
    const elsewhere = [...connections].filter((c) => !isLoopbackPeer(c.slice(c.indexOf(' -> ') + 4)));
    expect(elsewhere, `${connections.size} connections sampled`).toEqual([]);
  }, 240_000);
});
