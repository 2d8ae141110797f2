// Test support: one ready sandbox's state, as the daemon writes it, for tests of what is printed from a state
// file (summary, status, the CCM slot). Each test overrides the fields it is about.
import { SandboxState } from './state.ts';

/** The fields every state has; `kubeconfig`, `clusterCidr` and `simcloud` are those of a started local sandbox. */
export const READY_STATE_FIELDS = {
  name: 'demo',
  runtime: 'local',
  status: 'ready',
  pid: 1,
  startedAt: 't',
  readyAt: 't',
  error: null,
  steps: [],
  workers: 2,
  lbStrategy: 'lb',
  kubeconfig: '/s/demo/kubeconfig',
  clusterCidr: '10.244.0.0/16',
  simcloud: { url: 'http://127.0.0.1:4600', token: 'tok', adminToken: 'adm', pid: 2 },
  consoleUrl: null,
  logs: {},
} as const;

/** A parsed state: the ready sandbox above with `overrides` applied (shallow). */
export function readyState(overrides: Record<string, unknown> = {}): SandboxState {
  return SandboxState.parse({ ...READY_STATE_FIELDS, ...overrides });
}
