/**
 * DigitalOcean persona: certificates (create, list with the name filter, get, delete) over simcloud's one
 * certificate store, addressed by UUIDs spelled from the store number like load balancers. A `custom`
 * certificate is the leaf and its chain with the private key, checked when uploaded; a `lets_encrypt` one is
 * refused (422 naming `type`), since issuing it would need DigitalOcean's DNS and an ACME server off loopback.
 * A certificate a load balancer uses cannot be deleted (422).
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { SimcloudError, invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { findOwned, ownedRecords } from '../../server/resources/common.ts';
import * as certs from '../../server/resources/certificates/service.ts';
import type { CertificateRec } from '../../server/store/state.ts';
import { Name } from '../../api/schema/common.ts';
import { CertificatePem, PrivateKeyPem } from '../../api/schema/certificates.ts';
import { simcloudId } from '../numeric-ids.ts';
import { ListQuery, PREFIX, UuidParams, doTime, numberOfUuid, pageOf, uuidOf } from './common.ts';
import { Certificate, NoContent, list, one } from './responses.ts';

export const CertificateBody = z.strictObject({
  name: Name,
  type: z.enum(['custom', 'lets_encrypt']).optional(),
  private_key: PrivateKeyPem.optional(),
  leaf_certificate: CertificatePem.optional(),
  certificate_chain: z.string().max(65_536).optional(),
  dns_names: z.array(z.string().max(253)).max(100).optional(),
});
export type CertificateBody = z.infer<typeof CertificateBody>;

/** The caller's certificate behind a UUID, else null. */
export function findCertificate(sim: Sim, caller: Caller, uuid: string): CertificateRec | null {
  const n = numberOfUuid(uuid);
  return (n === null ? undefined : findOwned(sim, caller, 'certificates', simcloudId('crt', n))) ?? null;
}

function ownedCertificate(sim: Sim, caller: Caller, uuid: string): CertificateRec {
  const c = findCertificate(sim, caller, uuid);
  if (c === null) throw notFound('certificate', uuid);
  return c;
}

export function certificateView(c: CertificateRec): Certificate {
  const f = certs.certificateFacts(c.certificate);
  return {
    id: uuidOf(c.id),
    name: c.name,
    not_after: doTime(f.notAfter),
    sha1_fingerprint: f.sha1,
    created_at: doTime(c.created),
    dns_names: f.dnsNames,
    state: 'verified',
    type: 'custom',
  };
}

async function create(sim: Sim, caller: Caller, b: CertificateBody): Promise<{ certificate: Certificate }> {
  if (b.type === 'lets_encrypt')
    throw invalidField('type', 'lets_encrypt is not emulated (issuing needs DigitalOcean DNS and an ACME server); upload a custom certificate');
  if (b.leaf_certificate === undefined) throw invalidField('leaf_certificate', 'required for a custom certificate');
  if (b.private_key === undefined) throw invalidField('private_key', 'required for a custom certificate');
  const chain =
    b.certificate_chain === undefined || b.certificate_chain === '' ? b.leaf_certificate : `${b.leaf_certificate.trimEnd()}\n${b.certificate_chain}`;
  const doc = await certs.createCertificate(
    sim,
    caller,
    { name: b.name, certificate: chain, private_key: b.private_key },
    {
      fields: { certificate: 'leaf_certificate', private_key: 'private_key' },
    },
  );
  return { certificate: certificateView(doc) };
}

async function remove(sim: Sim, caller: Caller, uuid: string): Promise<void> {
  const c = ownedCertificate(sim, caller, uuid);
  try {
    await certs.deleteCertificate(sim, caller, c.id);
  } catch (err) {
    // DigitalOcean refuses deleting a certificate a load balancer uses; this persona answers 422 as for a busy resource.
    if (err instanceof SimcloudError && err.code === 'conflict')
      throw new SimcloudError('locked', `certificate ${uuid} is in use by a load balancer: remove it from the forwarding rules first`);
    throw err;
  }
}

const CertificateListQuery = ListQuery.extend({ name: z.string().max(255).optional() });

export const certificateRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/certificates`,
    operation: 'digitalocean.certificates.list',
    summary: 'List certificates',
    query: CertificateListQuery,
    response: list('certificates', Certificate),
    handle: (sim, { caller, query }) => {
      const mine = ownedRecords(sim, caller, 'certificates').filter((c) => query.name === undefined || c.name === query.name);
      return pageOf({ key: 'certificates', extra: query.name === undefined ? {} : { name: query.name } }, mine.map(certificateView), query);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/certificates`,
    operation: 'digitalocean.certificates.create',
    summary: 'Upload a certificate',
    body: CertificateBody,
    status: 201,
    response: one('certificate', Certificate),
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/certificates/:id`,
    operation: 'digitalocean.certificates.get',
    summary: 'Get a certificate',
    params: UuidParams,
    response: one('certificate', Certificate),
    handle: (sim, { caller, params }) => ({ certificate: certificateView(ownedCertificate(sim, caller, params.id)) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/certificates/:id`,
    operation: 'digitalocean.certificates.delete',
    summary: 'Delete a certificate',
    params: UuidParams,
    status: 204,
    response: NoContent,
    handle: (sim, { caller, params }) => remove(sim, caller, params.id),
  }),
];
