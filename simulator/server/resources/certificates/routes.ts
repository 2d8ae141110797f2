/** Certificate routes under /v1: HTTP only (the rules live in service.ts, shared with the personas' uploads). */
import { CertificateListResponse, CertificateResponse, CreateCertificateRequest, UpdateCertificateRequest } from '../../../api/schema/certificates.ts';
import { ListParams } from '../../../api/schema/common.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import * as svc from './service.ts';

const base = '/v1/certificates';

export const certificateRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: base,
    operation: 'certificates.list',
    summary: 'List certificates',
    query: ListParams,
    response: CertificateListResponse,
    handle: (sim, { caller, query }) => svc.listCertificates(sim, caller, query),
  }),
  defineRoute({
    method: 'post',
    path: base,
    operation: 'certificates.create',
    summary: 'Upload a certificate (chain and key checked, not expired)',
    body: CreateCertificateRequest,
    response: CertificateResponse,
    status: 201,
    handle: async (sim, { caller, body }) => ({ certificate: svc.certificateView(sim, await svc.createCertificate(sim, caller, body)) }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:id`,
    operation: 'certificates.get',
    summary: 'Get a certificate',
    params: idParams,
    response: CertificateResponse,
    handle: (sim, { caller, params }) => ({ certificate: svc.getCertificate(sim, caller, params.id) }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:id`,
    operation: 'certificates.update',
    summary: 'Rename or relabel a certificate',
    params: idParams,
    body: UpdateCertificateRequest,
    response: CertificateResponse,
    handle: async (sim, { caller, params, body }) => ({ certificate: svc.certificateView(sim, await svc.updateCertificate(sim, caller, params.id, body)) }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:id`,
    operation: 'certificates.delete',
    summary: 'Delete a certificate no load balancer uses',
    params: idParams,
    status: 204,
    handle: (sim, { caller, params }) => svc.deleteCertificate(sim, caller, params.id),
  }),
];
