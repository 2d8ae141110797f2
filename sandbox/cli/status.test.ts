import { describe, expect, it } from 'vitest';
import { SandboxState } from '../state.ts';
import { ccmStatus } from './status.ts';

const base = {
  name: 'demo', runtime: 'local', status: 'ready', pid: 1, startedAt: 't', readyAt: 't', error: null, steps: [], workers: 2, lbStrategy: 'lb',
  kubeconfig: null, clusterCidr: null, simcloud: null, consoleUrl: null, logs: {},
};

describe("status's CCM line", () => {
  it('shows a command CCM on one line with its pid, liveness, restarts and last exit', async () => {
    const state = SandboxState.parse({
      ...base,
      ccm: { kind: 'command', command: 'my-ccm \\\n  --v=2', url: null, pid: process.pid, restarts: 2, lastExit: { code: 1, signal: null, at: '2026-11-25T00:00:00.000Z' }, kubeconfig: '/s/ccm/kubeconfig' },
    });
    expect(await ccmStatus(state)).toBe(`command \`my-ccm --v=2\` pid ${process.pid}  running  restarts 2, last exit code 1 at 2026-11-25T00:00:00.000Z`);
  });

  it('says when the slot is empty', async () => {
    const state = SandboxState.parse({ ...base, ccm: { kind: 'none', url: null, pid: null } });
    expect(await ccmStatus(state)).toMatch(/^none: the slot is empty/);
  });
});
