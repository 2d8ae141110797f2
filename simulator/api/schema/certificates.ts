/**
 * TLS certificates: a certificate chain (PEM, the server's first) and its private key, kept once in the store
 * whichever API uploaded it (DigitalOcean's and Hetzner's certificates), and named by load-balancer services
 * (`certificate_id`) that terminate TLS with it. What a view shows of one (fingerprints, validity, names) is
 * read from the PEM; the key is write-only (REDACTED_KEY in every answer and event).
 */
import { z } from 'zod';
import { Id, Labels, ListMeta, Name, Timestamp } from './common.ts';

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

/** A certificate as simcloud's /v1 answers it: what TLS clients will see, read from the chain; never the key. */
export const CertificateView = z.object({
  id: Id,
  name: Name,
  labels: Labels,
  certificate: CertificatePem,
  /** SHA-256 of the server certificate's DER, lower-case hex. */
  fingerprint_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  not_valid_before: Timestamp,
  not_valid_after: Timestamp,
  /** The server certificate's DNS names (its common name when it has none). */
  domain_names: z.array(z.string()),
  /** The load balancers with a service terminating TLS with it (it cannot be deleted while any does). */
  used_by: z.array(Id),
  created: Timestamp,
});
export type CertificateView = z.infer<typeof CertificateView>;

export const CreateCertificateRequest = z.strictObject({
  name: Name,
  labels: Labels.optional(),
  /** The chain, server certificate first; it must be valid now (simcloud's clock) and match `private_key`. */
  certificate: CertificatePem,
  private_key: PrivateKeyPem,
});
export type CreateCertificateRequest = z.infer<typeof CreateCertificateRequest>;

export const UpdateCertificateRequest = z.strictObject({ name: Name.optional(), labels: Labels.optional() });
export type UpdateCertificateRequest = z.infer<typeof UpdateCertificateRequest>;

export const CertificateResponse = z.object({ certificate: CertificateView });
export const CertificateListResponse = z.object({ certificates: z.array(CertificateView), meta: ListMeta });
