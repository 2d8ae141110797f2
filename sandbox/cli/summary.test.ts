import { describe, expect, it } from 'vitest';
import { SandboxState } from '../state.ts';
import { renderSummary, stepLines } from './summary.ts';

const base = {
  name: 'demo',
  runtime: 'local',
  status: 'ready',
  pid: 1,
  error: null,
  workers: 2,
  lbStrategy: 'lb',
  kubeconfig: '/s/demo/kubeconfig',
  clusterCidr: '10.244.0.0/16',
  simcloud: null,
  ccm: null,
  consoleUrl: null,
  logs: {},
};
const at = (s: number): string => new Date(Date.parse('2026-01-01T00:00:00.000Z') + s * 1000).toISOString();

describe('the steps in the summary', () => {
  const state = SandboxState.parse({
    ...base,
    startedAt: at(0),
    readyAt: at(4.4),
    // In the order they finished, as up() records them.
    steps: [
      { name: 'simcloud', startedAt: at(0.1), durationMs: 500, detail: 'http://127.0.0.1:4600' },
      { name: 'control plane (local)', startedAt: at(0.1), durationMs: 2900, detail: 'API ready' },
      { name: 'ccm (builtin)', startedAt: at(3.0), durationMs: 700 },
      { name: 'cluster (local)', startedAt: at(0.6), durationMs: 3300, detail: '3 machines' },
    ],
    phases: [
      { name: 'kube-apiserver', startedAt: at(0.2), durationMs: 2700 },
      { name: 'machines created', startedAt: at(0.6), durationMs: 2100 },
    ],
  });

  it('says how long it took to be ready, wall time, not the sum of steps that overlapped', () => {
    expect(renderSummary(state).split('\n')[0]).toBe('ccm-sandbox "demo" is ready (local runtime, lb strategy lb) after 4.4 s');
  });

  it('lists the steps in the order they started, with when and how long, then the phases within them', () => {
    expect(stepLines(state)).toEqual([
      '  simcloud                        0.5 s at +0.1 s    http://127.0.0.1:4600',
      '  control plane (local)           2.9 s at +0.1 s    API ready',
      '  cluster (local)                 3.3 s at +0.6 s    3 machines',
      '  ccm (builtin)                   0.7 s at +3.0 s',
      '  (within: kube-apiserver 2.7 s, machines created 2.1 s)',
    ]);
  });

  it('sums the steps of a state file from before steps had start times', () => {
    const old = SandboxState.parse({
      ...base,
      startedAt: 't',
      readyAt: 't',
      steps: [
        { name: 'simcloud', durationMs: 500 },
        { name: 'cluster (local)', durationMs: 9500 },
      ],
    });
    expect(renderSummary(old).split('\n')[0]).toMatch(/ after 10\.0 s$/);
    expect(stepLines(old)).toEqual(['  simcloud                        0.5 s', '  cluster (local)                 9.5 s']);
  });
});
