// The differential test: one scenario (nodes join, one powered off, one deleted, LoadBalancer Services
// created, updated and deleted, routes) on two fresh sandboxes, one with our CCM and one with upstream's
// Go CCM, one after the other. The end states are compared leaf by leaf after replacing what must differ
// (ids, addresses, UIDs, node ports) by the role it plays. Every difference must be a deviation listed in
// deploy/README.md, and every listed deviation must still occur. DIFFERENTIAL_DUMP=<file> writes both
// end states as JSON, to see what a new difference is about.
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../../sandbox/kube/pooled-kubeconfig.ts';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CcmKind } from '../../sandbox/ccm/slot.ts';
import { createE2eSandbox } from '../helpers/sandbox.ts';
import { compare, differentialTable, readDeviations } from './deviations.ts';
import { runScenario } from './scenario.ts';
import { callLeaves, type Snapshot } from './snapshot.ts';
import { CallLog } from '../../scripts/bench/calls.ts';

const CLUSTER = 'diff';

async function runOn(kind: Extract<CcmKind, 'builtin' | 'upstream'>): Promise<Snapshot> {
  const { sandbox, stop } = await createE2eSandbox({ name: CLUSTER, workers: 3, ccm: { kind } });
  // From before the CCM starts, so node initialisation's calls are seen too.
  const calls = new CallLog();
  sandbox.subscribe((event) => calls.handle(event));
  try {
    await sandbox.up();
    const kc = new PooledKubeConfig();
    kc.loadFromFile(sandbox.cluster?.kubeconfigPath ?? '');
    const core = kc.makeApiClient(CoreV1Api);
    const snapshot = await runScenario({
      core,
      leases: kc.makeApiClient(CoordinationV1Api),
      cloud: sandbox.client,
      cluster: CLUSTER,
      log: (m) => process.stdout.write(`[${kind}] ${m}\n`),
    });
    callLeaves(calls.ccmCalls(0), snapshot);
    return snapshot;
  } finally {
    await stop();
  }
}

describe('our CCM against upstream k8s.io/cloud-provider on the same scenario', () => {
  it('differs only where deploy/README.md lists a deviation, and every listed deviation still occurs', async () => {
    const deviations = readDeviations();
    const ours = await runOn('builtin');
    const upstream = await runOn('upstream');
    const verdict = compare(ours, upstream, deviations);
    if (process.env.DIFFERENTIAL_DUMP) writeFileSync(process.env.DIFFERENTIAL_DUMP, JSON.stringify({ ours: [...ours], upstream: [...upstream] }, null, 1));
    process.stdout.write(`\ndifferential table (ours = builtin, upstream = go/cmd/upstream-ccm)\n${differentialTable(verdict)}\n\n`);
    // Both runs reached the scenario's end state: nodes, Services and cloud resources were all seen.
    for (const prefix of ['node/', 'service/', 'event/', 'cloud/load_balancer/', 'cloud/network/']) {
      expect(
        [...ours.keys()].some((k) => k.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    expect(verdict.unlisted.map((d) => `${d.path}: ours ${d.ours ?? '(absent)'}, upstream ${d.upstream ?? '(absent)'}`)).toEqual([]);
    expect(verdict.stale.map((d) => `${d.id} no longer occurs: ${d.paths.join(', ')}`)).toEqual([]);
  });
});
