/**
 * Certificate rules, shared by every API that uploads certificates: a certificate is checked when uploaded
 * (a PEM chain and the private key of its first certificate), its name is unique in the project, it is
 * named by load-balancer services (`certificate_id`), and it cannot be deleted while a load balancer uses it.
 * Also what a view reads from the PEM (fingerprints, validity, names), so no view stores a copy of it.
 */
import { X509Certificate, createHash } from 'node:crypto';
import type { CertificateView } from '../../../api/schema/certificates.ts';
import type { ListMeta } from '../../../api/schema/common.ts';
import { REDACTED_KEY } from '../../../api/schema/load-balancers.ts';
import { newIds, nowIso, type Caller, type Sim } from '../../context.ts';
import { conflict, invalidField } from '../../errors.ts';
import type { CertificateRec, LoadBalancerRec } from '../../store/state.ts';
import { getOwned, listOwned, ownedRecords, withAttrs, type AttrSlices, type ListQuery } from '../common.ts';
import { leafCertificate, tlsProblem } from '../load-balancers/tls.ts';

/** What a view shows of a certificate, read from its PEM. */
export interface CertificateFacts {
  /** SHA-1 and SHA-256 of the leaf's DER, lower-case hex without separators. */
  sha1: string;
  sha256: string;
  notBefore: string;
  notAfter: string;
  /** The leaf's DNS subject alternative names, else its common name. */
  dnsNames: string[];
  subject: string;
  issuer: string;
}

export function certificateFacts(pem: string): CertificateFacts {
  const leaf = leafCertificate(pem);
  const dns = (leaf.subjectAltName ?? '').split(', ').flatMap((n) => (n.startsWith('DNS:') ? [n.slice(4)] : []));
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(leaf.subject)?.[1];
  return {
    sha1: createHash('sha1').update(leaf.raw).digest('hex'),
    sha256: createHash('sha256').update(leaf.raw).digest('hex'),
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    dnsNames: dns.length > 0 ? dns : cn === undefined ? [] : [cn],
    subject: leaf.subject.replace(/\n/g, ', '),
    issuer: leaf.issuer.replace(/\n/g, ', '),
  };
}

/** The request fields a persona calls the chain and the key (for the field an error names). */
export interface PemFields {
  certificate: string;
  private_key: string;
}

export interface NewCertificate {
  name: string;
  labels?: Record<string, string>;
  certificate: string;
  private_key: string;
}

/**
 * The chain as TLS will read it: every PEM certificate in it, each checked, one per block (a chain pasted
 * without a newline between two certificates is still the chain), else the problem.
 */
function pemChain(pem: string): { chain: string } | { problem: string } {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  for (const [i, b] of blocks.entries()) {
    try {
      new X509Certificate(b);
    } catch (err) {
      return { problem: `certificate ${i + 1} of the chain is not a PEM certificate: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  return blocks.length === 0 ? { problem: 'not a PEM certificate' } : { chain: `${blocks.join('\n')}\n` };
}

/** Uploads a certificate: the chain and key checked (errors name `fields`), the name unique in the project. */
export async function createCertificate(
  sim: Sim,
  caller: Caller,
  body: NewCertificate,
  opts: { fields?: PemFields; attrs?: AttrSlices } = {},
): Promise<CertificateRec> {
  const fields = opts.fields ?? { certificate: 'certificate', private_key: 'private_key' };
  const chain = pemChain(body.certificate);
  if ('problem' in chain) throw invalidField(fields.certificate, chain.problem);
  const problem = tlsProblem({ certificate: chain.chain, private_key: body.private_key });
  if (problem !== null) throw invalidField(fields[problem.field], problem.message);
  // An expired server certificate would be refused by every client at the handshake: say so at upload.
  const notAfter = leafCertificate(chain.chain).validToDate;
  if (notAfter.getTime() <= sim.clock.now()) throw invalidField(fields.certificate, `expired on ${notAfter.toISOString()}`);
  checkName(sim, caller, body.name);
  const { ids, change } = newIds(sim, 'crt');
  const doc = withAttrs<CertificateRec>(
    {
      id: ids[0]!,
      project_id: caller.projectId,
      name: body.name,
      labels: body.labels ?? {},
      certificate: chain.chain,
      private_key: body.private_key,
      created: nowIso(sim),
    },
    opts.attrs ?? {},
  );
  await sim.store.commit([change, { op: 'put', coll: 'certificates', doc }]);
  return doc;
}

function checkName(sim: Sim, caller: Caller, name: string, selfId?: string): void {
  if (ownedRecords(sim, caller, 'certificates').some((c) => c.name === name && c.id !== selfId)) throw conflict(`a certificate named ${name} exists`, 'name');
}

/** Renames or relabels a certificate (its PEMs never change: upload another instead). */
export async function updateCertificate(
  sim: Sim,
  caller: Caller,
  id: string,
  body: { name?: string; labels?: Record<string, string> },
): Promise<CertificateRec> {
  const cert = getOwned(sim, caller, 'certificates', id);
  if (body.name !== undefined) checkName(sim, caller, body.name, id);
  const doc = { ...cert, ...(body.name === undefined ? {} : { name: body.name }), ...(body.labels === undefined ? {} : { labels: body.labels }) };
  await sim.store.commit([{ op: 'put', coll: 'certificates', doc }]);
  return doc;
}

/** The load balancers with a service terminating TLS with certificate `id`. */
export function certificateUsers(sim: Sim, id: string): LoadBalancerRec[] {
  return sim.store.all('load_balancers').filter((lb) => lb.services.some((s) => s.certificate_id === id));
}

/** Deletes a certificate no load balancer uses (else a conflict naming them). */
export async function deleteCertificate(sim: Sim, caller: Caller, id: string): Promise<void> {
  getOwned(sim, caller, 'certificates', id);
  const users = certificateUsers(sim, id);
  if (users.length > 0)
    throw conflict(`certificate ${id} is in use by load balancer ${users.map((lb) => lb.id).join(', ')}: remove it from their services first`);
  await sim.store.commit([{ op: 'del', coll: 'certificates', id }]);
}

/** A certificate as simcloud's /v1 shows it (facts read from the chain, the load balancers using it, never the key). */
export function certificateView(sim: Sim, c: CertificateRec): CertificateView {
  const f = certificateFacts(c.certificate);
  return {
    id: c.id,
    name: c.name,
    labels: c.labels,
    certificate: c.certificate,
    fingerprint_sha256: f.sha256,
    not_valid_before: f.notBefore,
    not_valid_after: f.notAfter,
    domain_names: f.dnsNames,
    used_by: certificateUsers(sim, c.id).map((lb) => lb.id),
    created: c.created,
  };
}

export function listCertificates(sim: Sim, caller: Caller, q: ListQuery): { certificates: CertificateView[]; meta: ListMeta } {
  const { items, meta } = listOwned<CertificateRec>(sim, caller, { coll: 'certificates', type: 'certificate', q });
  return { certificates: items.map((c) => certificateView(sim, c)), meta };
}

export const getCertificate = (sim: Sim, caller: Caller, id: string): CertificateView => certificateView(sim, getOwned(sim, caller, 'certificates', id));

/** A certificate as answered by simcloud: its key redacted. */
export const redactedCertificate = (c: CertificateRec): CertificateRec => ({ ...c, private_key: REDACTED_KEY });
