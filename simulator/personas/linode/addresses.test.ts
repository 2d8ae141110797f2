import { describe, expect, it } from 'vitest';
import type { Sim } from '../../server/context.ts';
import { loopbackNode, loopbackOf, presentedOf, presentPrivateIp } from './addresses.ts';

// Only the pool is read.
const sim = { store: { state: { pools: { private_networks: '127.23.0.0/16' } } } } as unknown as Sim;

describe('Linode presented addresses (ADR 0013)', () => {
  it('shows a pool address as the private IPv4 and as the VPC address, and takes both back', () => {
    const shown = presentedOf(sim);
    const back = loopbackOf(sim);
    for (const ip of ['127.23.0.2', '127.23.5.9', '127.23.127.254']) {
      expect(back.ip(shown.ip(ip))).toBe(ip);
      expect(back.ip(shown.ip(ip, 'vpc'))).toBe(ip);
    }
    expect(shown.ip('127.23.5.9')).toBe('192.168.133.9');
    expect(shown.ip('127.23.5.9', 'vpc')).toBe('10.0.5.9');
    expect(presentPrivateIp('127.23.5.9')).toBe('192.168.133.9');
  });

  it('leaves what is outside the presented blocks as it is', () => {
    const shown = presentedOf(sim);
    const back = loopbackOf(sim);
    expect(shown.ip('127.23.200.1')).toBe('127.23.200.1');
    expect(shown.ip('127.20.0.1')).toBe('127.20.0.1');
    expect(back.ip('192.168.1.1')).toBe('192.168.1.1');
    expect(back.cidr('10.244.1.0/24')).toBe('10.244.1.0/24');
    expect(back.cidr('127.0.0.0/8')).toBe('127.0.0.0/8');
    expect(shown.cidr('127.0.0.0/8')).toBe('127.0.0.0/8');
  });

  it('takes ranges and node addresses back, remembering how a node was given', () => {
    const back = loopbackOf(sim);
    expect(back.cidr('192.168.130.0/24')).toBe('127.23.2.0/24');
    expect(back.cidr('10.0.2.0/24')).toBe('127.23.2.0/24');
    expect(presentedOf(sim).cidr('127.23.2.0/24', 'vpc')).toBe('10.0.2.0/24');
    expect(loopbackNode(sim, { address: '10.0.2.7:30080', label: 'n' })).toEqual({ address: '127.23.2.7:30080', label: 'n', presented: 'vpc' });
    expect(loopbackNode(sim, { address: '192.168.130.7:30080' })).toEqual({ address: '127.23.2.7:30080', presented: 'private' });
    expect(loopbackNode(sim, { address: '127.23.2.7:30080' })).toEqual({ address: '127.23.2.7:30080' });
    expect(presentedOf(sim).hostPort('127.23.2.7:30080', 'vpc')).toBe('10.0.2.7:30080');
  });
});
