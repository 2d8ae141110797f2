/** Catalogue routes: regions, zones, server types, images. */
import { ImageListResponse, RegionListResponse, ServerTypeListResponse, ZoneListResponse } from '../../../api/schema/catalogue.ts';
import { defineRoute, type RouteDef } from '../../route-definitions.ts';
import { IMAGES, REGIONS, SERVER_TYPES, ZONES } from './data.ts';

export const catalogueRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/regions',
    operation: 'catalogue.regions',
    summary: 'List regions',
    response: RegionListResponse,
    handle: () => ({ regions: REGIONS }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/zones',
    operation: 'catalogue.zones',
    summary: 'List zones',
    response: ZoneListResponse,
    handle: () => ({ zones: ZONES }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/server_types',
    operation: 'catalogue.serverTypes',
    summary: 'List server types',
    response: ServerTypeListResponse,
    handle: () => ({ server_types: SERVER_TYPES }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/images',
    operation: 'catalogue.images',
    summary: 'List images',
    response: ImageListResponse,
    handle: () => ({ images: IMAGES }),
  }),
];
