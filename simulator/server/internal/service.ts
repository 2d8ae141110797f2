/** The `/_sim/*` operations: reset, snapshots, seeds, time control, projects and tokens. */
import { randomBytes } from 'node:crypto';
import type { CreateTokenRequest, CreatedToken, Project, Token } from '../../api/schema/projects.ts';
import type { SeedName, SetTimeRequest, Snapshot, TimeState } from '../../api/schema/internal.ts';
import { own } from '../../../lib/keyed.ts';
import { newIds, nowIso, type Sim } from '../context.ts';
import { SimcloudError, conflict, fieldsFromZod, forbidden, invalidInput, notFound } from '../errors.ts';
import { AttrsCollection } from '../persona.ts';
import { MigrationError, migrate } from '../store/migrations.ts';
import { COLLECTIONS, emptyState, type Change, type StateDoc } from '../store/state.ts';
import { SEEDS } from './seeds.ts';

function destructive(sim: Sim): void {
  if (!sim.config.allowDestructive) throw forbidden('destructive /_sim endpoints are disabled by configuration');
}

async function replaceState(sim: Sim, doc: StateDoc): Promise<void> {
  sim.engine.cancelAll();
  await sim.store.replace(doc);
  sim.engine.resumeAll();
}

/** Every resource, action and fault goes; projects, tokens and the id counter stay. */
export async function reset(sim: Sim): Promise<void> {
  destructive(sim);
  const cur = sim.store.state;
  const doc = emptyState(cur.pools);
  Object.assign(doc, { projects: cur.projects, tokens: cur.tokens, next_id: cur.next_id, signing_key: cur.signing_key });
  sim.faults.clear();
  await replaceState(sim, doc);
}

export const snapshot = (sim: Sim): StateDoc => sim.store.state;

export async function loadSnapshot(sim: Sim, body: Snapshot): Promise<void> {
  destructive(sim);
  let doc: StateDoc;
  try {
    doc = migrate(structuredClone(body));
  } catch (err) {
    if (err instanceof MigrationError) throw invalidInput(err.message, [{ name: err.field, messages: [err.message] }]);
    throw err;
  }
  for (const c of COLLECTIONS) {
    if (typeof doc[c] !== 'object' || doc[c] === null || Array.isArray(doc[c]))
      throw invalidInput(`snapshot: ${c} must be an object`, [{ name: c, messages: ['must be an object keyed by id'] }]);
  }
  checkPersonaAttrs(sim, doc);
  await replaceState(sim, doc);
}

/** A snapshot comes from outside: every persona slice of its records must parse with that persona's schema. */
function checkPersonaAttrs(sim: Sim, doc: StateDoc): void {
  for (const coll of Object.values(AttrsCollection)) {
    const schema = sim.personas.attrsSchema(coll);
    for (const [id, rec] of Object.entries(doc[coll] as Record<string, { dialect_attrs?: unknown }>)) {
      const parsed = rec.dialect_attrs === undefined ? undefined : schema.safeParse(rec.dialect_attrs);
      if (parsed?.success === false)
        throw invalidInput(`snapshot: ${coll}.${id} has invalid persona attributes`, fieldsFromZod(parsed.error, `${coll}.${id}.dialect_attrs.`));
    }
  }
}

export function defaultProjectId(sim: Sim): string {
  const first = sim.store.all('projects')[0];
  if (first === undefined) throw new SimcloudError('conflict', 'no project exists');
  return first.id;
}

export async function seed(sim: Sim, name: SeedName, projectId: string | undefined): Promise<{ project_id: string; seed: string }> {
  destructive(sim);
  const pid = projectId ?? defaultProjectId(sim);
  if (own(sim.store.state.projects, pid) === undefined) throw notFound('project', pid, 'project_id');
  sim.faults.clear();
  await replaceState(sim, SEEDS[name]({ current: sim.store.state, projectId: pid, now: nowIso(sim) }));
  return { project_id: pid, seed: name };
}

export function timeState(sim: Sim): TimeState {
  return { now: nowIso(sim), speed: sim.clock.speed, offset_ms: sim.clock.offset, delays: sim.engine.delays };
}

export function setTime(sim: Sim, body: SetTimeRequest): TimeState {
  if (body.speed !== undefined) sim.clock.setSpeed(body.speed);
  for (const [type, d] of Object.entries(body.delays ?? {})) if (d !== undefined) sim.engine.delays[type] = d;
  return timeState(sim);
}

export function fastForward(sim: Sim, ms: number): TimeState {
  sim.clock.fastForward(ms);
  return timeState(sim);
}

export const listProjects = (sim: Sim): Project[] => sim.store.all('projects');

export async function createProject(sim: Sim, name: string): Promise<Project> {
  if (listProjects(sim).some((p) => p.name === name)) throw conflict(`a project named ${name} exists`, 'name');
  const { ids, change } = newIds(sim, 'prj');
  const project = { id: ids[0]!, name, created: nowIso(sim) };
  await sim.store.commit([change, { op: 'put', coll: 'projects', doc: project }]);
  return project;
}

/** Deletes the project with its tokens and every resource it owns. */
export async function deleteProject(sim: Sim, id: string): Promise<void> {
  if (own(sim.store.state.projects, id) === undefined) throw notFound('project', id);
  const changes: Change[] = [{ op: 'del', coll: 'projects', id }];
  for (const coll of COLLECTIONS) {
    for (const doc of sim.store.all(coll) as { id: string; project_id?: string }[]) {
      if (doc.project_id === id) changes.push({ op: 'del', coll, id: doc.id });
    }
  }
  await sim.store.commit(changes);
}

const toToken = (t: { id: string; project_id: string; name: string; created: string }): Token => ({
  id: t.id,
  project_id: t.project_id,
  name: t.name,
  created: t.created,
});

export function listTokens(sim: Sim, projectId: string): Token[] {
  if (own(sim.store.state.projects, projectId) === undefined) throw notFound('project', projectId);
  return sim.store
    .all('tokens')
    .filter((t) => t.project_id === projectId)
    .map(toToken);
}

export async function createToken(sim: Sim, projectId: string, body: CreateTokenRequest): Promise<CreatedToken> {
  if (own(sim.store.state.projects, projectId) === undefined) throw notFound('project', projectId);
  const secret = body.token ?? `sct_${randomBytes(24).toString('base64url')}`;
  if (secret === sim.config.adminToken || sim.store.all('tokens').some((t) => t.secret === secret)) throw conflict('this token value is taken', 'token');
  const { ids, change } = newIds(sim, 'tok');
  const rec = { id: ids[0]!, project_id: projectId, name: body.name, secret, created: nowIso(sim) };
  await sim.store.commit([change, { op: 'put', coll: 'tokens', doc: rec }]);
  return { ...toToken(rec), token: secret };
}

export async function deleteToken(sim: Sim, id: string): Promise<void> {
  if (own(sim.store.state.tokens, id) === undefined) throw notFound('token', id);
  await sim.store.commit([{ op: 'del', coll: 'tokens', id }]);
}
