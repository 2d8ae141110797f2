// The interception proxy's certificate authority: new for every sandbox, name-constrained (RFC 5280 4.2.1.10,
// critical) to the real API hostnames the sandbox has personas for, so a client that trusts it trusts it for
// those names and nothing else; a certificate it issued for any other name fails verification in Go, OpenSSL
// and browsers alike. Its certificate and key are written to the sandbox directory (key 0600); one serving
// certificate per hostname is issued on first use and kept in memory.
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs it loaded first
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, NameConstraints, id_ce_nameConstraints } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import { createCa, issue, privatePem, type Issuer, type PemPair } from '../control-plane/pki.ts';
import { privateDir } from '../state.ts';

/** The CA's files in its directory. */
export const CA_FILES = { cert: 'ca.pem', key: 'ca-key.pem' } as const;

export interface InterceptCa {
  /** The CA certificate, PEM: what a client's trust store (SSL_CERT_FILE) holds. */
  readonly certPem: string;
  /** Where the CA certificate was written, when it was. */
  readonly certFile: string | undefined;
  /** A serving certificate for `host` (one of the constrained names), issued once. */
  servingPair(host: string): Promise<PemPair>;
}

/** The name-constraints extension permitting exactly the DNS subtrees `hosts`. */
function nameConstraints(hosts: readonly string[]): x509.Extension {
  const permitted = new GeneralSubtrees(hosts.map((h) => new GeneralSubtree({ base: new GeneralName({ dNSName: h }) })));
  return new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(new NameConstraints({ permittedSubtrees: permitted })));
}

/**
 * A new CA for `hosts`; with `dir`, its certificate and key are written there (the directory 0700, the key 0600).
 * Serving certificates are only for names in `hosts`.
 */
export async function createInterceptCa(hosts: readonly string[], dir?: string): Promise<InterceptCa> {
  if (hosts.length === 0) throw new Error('an interception CA needs at least one hostname');
  const ca: Issuer = await createCa('ccm-sandbox interception CA', [nameConstraints(hosts)]);
  const certPem = ca.cert.toString('pem');
  let certFile: string | undefined;
  if (dir !== undefined) {
    privateDir(dir);
    certFile = join(dir, CA_FILES.cert);
    writeFileSync(join(dir, CA_FILES.key), await privatePem(ca.keys.privateKey), { mode: 0o600 });
    writeFileSync(certFile, certPem, { mode: 0o600 });
  }
  const issued = new Map<string, Promise<PemPair>>();
  return {
    certPem,
    certFile,
    servingPair(host) {
      if (!hosts.includes(host)) return Promise.reject(new Error(`the interception CA issues no certificate for ${host}`));
      let pair = issued.get(host);
      if (pair === undefined) {
        pair = issue(ca, { subject: `CN=${host}`, usage: 'server', dnsNames: [host] });
        issued.set(host, pair);
      }
      return pair;
    },
  };
}
