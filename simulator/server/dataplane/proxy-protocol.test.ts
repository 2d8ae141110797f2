import { describe, expect, it } from 'vitest';
import { encodeProxyHeader, encodeProxyV1, encodeProxyV2 } from './proxy-protocol.ts';
import { parseProxyHeader } from '../../api/proxy-protocol.ts';

const src = { address: '127.9.8.7', port: 40000 };
const dst = { address: '127.1.2.3', port: 443 };

describe('PROXY protocol v1', () => {
  it('encodes TCP4', () => {
    expect(encodeProxyV1(src, dst).toString()).toBe('PROXY TCP4 127.9.8.7 127.1.2.3 40000 443\r\n');
  });

  it('unmaps IPv4-mapped addresses and encodes TCP6', () => {
    expect(encodeProxyV1({ address: '::ffff:127.9.8.7', port: 1 }, dst).toString()).toBe('PROXY TCP4 127.9.8.7 127.1.2.3 1 443\r\n');
    expect(encodeProxyV1({ address: '::1', port: 1 }, { address: '::1', port: 2 }).toString()).toBe('PROXY TCP6 ::1 ::1 1 2\r\n');
  });

  it('falls back to UNKNOWN for mixed or invalid families', () => {
    expect(encodeProxyV1({ address: '::1', port: 1 }, dst).toString()).toBe('PROXY UNKNOWN\r\n');
    expect(encodeProxyV1({ address: 'x', port: 1 }, dst).toString()).toBe('PROXY UNKNOWN\r\n');
  });
});

describe('PROXY protocol v2', () => {
  it('encodes TCP over IPv4 byte for byte', () => {
    const buf = encodeProxyV2(src, dst);
    expect(buf.toString('hex')).toBe('0d0a0d0a000d0a515549540a' + '21' + '11' + '000c' + '7f090807' + '7f010203' + '9c40' + '01bb');
  });

  it('round-trips through the test parser', () => {
    const parsed = parseProxyHeader(Buffer.concat([encodeProxyV2(src, dst), Buffer.from('payload')]));
    expect(parsed).toEqual({ version: 2, protocol: 'TCP4', srcAddress: '127.9.8.7', dstAddress: '127.1.2.3', srcPort: 40000, dstPort: 443, length: 28 });
  });

  it('encodes TCP over IPv6 and AF_UNSPEC', () => {
    const v6 = parseProxyHeader(encodeProxyV2({ address: '::1', port: 5 }, { address: '::1', port: 6 }));
    expect(v6).toMatchObject({ protocol: 'TCP6', srcAddress: '0:0:0:0:0:0:0:1', srcPort: 5, dstPort: 6, length: 52 });
    const unspec = encodeProxyV2({ address: '::1', port: 5 }, dst);
    expect(unspec.subarray(12).toString('hex')).toBe('21000000');
  });
});

describe('encodeProxyHeader', () => {
  it('dispatches by version', () => {
    expect(encodeProxyHeader('none', src, dst)).toBeNull();
    expect(parseProxyHeader(encodeProxyHeader('v1', src, dst)!)).toMatchObject({ version: 1, protocol: 'TCP4', srcPort: 40000 });
    expect(parseProxyHeader(encodeProxyHeader('v2', src, dst)!)).toMatchObject({ version: 2, dstPort: 443 });
  });

  it('parser waits for a complete header', () => {
    const full = encodeProxyV2(src, dst);
    expect(parseProxyHeader(full.subarray(0, 20))).toBeNull();
    expect(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4'))).toBeNull();
  });
});
