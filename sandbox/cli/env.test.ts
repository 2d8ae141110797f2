import { describe, expect, it } from 'vitest';
import { SandboxState } from '../state.ts';
import { envLines } from './env.ts';
import { ownCcmLines } from './summary.ts';

const state = SandboxState.parse({
  name: 'demo',
  runtime: 'local',
  status: 'ready',
  pid: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  readyAt: null,
  error: null,
  steps: [],
  workers: 2,
  lbStrategy: 'lb',
  kubeconfig: null,
  clusterCidr: null,
  ccm: null,
  consoleUrl: null,
  logs: {},
  simcloud: { url: 'http://127.0.0.1:8787', token: 'sbx-token', adminToken: 'sbx-admin', pid: 2 },
  intercept: { url: 'http://127.0.0.1:9999', caFile: '/s/demo/intercept/ca.pem' },
});

describe('sandbox:env', () => {
  it("prints the cloud's variables and, for a cloud with real hostnames, the interception proxy's", () => {
    const lines = envLines(state, 'phoenixnap');
    expect(lines).toContain('export HTTPS_PROXY=http://127.0.0.1:9999');
    expect(lines).toContain('export SSL_CERT_FILE=/s/demo/intercept/ca.pem');
    expect(lines).toContain('export NO_PROXY=127.0.0.1,127.0.0.0/8,localhost,::1');
    expect(lines).toContain('export PNAP_CLIENT_SECRET=sbx-token');
  });

  it("prints the local runtime's kubeconfig as MGMT_KUBECONFIG: the cluster is its own Cluster API management cluster", () => {
    expect(envLines({ ...state, kubeconfig: '/s/demo/kubeconfig' }, 'linode')).toContain('export MGMT_KUBECONFIG=/s/demo/kubeconfig');
    expect(envLines({ ...state, runtime: 'kind', kubeconfig: '/k' }, 'linode').some((l) => l.includes('MGMT_KUBECONFIG'))).toBe(false);
  });

  it("prints no proxy for simcloud's own API, which has no real hostname", () => {
    const lines = envLines(state, 'simcloud');
    expect(lines.some((l) => l.startsWith('export HTTPS_PROXY='))).toBe(false);
    expect(lines).toContain('export SIMCLOUD_TOKEN=sbx-token');
  });
});

describe('the --ccm none lines', () => {
  it("give a CCM for a cloud with real hostnames the interception proxy's environment", () => {
    const none = SandboxState.parse({
      ...state,
      cloud: 'phoenixnap',
      clusterCidr: '10.244.0.0/16',
      ccm: { kind: 'none', url: null, pid: null, kubeconfig: '/s/demo/ccm/kubeconfig' },
    });
    const lines = ownCcmLines(none);
    expect(lines).toContain('  export HTTPS_PROXY=http://127.0.0.1:9999');
    expect(lines).toContain('  export SSL_CERT_FILE=/s/demo/intercept/ca.pem');
    expect(lines).toContain('  export CCM_SANDBOX_CCM_DIR=/s/demo/ccm');
  });
});
