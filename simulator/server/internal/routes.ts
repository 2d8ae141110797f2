/** `/_sim/*` routes (admin token): health, reset, snapshot, seed, time, faults, projects, tokens, events. */
import type { Router } from 'express';
import { z } from 'zod';
import {
  FastForwardRequest,
  FaultRuleInput,
  FaultRuleListResponse,
  FaultRuleResponse,
  Health,
  OkResponse,
  SeedRequest,
  SeedResponse,
  SetTimeRequest,
  Snapshot,
  TimeState,
} from '../../api/schema/internal.ts';
import { labelSelectorError } from '../../api/faults-file.ts';
import { CreateProjectRequest, CreateTokenRequest, ProjectListResponse, ProjectResponse, TokenListResponse, TokenResponse } from '../../api/schema/projects.ts';
import type { Sim } from '../context.ts';
import { invalidField, notFound } from '../errors.ts';
import { defineRoute, idParams, type RouteDef } from '../route-definitions.ts';
import { SCHEMA_VERSION } from '../store/state.ts';
import * as svc from './service.ts';
import { streamEvents } from './sse.ts';

const ok = { ok: true } as const;

function health(sim: Sim): Health {
  return {
    status: 'ok',
    version: '0.1.0',
    uptime_seconds: (Date.now() - sim.startedAt) / 1000,
    schema_version: SCHEMA_VERSION,
    store: sim.store.stats(),
    dataplane: sim.dataplane !== null,
  };
}

function addFault(sim: Sim, body: FaultRuleInput): { fault: unknown } {
  const bad = labelSelectorError(body);
  if (bad !== undefined) throw invalidField('match.label', bad);
  return { fault: sim.faults.add(body) };
}

export const internalRoutes: RouteDef[] = [
  defineRoute({ method: 'get', path: '/_sim/health', operation: 'admin.health', summary: 'Health', response: Health, handle: (sim) => health(sim) }),
  defineRoute({
    method: 'post',
    path: '/_sim/reset',
    operation: 'admin.reset',
    summary: 'Remove every resource, action and fault',
    body: z.strictObject({}),
    response: OkResponse,
    handle: async (sim) => (await svc.reset(sim), ok),
  }),
  defineRoute({
    method: 'get',
    path: '/_sim/snapshot',
    operation: 'admin.snapshot',
    summary: 'The whole state document',
    response: Snapshot,
    handle: (sim) => svc.snapshot(sim),
  }),
  defineRoute({
    method: 'put',
    path: '/_sim/snapshot',
    operation: 'admin.loadSnapshot',
    summary: 'Replace the state document',
    body: Snapshot,
    response: OkResponse,
    handle: async (sim, { body }) => (await svc.loadSnapshot(sim, body), ok),
  }),
  defineRoute({
    method: 'post',
    path: '/_sim/seed',
    operation: 'admin.seed',
    summary: 'Reset to a named seed scenario',
    body: SeedRequest,
    response: SeedResponse,
    handle: (sim, { body }) => svc.seed(sim, body.name, body.project_id),
  }),
  defineRoute({
    method: 'get',
    path: '/_sim/time',
    operation: 'admin.time',
    summary: 'Simulated time',
    response: TimeState,
    handle: (sim) => svc.timeState(sim),
  }),
  defineRoute({
    method: 'put',
    path: '/_sim/time',
    operation: 'admin.setTime',
    summary: 'Speed factor and per-type delays',
    body: SetTimeRequest,
    response: TimeState,
    handle: (sim, { body }) => svc.setTime(sim, body),
  }),
  defineRoute({
    method: 'post',
    path: '/_sim/time/fast_forward',
    operation: 'admin.fastForward',
    summary: 'Jump ahead',
    body: FastForwardRequest,
    response: TimeState,
    handle: (sim, { body }) => svc.fastForward(sim, body.ms),
  }),
  defineRoute({
    method: 'get',
    path: '/_sim/faults',
    operation: 'admin.listFaults',
    summary: 'List fault rules',
    response: FaultRuleListResponse,
    handle: (sim) => ({ faults: sim.faults.list() }),
  }),
  defineRoute({
    method: 'post',
    path: '/_sim/faults',
    operation: 'admin.addFault',
    summary: 'Add a fault rule',
    body: FaultRuleInput,
    response: FaultRuleResponse,
    status: 201,
    handle: (sim, { body }) => addFault(sim, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/_sim/faults',
    operation: 'admin.clearFaults',
    summary: 'Remove every fault rule',
    status: 204,
    handle: (sim) => sim.faults.clear(),
  }),
  defineRoute({
    method: 'delete',
    path: '/_sim/faults/:id',
    operation: 'admin.deleteFault',
    summary: 'Remove a fault rule',
    params: idParams,
    status: 204,
    handle: (sim, { params }) => {
      if (!sim.faults.remove(params.id)) throw notFound('fault', params.id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/_sim/projects',
    operation: 'admin.listProjects',
    summary: 'List projects',
    response: ProjectListResponse,
    handle: (sim) => ({ projects: svc.listProjects(sim) }),
  }),
  defineRoute({
    method: 'post',
    path: '/_sim/projects',
    operation: 'admin.createProject',
    summary: 'Create a project',
    body: CreateProjectRequest,
    response: ProjectResponse,
    status: 201,
    handle: async (sim, { body }) => ({ project: await svc.createProject(sim, body.name) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/_sim/projects/:id',
    operation: 'admin.deleteProject',
    summary: 'Delete a project and all it owns',
    params: idParams,
    status: 204,
    handle: (sim, { params }) => svc.deleteProject(sim, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/_sim/projects/:id/tokens',
    operation: 'admin.listTokens',
    summary: 'List tokens',
    params: idParams,
    response: TokenListResponse,
    handle: (sim, { params }) => ({ tokens: svc.listTokens(sim, params.id) }),
  }),
  defineRoute({
    method: 'post',
    path: '/_sim/projects/:id/tokens',
    operation: 'admin.createToken',
    summary: 'Create a token',
    params: idParams,
    body: CreateTokenRequest,
    response: TokenResponse,
    status: 201,
    handle: async (sim, { params, body }) => ({ token: await svc.createToken(sim, params.id, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/_sim/tokens/:id',
    operation: 'admin.deleteToken',
    summary: 'Delete a token',
    params: idParams,
    status: 204,
    handle: (sim, { params }) => svc.deleteToken(sim, params.id),
  }),
];

export function mountEvents(router: Router, sim: Sim): void {
  router.get('/_sim/events', (req, res) => streamEvents(sim, req, res));
}
