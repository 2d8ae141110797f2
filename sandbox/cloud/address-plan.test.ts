import { describe, expect, it } from 'vitest';
import { loopbackAddressPlan } from './address-plan.ts';

describe('loopback address plans', () => {
  it('gives each pool its own /16 of loopback starting at the base', () => {
    expect(loopbackAddressPlan(200)).toEqual({
      simcloudArgs: ['--pool=server_public=127.200.0.0/18', '--pool=lb_vip=127.201.0.0/16', '--pool=ip_block=127.202.0.0/16', '--pool=private_networks=127.203.0.0/16'],
      networkRange: '127.203.0.0/16',
    });
  });

  it('refuses a base without room for four /16s', () => {
    expect(() => loopbackAddressPlan(253)).toThrow(/from 3 to 252/);
    expect(() => loopbackAddressPlan(1.5)).toThrow(RangeError);
  });
});
