/**
 * The CCM's self-signed serving certificate, built with node:crypto alone: an ECDSA P-256 key and an X.509
 * v3 certificate DER-encoded here (RFC 5280: TBSCertificate, validity, SANs, key usages). Upstream makes
 * the same kind of in-memory certificate when no certificate is given. A certificate library would cost the
 * CCM about 9 MB of resident memory for this one call (docs/adr/0004).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';

/** DER: tag, definite length, content. */
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  if (n > 0xffff) throw new RangeError('DER value too long for this encoder');
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const octets = (b: Buffer): Buffer => tlv(0x04, b);
const bits = (b: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 + n, inner);

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A positive INTEGER from unsigned big-endian bytes. */
function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && (b[1] ?? 0) < 0x80) b = b.subarray(1);
  return tlv(0x02, (b[0] ?? 0) >= 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

/** UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

const TRUE = tlv(0x01, Buffer.from([0xff]));

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [TRUE] : []), octets(value));
}

export interface SelfSignedOptions {
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  readonly ipv4: readonly string[];
  readonly validFrom: Date;
  readonly validUntil: Date;
}

/** A self-signed serving certificate and its key, both PEM. Throws on an empty or malformed subject-alternative-name list. */
export function selfSignedServingCertificate(o: SelfSignedOptions): { cert: string; key: string } {
  // RFC 5280 4.2.1.6: a subjectAltName extension must hold at least one name, and TLS clients match only SANs.
  if (o.dnsNames.length + o.ipv4.length === 0) throw new Error('a serving certificate needs at least one DNS name or IPv4 address');
  const badIp = o.ipv4.find((ip) => !isIPv4(ip));
  if (badIp !== undefined) throw new Error(`not an IPv4 address: ${JSON.stringify(badIp)}`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(set(seq(oid(OID.commonName), utf8(o.commonName))));
  const algorithm = seq(oid(OID.ecdsaWithSha256));
  const sans = [...o.dnsNames.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))), ...o.ipv4.map((ip) => tlv(0x87, Buffer.from(ip.split('.').map(Number))))];
  const extensions = seq(
    // cA FALSE is the default, so the sequence is empty.
    extension(OID.basicConstraints, true, seq()),
    // digitalSignature only (bit 0): what an ECDHE-ECDSA server key does.
    extension(OID.keyUsage, true, tlv(0x03, Buffer.from([0x07, 0x80]))),
    extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth))),
    extension(OID.subjectAltName, false, seq(...sans)),
  );
  const serial = randomBytes(8);
  serial[0] = (serial[0] ?? 0) & 0x7f || 1;
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    name,
    seq(time(o.validFrom), time(o.validUntil)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const der = seq(tbs, algorithm, bits(sign('sha256', tbs, privateKey)));
  const body = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return { cert: `-----BEGIN CERTIFICATE-----\n${body}-----END CERTIFICATE-----\n`, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
