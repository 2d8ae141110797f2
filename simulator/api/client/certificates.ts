/** Certificates: `client.certificates.*` (upload a chain and key once, name it on https services by id). */
import {
  CertificateListResponse,
  CertificateResponse,
  type CertificateView,
  type CreateCertificateRequest,
  type UpdateCertificateRequest,
} from '../schema/certificates.ts';
import type { ListMeta, ListParams } from '../schema/common.ts';
import { seg, type CallOptions, type Requester } from './requester.ts';

export class CertificatesClient {
  readonly #r: Requester;
  constructor(r: Requester) {
    this.#r = r;
  }

  async list(params: ListParams = {}, opts?: CallOptions): Promise<{ certificates: CertificateView[]; meta: ListMeta }> {
    return this.#r.call('certificates.list', CertificateListResponse, { method: 'GET', path: '/v1/certificates', query: params }, opts);
  }

  async get(id: string, opts?: CallOptions): Promise<CertificateView> {
    return (await this.#r.call('certificates.get', CertificateResponse, { method: 'GET', path: `/v1/certificates/${seg(id)}` }, opts)).certificate;
  }

  async create(body: CreateCertificateRequest, opts?: CallOptions): Promise<CertificateView> {
    return (await this.#r.call('certificates.create', CertificateResponse, { method: 'POST', path: '/v1/certificates', body }, opts)).certificate;
  }

  async update(id: string, body: UpdateCertificateRequest, opts?: CallOptions): Promise<CertificateView> {
    const path = `/v1/certificates/${seg(id)}`;
    return (await this.#r.call('certificates.update', CertificateResponse, { method: 'PATCH', path, body }, opts)).certificate;
  }

  async delete(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('certificates.delete', { method: 'DELETE', path: `/v1/certificates/${seg(id)}` }, opts);
  }
}
