/**
 * Hetzner persona: certificates (list with name, label and type filters, create, get, update name and labels,
 * delete) over simcloud's one certificate store. An `uploaded` certificate is its PEM chain and private key,
 * checked when created (invalid_input naming the field). A `managed` one is refused (invalid_input naming
 * `type`): Hetzner issues it through Let's Encrypt with DNS it controls, and nothing here leaves loopback.
 * A certificate a load balancer service uses cannot be deleted.
 */
import { z } from 'zod';
import { Labels, Name } from '../../api/schema/common.ts';
import { CertificatePem, PrivateKeyPem } from '../../api/schema/certificates.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { SimcloudError, invalidField } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import * as certs from '../../server/resources/certificates/service.ts';
import { listOwned } from '../../server/resources/common.ts';
import type { CertificateRec } from '../../server/store/state.ts';
import { NumericIdParams, numericIdOf } from '../numeric-ids.ts';
import { PREFIX, owned, sid, simListQuery } from './common.ts';
import { HcloudError } from './errors.ts';
import { Certificate, NoContent, list, one } from './responses.ts';
import { ListQuery, UpdateBody } from './schemas.ts';

const CertificateQuery = ListQuery.extend({ type: z.enum(['uploaded', 'managed']).optional() });

export const CreateCertificateBody = z.strictObject({
  name: Name,
  type: z.enum(['uploaded', 'managed']).optional(),
  certificate: CertificatePem.optional(),
  private_key: PrivateKeyPem.optional(),
  domain_names: z.array(z.string().max(253)).max(100).optional(),
  labels: Labels.optional(),
});
type CreateCertificateBody = z.infer<typeof CreateCertificateBody>;

/** Hetzner's fingerprint: SHA-256 of the leaf, colon-separated lower-case hex pairs. */
const colons = (hex: string): string => hex.replace(/(..)(?=.)/g, '$1:');

export function certificateView(sim: Sim, c: CertificateRec): Certificate {
  const f = certs.certificateFacts(c.certificate);
  return {
    id: numericIdOf(c.id),
    name: c.name,
    labels: c.labels,
    type: 'uploaded',
    certificate: c.certificate,
    created: c.created,
    not_valid_before: f.notBefore,
    not_valid_after: f.notAfter,
    domain_names: f.dnsNames,
    fingerprint: colons(f.sha256),
    status: null,
    used_by: certs.certificateUsers(sim, c.id).map((lb) => ({ id: numericIdOf(lb.id), type: 'load_balancer' })),
  };
}

async function create(sim: Sim, caller: Caller, b: CreateCertificateBody): Promise<{ certificate: Certificate; action: null }> {
  if (b.type === 'managed')
    throw invalidField('type', "managed certificates are not emulated (Hetzner issues them through Let's Encrypt and its DNS); create an uploaded one");
  if (b.certificate === undefined) throw invalidField('certificate', 'required for an uploaded certificate');
  if (b.private_key === undefined) throw invalidField('private_key', 'required for an uploaded certificate');
  const doc = await certs.createCertificate(sim, caller, { name: b.name, labels: b.labels, certificate: b.certificate, private_key: b.private_key });
  return { certificate: certificateView(sim, doc), action: null };
}

async function remove(sim: Sim, caller: Caller, n: number): Promise<void> {
  const c = owned(sim, caller, 'certificates', n);
  try {
    await certs.deleteCertificate(sim, caller, c.id);
  } catch (err) {
    if (err instanceof SimcloudError && err.code === 'conflict') throw new HcloudError('service_error', 'conflict', `certificate still in use: ${err.message}`);
    throw err;
  }
}

export const certificateRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/certificates`,
    operation: 'hcloud.certificates.list',
    summary: 'List certificates',
    query: CertificateQuery,
    response: list('certificates', Certificate),
    handle: (sim, { caller, query }) => {
      // Every certificate here is uploaded: a filter on managed lists none.
      const { items, meta } = listOwned<CertificateRec>(sim, caller, {
        coll: 'certificates',
        type: 'certificate',
        q: simListQuery(query),
        extra: () => query.type !== 'managed',
        extraKey: `type=${query.type ?? ''}`,
      });
      return { certificates: items.map((c) => certificateView(sim, c)), meta };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/certificates`,
    operation: 'hcloud.certificates.create',
    summary: 'Create an uploaded certificate',
    body: CreateCertificateBody,
    status: 201,
    response: z.strictObject({ certificate: Certificate, action: z.null() }),
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/certificates/:id`,
    operation: 'hcloud.certificates.get',
    summary: 'Get a certificate',
    params: NumericIdParams,
    response: one('certificate', Certificate),
    handle: (sim, { caller, params }) => ({ certificate: certificateView(sim, owned(sim, caller, 'certificates', params.id)) }),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/certificates/:id`,
    operation: 'hcloud.certificates.update',
    summary: 'Update name or labels',
    params: NumericIdParams,
    body: UpdateBody,
    response: one('certificate', Certificate),
    handle: async (sim, { caller, params, body }) => ({
      certificate: certificateView(sim, await certs.updateCertificate(sim, caller, sid('certificates', params.id), body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/certificates/:id`,
    operation: 'hcloud.certificates.delete',
    summary: 'Delete a certificate',
    params: NumericIdParams,
    status: 204,
    response: NoContent,
    handle: (sim, { caller, params }) => remove(sim, caller, params.id),
  }),
];
