/**
 * Hetzner persona: the read-only catalogue (locations, datacenters, server types, images, load balancer
 * types). Certificates are a resource of their own (certificates.ts).
 */
import { z } from 'zod';
import { notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { IMAGES, REGIONS, SERVER_TYPES, ZONES } from '../../server/resources/catalogue/data.ts';
import { NumericIdParams } from '../numeric-ids.ts';
import { LOAD_BALANCER_TYPES, datacenterView, imageView, loadBalancerTypeView, locationView, serverTypeView } from './catalogue.ts';
import { PREFIX, pageOf } from './common.ts';
import { Datacenter, Image, Location, LoadBalancerType, ServerType, list as listOf, one } from './responses.ts';
import { NameQuery } from './schemas.ts';

interface Entry {
  name: string;
}

/** What a catalogue entry looks like in Hetzner's JSON: the view and the response schema it follows. */
interface Shown<T, V> {
  view: (t: T) => V;
  schema: z.ZodType<V>;
}

type Query = z.infer<typeof NameQuery>;

/** GET /{plural} (with ?name=, or the query and filter given) and GET /{plural}/{id} for a static list. */
function readOnly<T extends Entry, V>(
  plural: string,
  list: readonly T[],
  { view, schema }: Shown<T, V>,
  filter?: { query: z.ZodType<Query>; keep: (t: T, q: Query) => boolean },
): RouteDef[] {
  const singular = plural.replace(/s$/, '');
  const keep = (t: T, q: Query): boolean => (q.name === undefined || t.name === q.name) && (filter?.keep(t, q) ?? true);
  return [
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${plural}`,
      operation: `hcloud.${plural}.list`,
      summary: `List ${plural.replace(/_/g, ' ')}`,
      query: filter?.query ?? NameQuery,
      response: listOf(plural, schema),
      handle: (_sim, { query }) => {
        const { items, meta } = pageOf(
          list.filter((t) => keep(t, query)),
          query,
        );
        return { [plural]: items.map(view), meta };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${PREFIX}/${plural}/:id`,
      operation: `hcloud.${plural}.get`,
      summary: `Get a ${singular.replace(/_/g, ' ')}`,
      params: NumericIdParams,
      response: one(singular, schema),
      handle: (_sim, { params }) => {
        const item = list[params.id - 1];
        if (item === undefined) throw notFound(singular.replace(/_/g, ' '), String(params.id));
        return { [singular]: view(item) };
      },
    }),
  ];
}

/** hcloud-go's image filters; simcloud's images are all available x86 system images without labels. */
const Many = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));
const ImageQuery = NameQuery.extend({
  type: Many.optional(),
  architecture: Many.optional(),
  status: Many.optional(),
  include_deprecated: z.enum(['true', 'false']).optional(),
  bound_to: z.string().regex(/^\d+$/).optional(),
  label_selector: z.string().max(1024).optional(),
  sort: Many.optional(),
});
type ImageQuery = z.infer<typeof ImageQuery>;
const includes = (values: string[] | undefined, value: string): boolean => values === undefined || values.includes(value);
const imageFilter = {
  query: ImageQuery,
  keep: (_i: unknown, query: Query): boolean => imageMatches(query),
};
function imageMatches(q: ImageQuery): boolean {
  return (
    includes(q.type, 'system') &&
    includes(q.architecture, 'x86') &&
    includes(q.status, 'available') &&
    q.bound_to === undefined &&
    (q.label_selector === undefined || q.label_selector === '')
  );
}

export const catalogueRoutes: RouteDef[] = [
  ...readOnly('locations', REGIONS, { view: locationView, schema: Location }),
  ...readOnly('datacenters', ZONES, { view: datacenterView, schema: Datacenter }),
  ...readOnly('server_types', SERVER_TYPES, { view: serverTypeView, schema: ServerType }),
  ...readOnly('images', IMAGES, { view: imageView, schema: Image }, imageFilter),
  ...readOnly('load_balancer_types', LOAD_BALANCER_TYPES, { view: loadBalancerTypeView, schema: LoadBalancerType }),
];
