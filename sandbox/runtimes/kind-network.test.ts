import { describe, expect, it } from 'vitest';
import { createExec } from '../exec.ts';
import { ensureDockerNetwork, kindNetworkPlan, lbHostInstructions, loopbackNodeAddress } from './kind-network.ts';

describe('kindNetworkPlan', () => {
  it('Linux: a dedicated bridge network, containers in the lower half, VIPs in the top /24', () => {
    expect(kindNetworkPlan({}, 'linux')).toEqual({
      mode: 'bridge',
      dockerNetwork: 'ccm-sandbox-kind',
      subnet: '172.30.0.0/16',
      gateway: '172.30.0.1',
      containerRange: '172.30.0.0/17',
      vipRange: '172.30.255.0/24',
      bridge: 'ccmsbx0',
      mappedPorts: [],
    });
    expect(kindNetworkPlan({ subnet: '10.99.0.0/23' }, 'linux')).toMatchObject({
      containerRange: '10.99.0.0/24',
      vipRange: '10.99.1.0/24',
      gateway: '10.99.0.1',
    });
  });

  it('rejects subnets too small to hold both containers and VIPs, and IPv6', () => {
    expect(() => kindNetworkPlan({ subnet: '10.99.0.0/24' }, 'linux')).toThrow(/\/23 or larger/);
    expect(() => kindNetworkPlan({ subnet: 'fd00::/64' }, 'linux')).toThrow(/IPv4/);
  });

  it("macOS: port mapping to loopback on kind's own network", () => {
    const plan = kindNetworkPlan({}, 'darwin');
    expect(plan).toMatchObject({ mode: 'port-mapping', dockerNetwork: 'kind', subnet: '127.10.0.0/16', vipRange: '127.1.0.0/16' });
    expect([0, 1, 2].map((i) => loopbackNodeAddress(plan, i))).toEqual(['127.10.0.10', '127.10.0.11', '127.10.0.12']);
  });

  it('prints the exact host commands for the VIPs', () => {
    const lines = lbHostInstructions(kindNetworkPlan({}, 'linux')).join('\n');
    expect(lines).toContain('sudo ip addr add <VIP>/32 dev ccmsbx0');
    expect(lines).toContain('sudo ip route add local 172.30.255.0/24 dev ccmsbx0');
    expect(lbHostInstructions(kindNetworkPlan({}, 'darwin')).join('\n')).toContain('sudo ifconfig lo0 alias 127.10.0.10');
  });
});

describe('ensureDockerNetwork', () => {
  it('creates the network when docker network inspect fails', async () => {
    const exec = createExec({ dryRun: true, responder: (r) => (r.args[1] === 'inspect' ? { exitCode: 1, stderr: 'not found' } : {}) });
    expect(await ensureDockerNetwork(exec, kindNetworkPlan({}, 'linux'))).toBe('created');
    expect(exec.records[1]?.args).toEqual(
      expect.arrayContaining(['create', '--subnet', '172.30.0.0/16', '--ip-range', '172.30.0.0/17', 'com.docker.network.bridge.name=ccmsbx0']),
    );
  });

  it('keeps a network with the right subnet and refuses one with another subnet', async () => {
    const answer = (subnet: string) => (): { stdout: string } => ({
      stdout: JSON.stringify([{ Name: 'ccm-sandbox-kind', IPAM: { Config: [{ Subnet: subnet, Gateway: '172.30.0.1' }] } }]),
    });
    const exists = createExec({ dryRun: true, responder: answer('172.30.0.0/16') });
    expect(await ensureDockerNetwork(exists, kindNetworkPlan({}, 'linux'))).toBe('exists');
    // The subnet check is skipped in dry runs (there is no real network), so present the fake as a real exec.
    const exec = createExec({ dryRun: true, responder: answer('172.18.0.0/16') });
    const realish = {
      dryRun: false,
      records: exec.records,
      run: exec.run.bind(exec),
      spawn: exec.spawn.bind(exec),
      spawnDetached: exec.spawnDetached.bind(exec),
    };
    await expect(ensureDockerNetwork(realish, kindNetworkPlan({}, 'linux'))).rejects.toThrow(
      /exists with subnet\(s\) 172\.18\.0\.0\/16, not 172\.30\.0\.0\/16/,
    );
  });
});
