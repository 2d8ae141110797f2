/**
 * Hetzner dialect: the read-only catalogue (locations, datacenters, server types, images, load balancer
 * types) and certificates. simcloud has no certificates, so their list is empty and every id is not_found.
 */
import { z } from 'zod';
import { notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/http.ts';
import { IMAGES, REGIONS, SERVER_TYPES, ZONES } from '../../server/resources/catalogue/data.ts';
import { NumericIdParams } from '../numeric-ids.ts';
import { LOAD_BALANCER_TYPES, datacenterView, imageView, loadBalancerTypeView, locationView, serverTypeView } from './catalogue.ts';
import { PREFIX, pageOf } from './common.ts';
import { ListQuery, NameQuery } from './schemas.ts';

interface Entry { name: string }

/** GET /{plural} (with ?name=) and GET /{plural}/{id} for a static list. */
function readOnly<T extends Entry>(plural: string, singular: string, list: readonly T[], view: (t: T) => Record<string, unknown>): RouteDef[] {
  return [
    defineRoute({
      method: 'get', path: `${PREFIX}/${plural}`, operation: `hcloud.${plural}.list`, summary: `List ${plural.replace(/_/g, ' ')}`, query: NameQuery,
      handle: (_sim, { query }) => {
        const { items, meta } = pageOf(list.filter((t) => query.name === undefined || t.name === query.name), query);
        return { [plural]: items.map(view), meta };
      },
    }),
    defineRoute({
      method: 'get', path: `${PREFIX}/${plural}/:id`, operation: `hcloud.${plural}.get`, summary: `Get a ${singular.replace(/_/g, ' ')}`, params: NumericIdParams,
      handle: (_sim, { params }) => {
        const item = list[params.id - 1];
        if (item === undefined) throw notFound(singular.replace(/_/g, ' '), String(params.id));
        return { [singular]: view(item) };
      },
    }),
  ];
}

const CertificateQuery = ListQuery.extend({ type: z.enum(['uploaded', 'managed']).optional() });

export const catalogueRoutes: RouteDef[] = [
  ...readOnly('locations', 'location', REGIONS, locationView),
  ...readOnly('datacenters', 'datacenter', ZONES, datacenterView),
  ...readOnly('server_types', 'server_type', SERVER_TYPES, serverTypeView),
  ...readOnly('images', 'image', IMAGES, imageView),
  ...readOnly('load_balancer_types', 'load_balancer_type', LOAD_BALANCER_TYPES, loadBalancerTypeView),
  defineRoute({
    method: 'get', path: `${PREFIX}/certificates`, operation: 'hcloud.certificates.list', summary: 'List certificates (always none)', query: CertificateQuery,
    handle: (_sim, { query }) => ({ certificates: [], meta: pageOf([], query).meta }),
  }),
  defineRoute({
    method: 'get', path: `${PREFIX}/certificates/:id`, operation: 'hcloud.certificates.get', summary: 'Get a certificate (none exist)', params: NumericIdParams,
    handle: (_sim, { params }) => {
      throw notFound('certificate', String(params.id));
    },
  }),
];
