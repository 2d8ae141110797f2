/**
 * TLS certificates: a certificate chain (PEM, the server's first) and its private key, kept once in the store
 * whichever API uploaded it (DigitalOcean's and Hetzner's certificates), and named by load-balancer services
 * (`certificate_id`) that terminate TLS with it. What a view shows of one (fingerprints, validity, names) is
 * read from the PEM; the key is write-only (REDACTED_KEY in every answer and event).
 */
import { z } from 'zod';
import { Id, Labels, Name, Timestamp } from './common.ts';

/** A PEM certificate chain, the server's certificate first. */
export const CertificatePem = z.string().min(1).max(65_536).includes('-----BEGIN CERTIFICATE-----', { message: 'must be a PEM certificate chain' });
/** A PEM private key. */
export const PrivateKeyPem = z.string().min(1).max(16_384);

export const Certificate = z.object({
  id: Id,
  name: Name,
  labels: Labels,
  certificate: CertificatePem,
  private_key: PrivateKeyPem,
  created: Timestamp,
});
export type Certificate = z.infer<typeof Certificate>;
