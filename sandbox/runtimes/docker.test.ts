import { describe, expect, it } from 'vitest';
import { dockerPowerArgs, parseInspect } from './docker.ts';

const INSPECT = JSON.stringify([
  {
    Id: 'f3b1',
    Name: '/ccm-worker2',
    State: { Status: 'running', Running: true },
    Config: { Labels: { 'io.x-k8s.kind.cluster': 'ccm', 'io.x-k8s.kind.role': 'worker' } },
    NetworkSettings: {
      Ports: { '30080/tcp': [{ HostIp: '127.10.0.12', HostPort: '30080' }], '30081/tcp': [{ HostIp: '127.10.0.12', HostPort: '30081' }], '80/tcp': null },
      Networks: { 'ccm-sandbox-kind': { IPAddress: '172.30.0.4', GlobalIPv6Address: 'fc00:f853:ccd:e793::4' } },
    },
  },
  { Name: '/stopped', State: { Status: 'exited', Running: false }, Config: { Labels: null }, NetworkSettings: { Networks: { kind: { IPAddress: '' } } } },
]);

describe('parseInspect', () => {
  it('reads name, state, labels, addresses per network and published host addresses', () => {
    expect(parseInspect(INSPECT)).toEqual([
      {
        name: 'ccm-worker2',
        running: true,
        labels: { 'io.x-k8s.kind.cluster': 'ccm', 'io.x-k8s.kind.role': 'worker' },
        networks: { 'ccm-sandbox-kind': { ipv4: '172.30.0.4', ipv6: 'fc00:f853:ccd:e793::4' } },
        publishedOn: ['127.10.0.12'],
      },
      { name: 'stopped', running: false, labels: {}, networks: { kind: { ipv4: null, ipv6: null } }, publishedOn: [] },
    ]);
  });

  it('empty output is no containers; non-arrays are an error', () => {
    expect(parseInspect('')).toEqual([]);
    expect(() => parseInspect('{}')).toThrow(/JSON array/);
  });
});

describe('dockerPowerArgs', () => {
  it('maps each cloud power action to the docker command on the node container', () => {
    expect(dockerPowerArgs('poweroff', 'n')).toEqual(['stop', 'n']);
    expect(dockerPowerArgs('poweron', 'n')).toEqual(['start', 'n']);
    expect(dockerPowerArgs('reboot', 'n')).toEqual(['restart', 'n']);
    expect(dockerPowerArgs('delete', 'n')).toEqual(['rm', '-f', 'n']);
  });
});
