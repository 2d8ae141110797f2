import { describe, expect, it } from 'vitest';
import { readyState } from '../state-fixture.ts';
import { ccmStatus, cloudLines } from './status.ts';

const base = { kubeconfig: null, clusterCidr: null, simcloud: null };

describe("status's CCM line", () => {
  it('shows a command CCM on one line with its pid, liveness, restarts and last exit', async () => {
    const state = readyState({
      ...base,
      ccm: {
        kind: 'command',
        command: 'my-ccm \\\n  --v=2',
        url: null,
        pid: process.pid,
        restarts: 2,
        lastExit: { code: 1, signal: null, at: '2026-11-25T00:00:00.000Z' },
        kubeconfig: '/s/ccm/kubeconfig',
      },
    });
    expect(await ccmStatus(state)).toBe(`command \`my-ccm --v=2\` pid ${process.pid}  running  restarts 2, last exit code 1 at 2026-11-25T00:00:00.000Z`);
  });

  it('says when the slot is empty', async () => {
    const state = readyState({ ...base, ccm: { kind: 'none', url: null, pid: null } });
    expect(await ccmStatus(state)).toMatch(/^none: the slot is empty/);
  });
});

describe("status's cloud lines", () => {
  type Listing = Parameters<typeof cloudLines>[1];
  const server = { id: 'srv-00000007', name: 'demo-worker-1', status: 'running' } as Listing['servers'][number];
  const lb = (id: string, name: string, ip: string): Listing['lbs'][number] => ({ id, name, public_ipv4: ip, labels: {} }) as unknown as Listing['lbs'][number];
  const service = {
    metadata: { namespace: 'default', name: 'web', uid: 'u1', annotations: {} },
    status: { loadBalancer: { ingress: [{ ip: '127.17.0.1' }] } },
  };
  const none = { blocks: [], groups: [], policies: [] };
  const row = (kind: string, name: string, what: string, rest: string): string => `  ${kind.padEnd(15)} ${name.padEnd(28)} ${what.padEnd(10)} ${rest}`;

  it("shows each resource in the cloud's words beside simcloud's id, and the Service a load balancer made by any CCM belongs to", () => {
    const state = readyState({ ...base, cloud: 'linode', ccm: { kind: 'upstream', url: null, pid: null } });
    expect(
      cloudLines(state, { servers: [server], lbs: [lb('lb-00000010', 'a0123', '127.17.0.1'), lb('lb-00000011', 'stray', '127.17.0.2')], ...none }, [service]),
    ).toEqual([
      'Cloud: 1 servers, 2 load balancers, 0 server groups, 0 firewall policies, 0 IP blocks',
      row('server', 'demo-worker-1', 'running', 'srv-00000007 = Linode: Linode 7'),
      row('load balancer', 'a0123', '127.17.0.1', 'lb-00000010 = Linode: NodeBalancer 10  Service default/web'),
      row('load balancer', 'stray', '127.17.0.2', 'lb-00000011 = Linode: NodeBalancer 11  no Service'),
    ]);
  });

  it('names a Brightbox server group and firewall policy and a phoenixNAP IP block as those clouds do', () => {
    const group = { id: 'grp-00000003', name: 'svc-web', servers: ['srv-00000007'] } as unknown as Listing['groups'][number];
    const policy = { id: 'fwp-00000004', name: 'svc-web', rules: [{}, {}] } as unknown as Listing['policies'][number];
    const bb = readyState({ ...base, cloud: 'brightbox', ccm: { kind: 'command', command: 'ccm', url: null, pid: null } });
    expect(cloudLines(bb, { servers: [], lbs: [], ...none, groups: [group], policies: [policy] }, []).slice(1)).toEqual([
      row('server group', 'svc-web', '1 member', 'grp-00000003 = Brightbox: Server Group grp-00003'),
      row('firewall policy', 'svc-web', '2 rules', 'fwp-00000004 = Brightbox: Firewall Policy fwp-00004'),
    ]);
    const block = { id: 'ipb-00000002', cidr: '127.18.0.0/29', status: 'assigned' } as unknown as Listing['blocks'][number];
    const pnap = readyState({ ...base, cloud: 'phoenixnap', ccm: { kind: 'upstream', url: null, pid: null } });
    expect(cloudLines(pnap, { servers: [], lbs: [], ...none, blocks: [block] }, [])[1]).toMatch(
      /^ {2}IP block +127\.18\.0\.0\/29 +assigned +ipb-00000002 = phoenixNAP: IP Block [0-9a-f]{24}$/,
    );
  });

  it('shows simcloud ids alone on simcloud', () => {
    expect(cloudLines(readyState({ ...base, ccm: { kind: 'builtin', url: null, pid: null } }), { servers: [server], lbs: [], ...none }, [])[1]).toMatch(
      /srv-00000007$/,
    );
  });
});
