// ADR 0013: the Linode persona presents RFC 1918 addresses (192.168.128.0/17, 10.0.0.0/16) but no packet
// goes to one. While a Linode conformance run goes (our Go CCM's linode provider, whose Nodes carry
// 192.168.x.y InternalIPs and whose NodeBalancers are given them), every TCP connection the sandbox's
// processes (this process and everything it started: simcloud, etcd, kube-apiserver, the CCM, ...) hold
// is sampled from /proc; every peer must be in 127.0.0.0/8 (or ::1). With LINODE_CCM_BINARY set (Linode's
// own CCM, built by hand: CI cannot build it), the run uses that binary with the printed command line.
import { describe, expect, it } from 'vitest';
import type { CcmChoice } from '../../sandbox/ccm/slot.ts';
import { linodeCcmCommand } from '../../sandbox/cloud/linode/env.ts';
import { CAPABILITIES } from '../../sandbox/conformance/capabilities.ts';
import { ConformanceReport, renderTable } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';
import { isLoopbackPeer, startSampling } from '../helpers/proc-net.ts';

const binary = process.env.LINODE_CCM_BINARY;
const ccm: CcmChoice = binary ? { kind: 'command', command: linodeCcmCommand(binary) } : { kind: 'upstream' };
// /proc/<pid>/comm keeps 15 characters of a command's name.
const ccmCommand = binary ? 'linode-cloud-co' : 'upstream-ccm';

describe('a Linode conformance run', () => {
  it(`opens TCP connections to loopback only (${ccm.kind} CCM)`, async () => {
    const sampling = startSampling(process.pid);
    const report = await runConformance({ cloud: 'linode', ccm, runtime: 'local', timeoutMs: 60_000 }).finally(sampling.stop);
    const table = renderTable(ConformanceReport.parse(report));
    expect(report.results.filter((r) => r.verdict === 'fail').map((r) => r.capability), table).toEqual([]);
    expect(report.results.length).toBe(CAPABILITIES.length);
    const { connections, commands } = sampling.observed;
    // The sample saw the sandbox at work: the API server, simcloud (node) and the CCM held connections.
    for (const command of ['kube-apiserver', ccmCommand]) expect([...commands], [...connections].join('\n')).toContain(command);
    const elsewhere = [...connections].filter((c) => !isLoopbackPeer(c.slice(c.indexOf(' -> ') + 4)));
    expect(elsewhere, `${connections.size} connections sampled`).toEqual([]);
  });
});
