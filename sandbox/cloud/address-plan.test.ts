import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAIMABLE_BASES, claimLoopbackAddressPlan, loopbackAddressPlan } from './address-plan.ts';

describe('loopback address plans', () => {
  it('gives each pool its own /16 of loopback starting at the base', () => {
    expect(loopbackAddressPlan(200)).toEqual({
      pools: { server_public: '127.200.0.0/18', lb_vip: '127.201.0.0/16', ip_block: '127.202.0.0/16', private_networks: '127.203.0.0/16' },
      simcloudArgs: [
        '--pool=server_public=127.200.0.0/18',
        '--pool=lb_vip=127.201.0.0/16',
        '--pool=ip_block=127.202.0.0/16',
        '--pool=private_networks=127.203.0.0/16',
      ],
      networkRange: '127.203.0.0/16',
    });
  });

  it('refuses a base without room for four /16s', () => {
    expect(() => loopbackAddressPlan(253)).toThrow(/from 3 to 252/);
    expect(() => loopbackAddressPlan(1.5)).toThrow(RangeError);
  });
});

describe('claiming an address plan', () => {
  const roots: string[] = [];
  const lockRoot = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'address-plan-test-'));
    roots.push(dir);
    return dir;
  };
  afterEach(() => roots.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('hands two claimants different plans, and a released plan to the next claimant', () => {
    const root = lockRoot();
    const a = claimLoopbackAddressPlan(root);
    const b = claimLoopbackAddressPlan(root);
    expect(b.base).not.toBe(a.base);
    expect(b.plan.networkRange).not.toBe(a.plan.networkRange);
    a.release();
    expect(claimLoopbackAddressPlan(root).base).toBe(a.base);
  });

  it('takes over a plan whose holder died, but not one whose holder lives', () => {
    const root = lockRoot();
    const [first, second] = CLAIMABLE_BASES;
    mkdirSync(join(root, `base-${first}`));
    writeFileSync(join(root, `base-${first}`, 'pid'), String(process.pid));
    mkdirSync(join(root, `base-${second}`));
    // No live process has a pid this large on Linux (pid_max is at most 2^22).
    writeFileSync(join(root, `base-${second}`, 'pid'), String(2 ** 30));
    expect(claimLoopbackAddressPlan(root).base).toBe(second);
  });

  it('says so when every plan is held', () => {
    const root = lockRoot();
    for (const base of CLAIMABLE_BASES) {
      mkdirSync(join(root, `base-${base}`));
      writeFileSync(join(root, `base-${base}`, 'pid'), String(process.pid));
    }
    expect(() => claimLoopbackAddressPlan(root)).toThrow(/held by a live process/);
  });

  it('keeps every claimable plan clear of simcloud default pools and inside 127.0.0.0/8', () => {
    for (const base of CLAIMABLE_BASES) {
      const octets = [base, base + 1, base + 2, base + 3];
      expect(octets.some((o) => [0, 1, 2, 10].includes(o) || o > 255)).toBe(false);
    }
  });
});
