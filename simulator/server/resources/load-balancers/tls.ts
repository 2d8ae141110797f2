/**
 * The TLS material of load-balancer services: a certificate and key are checked when set (both PEM, the
 * key the certificate's own), the key is never answered (REDACTED_KEY), and a service sent back with the
 * redacted key keeps the key stored for its listen port. Also reads what views show of a certificate.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { REDACTED_KEY, type LoadBalancerService, type ServiceTls } from '../../../api/schema/load-balancers.ts';
import { invalidField } from '../../errors.ts';

/** The first certificate of a PEM chain (the server's). */
export function leafCertificate(chain: string): X509Certificate {
  const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(chain)?.[0];
  if (first === undefined) throw new Error('no PEM certificate');
  return new X509Certificate(first);
}

/** Why a certificate and key cannot serve, or null when they can. */
export function tlsProblem(tls: ServiceTls): { field: 'certificate' | 'private_key'; message: string } | null {
  let cert: X509Certificate;
  try {
    cert = leafCertificate(tls.certificate);
  } catch (err) {
    return { field: 'certificate', message: `not a PEM certificate: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(tls.private_key))) return { field: 'private_key', message: 'is not the key of the certificate' };
  } catch (err) {
    return { field: 'private_key', message: `not a PEM private key: ${err instanceof Error ? err.message : String(err)}` };
  }
  return null;
}

/** `services` as they will be stored: a redacted key replaced by the stored one of the same port, every certificate checked. */
export function withTls(services: readonly LoadBalancerService[], stored: readonly LoadBalancerService[], field = 'services'): LoadBalancerService[] {
  return services.map((s, i) => {
    if (s.tls == null) return s;
    const key = s.tls.private_key === REDACTED_KEY ? stored.find((x) => x.listen_port === s.listen_port)?.tls?.private_key : s.tls.private_key;
    if (key === undefined) throw invalidField(`${field}.${i}.tls.private_key`, 'no key is stored for this port: send the key itself');
    const tls = { certificate: s.tls.certificate, private_key: key };
    const problem = tlsProblem(tls);
    if (problem !== null) throw invalidField(`${field}.${i}.tls.${problem.field}`, problem.message);
    return { ...s, tls };
  });
}

/** Services as answered: private keys redacted. */
export function redacted(services: readonly LoadBalancerService[]): LoadBalancerService[] {
  return services.map((s) => (s.tls == null ? s : { ...s, tls: { ...s.tls, private_key: REDACTED_KEY } }));
}
