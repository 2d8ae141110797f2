// PROXY protocol (v1 text, v2 binary) decoder for whoever receives connections from a simcloud load
// balancer: the sandbox's NodePort stand-ins and the tests. Written independently of the data plane's
// encoders so tests check the bytes on the wire against the spec. parseProxyHeader() returns null while
// the buffer is incomplete; isProxyHeaderStart() tells whether a connection starts with a header at all.
export interface ParsedProxyHeader {
  version: 1 | 2;
  /** 'TCP4' | 'TCP6' | 'UNKNOWN' */
  protocol: string;
  srcAddress: string;
  dstAddress: string;
  srcPort: number;
  dstPort: number;
  /** Bytes taken by the header; the client's payload starts here. */
  length: number;
}

const SIG = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];

function parseV1(buf: Buffer): ParsedProxyHeader | null {
  const end = buf.indexOf('\r\n');
  if (end < 0) return null;
  const fields = buf.subarray(0, end).toString('latin1').split(' ');
  if (fields[0] !== 'PROXY') throw new Error(`not a PROXY v1 header: ${fields.join(' ')}`);
  const [, protocol = '', src = '', dst = '', sport = '0', dport = '0'] = fields;
  return { version: 1, protocol, srcAddress: src, dstAddress: dst, srcPort: Number(sport), dstPort: Number(dport), length: end + 2 };
}

function ipv6(bytes: Buffer): string {
  const parts: string[] = [];
  for (let i = 0; i < 16; i += 2) parts.push(bytes.readUInt16BE(i).toString(16));
  return parts.join(':');
}

function parseV2(buf: Buffer): ParsedProxyHeader | null {
  if (buf.length < 16) return null;
  if (buf[12] !== 0x21) throw new Error(`bad v2 version/command 0x${buf[12]?.toString(16)}`);
  const family = buf[13];
  const len = buf.readUInt16BE(14);
  if (buf.length < 16 + len) return null;
  const body = buf.subarray(16, 16 + len);
  if (family === 0x11) {
    return {
      version: 2,
      protocol: 'TCP4',
      srcAddress: [...body.subarray(0, 4)].join('.'),
      dstAddress: [...body.subarray(4, 8)].join('.'),
      srcPort: body.readUInt16BE(8),
      dstPort: body.readUInt16BE(10),
      length: 16 + len,
    };
  }
  if (family === 0x21) {
    return {
      version: 2,
      protocol: 'TCP6',
      srcAddress: ipv6(body.subarray(0, 16)),
      dstAddress: ipv6(body.subarray(16, 32)),
      srcPort: body.readUInt16BE(32),
      dstPort: body.readUInt16BE(34),
      length: 16 + len,
    };
  }
  return { version: 2, protocol: 'UNKNOWN', srcAddress: '', dstAddress: '', srcPort: 0, dstPort: 0, length: 16 + len };
}

export function parseProxyHeader(buf: Buffer): ParsedProxyHeader | null {
  const prefix = buf.subarray(0, Math.min(buf.length, 12));
  if (prefix.every((b, i) => b === SIG[i])) return buf.length < 12 ? null : parseV2(buf);
  return parseV1(buf);
}

/** Whether the bytes received so far begin (or could begin) a PROXY header rather than payload. */
export function isProxyHeaderStart(buf: Buffer): boolean {
  const v1 = Buffer.from('PROXY ');
  const n = Math.min(buf.length, 12);
  if (buf.subarray(0, n).every((b, i) => b === SIG[i])) return true;
  return buf.subarray(0, Math.min(buf.length, v1.length)).equals(v1.subarray(0, Math.min(buf.length, v1.length)));
}
