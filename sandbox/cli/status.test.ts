import { describe, expect, it } from 'vitest';
import { SandboxState } from '../state.ts';
import { ccmStatus, cloudLines } from './status.ts';

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

describe("status's cloud lines", () => {
  const server = { id: 'srv-00000007', name: 'demo-worker-1', status: 'running' } as Parameters<typeof cloudLines>[1]['servers'][number];
  const lb = (id: string, name: string, ip: string): Parameters<typeof cloudLines>[1]['lbs'][number] =>
    ({ id, name, public_ipv4: ip, labels: {} }) as unknown as Parameters<typeof cloudLines>[1]['lbs'][number];
  const service = { metadata: { namespace: 'default', name: 'web', uid: 'u1', annotations: {} }, status: { loadBalancer: { ingress: [{ ip: '127.17.0.1' }] } } };

  it("shows each resource's persona id beside simcloud's, and the Service a load balancer made by any CCM belongs to", () => {
    const state = SandboxState.parse({ ...base, cloud: 'hcloud', ccm: { kind: 'upstream', url: null, pid: null } });
    expect(cloudLines(state, { servers: [server], lbs: [lb('lb-00000010', 'a0123', '127.17.0.1'), lb('lb-00000011', 'stray', '127.17.0.2')], blocks: 0 }, [service])).toEqual([
      'Cloud: 1 servers, 2 load balancers, 0 IP blocks',
      `  server        ${'demo-worker-1'.padEnd(28)} ${'running'.padEnd(10)} srv-00000007 = hcloud 7`,
      `  load balancer ${'a0123'.padEnd(28)} 127.17.0.1 lb-00000010 = hcloud 10  Service default/web`,
      `  load balancer ${'stray'.padEnd(28)} 127.17.0.2 lb-00000011 = hcloud 11  no Service`,
    ]);
  });

  it('shows simcloud ids alone on simcloud', () => {
    expect(cloudLines(SandboxState.parse({ ...base, ccm: { kind: 'builtin', url: null, pid: null } }), { servers: [server], lbs: [], blocks: 0 }, [])[1]).toMatch(/srv-00000007$/);
  });
});
