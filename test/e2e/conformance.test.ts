// The conformance run (sandbox/conformance) as the e2e flows: one sandbox on the runtime in SANDBOX_RUNTIME
// (local by default) with the CCM in SANDBOX_CCM (builtin by default) on the cloud in SANDBOX_CLOUD
// (simcloud by default); the projects e2e-upstream, e2e-hcloud, e2e-linode, e2e-digitalocean and e2e-phoenixnap run it on
// the upstream Go CCM and each persona's provider. Node initialisation, load balancers with real traffic,
// annotations read back through the cloud's own API, node lifecycle, routes, and a leak check, in order.
// While it runs, every TCP connection of this process tree is sampled from /proc (ADR 0013): the personas
// present RFC 1918 addresses as data, and no peer may be off loopback. test/e2e/loopback.test.ts does the same
// for the clouds' own CCMs and for a run through the interception proxy.
import { describe, expect, it } from 'vitest';
import { cloudOf } from '../../sandbox/cloud/registry.ts';
import { isRuntimeChoice } from '../../sandbox/runtimes/factory.ts';
import { ADVERSITY_CAPABILITIES, CAPABILITIES as ALL, DEFAULT_CAPABILITIES as CAPABILITIES, type Capability } from '../../sandbox/conformance/capabilities.ts';
import { ConformanceReport, passed, renderTable, Verdict } from '../../sandbox/conformance/report.ts';
import { runConformance } from '../../sandbox/conformance/run.ts';
import { CI_ADVERSITY_WINDOWS } from '../helpers/adversity.ts';
import { offLoopback, startSampling } from '../helpers/proc-net.ts';
import { e2eCcm, e2eCloud } from '../helpers/sandbox.ts';

const cloud = cloudOf(e2eCloud());
const ccm = e2eCcm();
const runtime = process.env.SANDBOX_RUNTIME ?? 'local';

/** What our CCMs offer: everything, but Routes where the provider has none (Linode's, DigitalOcean's). */
const offers = (c: Capability): boolean => c !== 'routes' || ccm.kind === 'builtin' || cloud.upstream.routes;

/** The adversity capabilities run where acceptance asks for them: our CCM, and upstream's on simcloud and hcloud. */
const adversity = ccm.kind === 'builtin' || cloud.kind === 'simcloud' || cloud.kind === 'hcloud';
const exclude = adversity ? [] : ADVERSITY_CAPABILITIES;
/** lb-tls is opt-in for users (a second LoadBalancer Service); here it is checked wherever the cloud has TLS. */
const tls: readonly Capability[] = 'none' in cloud.conformance.tls ? [] : ['lb-tls'];
const checked = ALL.filter((c) => (CAPABILITIES.includes(c) && !exclude.includes(c)) || tls.includes(c));

/** A whole run: sandbox up, eight capabilities (a joining node may wait for a 100 s resync, a vanished one 90 s), teardown. */
const RUN_TIMEOUT_MS = 600_000;

describe(`conformance of the ${ccm.kind} CCM on ${cloud.kind}`, () => {
  it(
    `passes every capability it offers (${checked.filter(offers).join(', ')}) and reports the others as not offered`,
    async () => {
      if (!isRuntimeChoice(runtime) || runtime === 'auto') throw new Error(`SANDBOX_RUNTIME=${runtime}: use local, kind, vagrant or existing`);
      const kubeconfig = process.env.SANDBOX_KUBECONFIG;
      const sampling = startSampling(process.pid);
      const report = await runConformance({
        cloud: cloud.kind,
        ccm,
        runtime: runtime,
        timeoutMs: 60_000,
        exclude,
        include: tls,
        windows: CI_ADVERSITY_WINDOWS,
        ...(kubeconfig ? { kubeconfig } : {}),
      }).finally(sampling.stop);
      const table = renderTable(ConformanceReport.parse(report));
      const verdicts = Object.fromEntries(report.results.map((r) => [r.capability, r.verdict]));
      expect(verdicts, table).toEqual(Object.fromEntries(checked.map((c) => [c, offers(c) ? Verdict.pass : Verdict.notOffered])));
      expect(passed(report)).toBe(true);
      // The CCM did the work: load balancers and lifecycle took its cloud calls.
      for (const c of ['lb-basic', 'lifecycle'] as const) expect(report.results.find((r) => r.capability === c)?.cloudCalls, table).toBeGreaterThan(0);
      // The sample saw the sandbox at work, and every peer was on loopback (a runtime other than local may dial
      // its own machines: the check is the local runtime's).
      if (runtime === 'local') {
        for (const command of ['kube-apiserver', ...(ccm.kind === 'upstream' ? ['upstream-ccm'] : [])])
          expect([...sampling.observed.commands]).toContain(command);
        expect(offLoopback(sampling.observed), `${sampling.observed.connections.size} connections sampled`).toEqual([]);
      }
    },
    RUN_TIMEOUT_MS,
  );
});
