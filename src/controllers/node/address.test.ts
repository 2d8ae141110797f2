import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { desiredNodeAddresses, filterNodeAddressesByNodeIP, nodeAddressesChangeDetected, parseNodeIPAnnotation } from './address.ts';

const a = (type: string, address: string): { type: string; address: string } => ({ type, address });

describe('provided node IP', () => {
  it('parses one IP or a dual-stack pair strictly', () => {
    expect(parseNodeIPAnnotation('10.0.0.1')).toEqual(['10.0.0.1']);
    expect(parseNodeIPAnnotation('10.0.0.1,fd00::0001')).toEqual(['10.0.0.1', 'fd00::1']);
    expect(() => parseNodeIPAnnotation('10.0.0.1,10.0.0.2')).toThrow('dual-stack');
    expect(() => parseNodeIPAnnotation('0.0.0.0,fd00::1')).toThrow("cannot include '0.0.0.0' or '::'");
    expect(() => parseNodeIPAnnotation('1.1.1.1,fd00::1,2.2.2.2')).toThrow('1 or 2');
    expect(() => parseNodeIPAnnotation('nope')).toThrow('as an IP address');
  });

  it('keeps matching addresses first and drops other addresses of the enforced type', () => {
    const cloud = [a('InternalIP', '10.0.0.1'), a('InternalIP', '10.0.0.2'), a('ExternalIP', '1.2.3.4'), a('Hostname', 'h')];
    expect(filterNodeAddressesByNodeIP('10.0.0.2', cloud)).toEqual([a('InternalIP', '10.0.0.2'), a('ExternalIP', '1.2.3.4'), a('Hostname', 'h')]);
    expect(() => filterNodeAddressesByNodeIP('10.9.9.9', cloud)).toThrow('failed to get node address from cloud provider that matches ip: 10.9.9.9');
  });
});

describe('address change detection', () => {
  it('ignores order, detects length and value changes', () => {
    expect(nodeAddressesChangeDetected([a('InternalIP', '1'), a('Hostname', 'h')], [a('Hostname', 'h'), a('InternalIP', '1')])).toBe(false);
    expect(nodeAddressesChangeDetected([a('InternalIP', '1')], [a('InternalIP', '2')])).toBe(true);
    expect(nodeAddressesChangeDetected([a('InternalIP', '1')], [a('InternalIP', '1'), a('Hostname', 'h')])).toBe(true);
  });

  it('skips when the cloud has no addresses; keeps the kubelet Hostname when the cloud has none', () => {
    const node: V1Node = { metadata: { name: 'n' }, status: { addresses: [a('Hostname', 'kubelet-h')] } };
    expect(desiredNodeAddresses(node, [])).toEqual({ action: 'skip', skip: 'no-cloud-addresses', reason: 'cloud returned no addresses' });
    expect(desiredNodeAddresses(node, [a('InternalIP', '10.0.0.1')])).toEqual({
      action: 'update',
      addresses: [a('InternalIP', '10.0.0.1'), a('Hostname', 'kubelet-h')],
    });
    expect(desiredNodeAddresses(node, [a('Hostname', 'cloud-h')])).toEqual({ action: 'update', addresses: [a('Hostname', 'cloud-h')] });
  });

  it('skips (keeps addresses) when the annotation matches nothing', () => {
    const node: V1Node = { metadata: { name: 'n', annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.9.9.9' } }, status: { addresses: [] } };
    expect(desiredNodeAddresses(node, [a('InternalIP', '10.0.0.1')]).action).toBe('skip');
  });
});
