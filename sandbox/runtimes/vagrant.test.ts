import { describe, expect, it } from 'vitest';
import { hostOnlyAddress, parseMachineReadableStatus, vagrantMachineNames, vagrantPowerArgs, vmReachableEndpoint } from './vagrant.ts';

const STATUS = `1763769600,ccm-control-plane,metadata,provider,virtualbox
1763769600,ccm-worker-1,metadata,provider,virtualbox
1763769600,,ui,info,Current machine states:
1763769600,ccm-control-plane,provider-name,virtualbox
1763769600,ccm-control-plane,state,running
1763769600,ccm-control-plane,state-human-short,running
1763769600,ccm-control-plane,state-human-long,The VM is running. To stop this VM%!(VAGRANT_COMMA) you can run \`vagrant halt\`
1763769600,ccm-worker-1,provider-name,virtualbox
1763769600,ccm-worker-1,state,poweroff
`;

describe('vagrant helpers', () => {
  it('parses machine-readable status', () => {
    expect(parseMachineReadableStatus(STATUS)).toEqual([
      { name: 'ccm-control-plane', state: 'running', provider: 'virtualbox' },
      { name: 'ccm-worker-1', state: 'poweroff', provider: 'virtualbox' },
    ]);
  });

  it('picks the host-only address out of hostname -I', () => {
    expect(hostOnlyAddress('10.0.2.15 192.168.56.11 10.244.1.0 fd00::1 \n', '192.168.56')).toBe('192.168.56.11');
    expect(hostOnlyAddress('10.0.2.15\n', '192.168.56')).toBeUndefined();
  });

  it('names machines like the Vagrantfile', () => {
    expect(vagrantMachineNames('ccm', 2)).toEqual(['ccm-control-plane', 'ccm-worker-1', 'ccm-worker-2']);
  });

  it('maps power actions to vagrant commands', () => {
    expect(vagrantPowerArgs('poweroff', 'm', 'libvirt')).toEqual(['halt', 'm']);
    expect(vagrantPowerArgs('poweron', 'm', 'libvirt')).toEqual(['up', 'm', '--provider', 'libvirt', '--no-provision']);
    expect(vagrantPowerArgs('reboot', 'm', 'virtualbox')).toEqual(['reload', 'm', '--no-provision']);
    expect(vagrantPowerArgs('delete', 'm', 'virtualbox')).toEqual(['destroy', '-f', 'm']);
  });

  it('rewrites a loopback simcloud URL to the host-only host address', () => {
    expect(vmReachableEndpoint('http://127.0.0.1:41234', '192.168.56')).toBe('http://192.168.56.1:41234');
    expect(vmReachableEndpoint('http://localhost:8787/', '10.20.30')).toBe('http://10.20.30.1:8787');
    expect(vmReachableEndpoint('http://192.168.56.1:8787', '192.168.56')).toBe('http://192.168.56.1:8787');
  });
});
