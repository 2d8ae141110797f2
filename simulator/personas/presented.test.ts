import { describe, expect, it } from 'vitest';
import type { Sim } from '../server/context.ts';
import { presentDigitalOceanPrivateIp } from './digitalocean/addresses.ts';
import { hcloudAddresses, loopbackTarget, presentHcloudPrivateIp } from './hcloud/addresses.ts';
import { presentedBlock, presentedBlockOf } from './presented.ts';

// Only the pool is read.
const sim = { store: { state: { pools: { private_networks: '127.23.0.0/16' } } } } as unknown as Sim;

describe('a presented block (ADR 0013)', () => {
  const { show, back } = presentedBlock('127.23.0.9', '10.0.0.0/16');

  it.each([
    ['an address', show.ip, '127.23.4.5', '10.0.4.5'],
    ['a CIDR', show.cidr, '127.23.4.0/24', '10.0.4.0/24'],
    ['the whole /16', show.cidr, '127.23.0.0/16', '10.0.0.0/16'],
    ['ip:port', show.hostPort, '127.23.4.5:30080', '10.0.4.5:30080'],
    ['an address back', back.ip, '10.0.4.5', '127.23.4.5'],
    ['a CIDR back', back.cidr, '10.0.4.0/24', '127.23.4.0/24'],
    ['ip:port back', back.hostPort, '10.0.4.5:30080', '127.23.4.5:30080'],
  ])('moves %s', (_what, f, from, to) => {
    expect(f(from)).toBe(to);
  });

  it.each([
    ['another /16 of loopback', show.ip, '127.24.4.5'],
    ['a public address', show.ip, '192.0.2.1'],
    ['IPv6', show.ip, '2001:db8::1'],
    ['a range wider than the block', show.cidr, '127.0.0.0/8'],
    ['IPv6 CIDR', show.cidr, '2001:db8::/64'],
    ['a pod CIDR', back.cidr, '10.244.1.0/24'],
    ['an address of another RFC 1918 range', back.ip, '10.1.4.5'],
    ['not an address', back.ip, 'node-a'],
  ])('leaves %s as it is', (_what, f, value) => {
    expect(f(value)).toBe(value);
  });

  it('says which addresses it holds', () => {
    expect([back.holds('10.0.9.9'), back.holds('10.1.9.9'), show.holds('127.23.9.9'), show.holds('::1')]).toEqual([true, false, true, false]);
  });

  it('uses the /16 of the private pool of a simcloud', () => {
    expect(presentedBlockOf(sim, '10.110.0.0/16').show.ip('127.23.1.2')).toBe('10.110.1.2');
  });
});

describe("the personas' blocks", () => {
  it('shows Hetzner network addresses in 10.0.0.0/16 and DigitalOcean VPC addresses in 10.110.0.0/16', () => {
    expect(presentHcloudPrivateIp('127.23.1.2')).toBe('10.0.1.2');
    expect(presentDigitalOceanPrivateIp('127.23.1.2')).toBe('10.110.1.2');
    expect(hcloudAddresses(sim).back.ip('10.0.1.2')).toBe('127.23.1.2');
  });

  it('takes a Hetzner IP target back and leaves other targets as they are', () => {
    expect(loopbackTarget(sim, { type: 'ip', ip: { ip: '10.0.1.2' } })).toEqual({ type: 'ip', ip: { ip: '127.23.1.2' } });
    const server: { type: string; server: { id: number }; ip?: { ip: string } } = { type: 'server', server: { id: 4 } };
    expect(loopbackTarget(sim, server)).toBe(server);
  });
});
