// PROXY protocol header encoders (HAProxy spec, versions 1 and 2), pure. The listener writes the
// header to the target before any client byte. `src` is the client, `dst` the VIP:listenPort the
// client connected to. IPv4-mapped IPv6 addresses are sent as IPv4; mixed families fall back to
// UNKNOWN (v1) / AF_UNSPEC (v2), which tells the receiver to use the real connection addresses.
import ipaddr from 'ipaddr.js';

export interface Endpoint {
  address: string;
  port: number;
}

export const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V2_VERSION_PROXY = 0x21;
const V2_TCP4 = 0x11;
const V2_TCP6 = 0x21;
const V2_UNSPEC = 0x00;

interface ParsedPair {
  family: 'ipv4' | 'ipv6';
  src: ipaddr.IPv4 | ipaddr.IPv6;
  dst: ipaddr.IPv4 | ipaddr.IPv6;
}

function pair(src: Endpoint, dst: Endpoint): ParsedPair | null {
  try {
    const s = ipaddr.process(src.address);
    const d = ipaddr.process(dst.address);
    if (s.kind() !== d.kind()) return null;
    return { family: s.kind(), src: s, dst: d };
  } catch {
    return null;
  }
}

function text(addr: ipaddr.IPv4 | ipaddr.IPv6): string {
  return addr.kind() === 'ipv4' ? addr.toString() : (addr as ipaddr.IPv6).toRFC5952String();
}

/** `PROXY TCP4 <src> <dst> <srcport> <dstport>\r\n` (TCP6 for IPv6). */
export function encodeProxyV1(src: Endpoint, dst: Endpoint): Buffer {
  const p = pair(src, dst);
  if (p === null) return Buffer.from('PROXY UNKNOWN\r\n', 'latin1');
  const proto = p.family === 'ipv4' ? 'TCP4' : 'TCP6';
  return Buffer.from(`PROXY ${proto} ${text(p.src)} ${text(p.dst)} ${src.port} ${dst.port}\r\n`, 'latin1');
}

/** Binary v2 header: signature, 0x21 (v2, PROXY), 0x11 TCP/IPv4 or 0x21 TCP/IPv6, length, addresses, ports. */
export function encodeProxyV2(src: Endpoint, dst: Endpoint): Buffer {
  const p = pair(src, dst);
  if (p === null) return Buffer.concat([V2_SIGNATURE, Buffer.from([V2_VERSION_PROXY, V2_UNSPEC, 0, 0])]);
  const srcBytes = p.src.toByteArray();
  const dstBytes = p.dst.toByteArray();
  const body = Buffer.alloc(srcBytes.length * 2 + 4);
  body.set(srcBytes, 0);
  body.set(dstBytes, srcBytes.length);
  body.writeUInt16BE(src.port, srcBytes.length * 2);
  body.writeUInt16BE(dst.port, srcBytes.length * 2 + 2);
  const head = Buffer.alloc(4);
  head[0] = V2_VERSION_PROXY;
  head[1] = p.family === 'ipv4' ? V2_TCP4 : V2_TCP6;
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([V2_SIGNATURE, head, body]);
}

export type ProxyProtocolVersion = 'none' | 'v1' | 'v2';

export function encodeProxyHeader(version: ProxyProtocolVersion, src: Endpoint, dst: Endpoint): Buffer | null {
  if (version === 'v1') return encodeProxyV1(src, dst);
  if (version === 'v2') return encodeProxyV2(src, dst);
  return null;
}
