import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedServingCertificate } from './self-signed.ts';

describe('selfSignedServingCertificate', () => {
  const validFrom = new Date('2026-11-25T10:00:00Z');
  const { cert, key } = selfSignedServingCertificate({
    commonName: 'cloud-controller-manager',
    dnsNames: ['localhost'],
    ipv4: ['127.0.0.1'],
    validFrom,
    validUntil: new Date('2051-01-02T03:04:05Z'),
  });
  const x = new X509Certificate(cert);

  it('is a self-signed leaf that OpenSSL parses and verifies with its own key', () => {
    expect(x.subject).toBe('CN=cloud-controller-manager');
    expect(x.issuer).toBe(x.subject);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.ca).toBe(false);
    expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true);
  });

  it('names localhost and 127.0.0.1 and serves TLS servers only', () => {
    expect(x.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(x.checkHost('localhost')).toBe('localhost');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('encodes validity as UTCTime before 2050 and GeneralizedTime after', () => {
    expect(new Date(x.validFrom).toISOString()).toBe('2026-11-25T10:00:00.000Z');
    expect(new Date(x.validTo).toISOString()).toBe('2051-01-02T03:04:05.000Z');
  });

  it('uses a fresh key and serial each time', () => {
    const other = new X509Certificate(
      selfSignedServingCertificate({ commonName: 'c', dnsNames: [], ipv4: ['127.0.0.1'], validFrom, validUntil: new Date('2027-01-01Z') }).cert,
    );
    expect(other.serialNumber).not.toBe(x.serialNumber);
    expect(other.fingerprint256).not.toBe(x.fingerprint256);
  });

  it('refuses an empty subject-alternative-name list and a malformed address instead of making an invalid certificate', () => {
    const base = { commonName: 'c', validFrom, validUntil: new Date('2027-01-01Z') };
    expect(() => selfSignedServingCertificate({ ...base, dnsNames: [], ipv4: [] })).toThrow('needs at least one DNS name or IPv4 address');
    expect(() => selfSignedServingCertificate({ ...base, dnsNames: [], ipv4: ['300.0.0.1'] })).toThrow('not an IPv4 address: "300.0.0.1"');
  });
});
