/** Action routes: `GET /v1/actions/{id}`. */
import { ActionResponse } from '../../../api/schema/actions.ts';
import { defineRoute, idParams, type RouteDef } from '../../route-definitions.ts';
import { getOwned, publicView } from '../common.ts';

export const actionRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/actions/:id',
    operation: 'actions.get',
    summary: 'Get an action',
    params: idParams,
    response: ActionResponse,
    handle: (sim, { caller, params }) => ({ action: publicView(getOwned(sim, caller, 'actions', params.id)) }),
  }),
];
