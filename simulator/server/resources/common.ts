/** Service helpers shared by every resource: ownership lookups, list filtering/sorting/paging, actions. */
import { own } from '../../../lib/keyed.ts';
import type { ActionCommand } from '../../api/schema/actions.ts';
import { PER_PAGE_DEFAULT, type ListMeta, type ResourceType } from '../../api/schema/common.ts';
import { SelectorSyntaxError, matchesSelector, parseSelector, type Requirement } from '../../api/schema/label-selector.ts';
import { newIds, type Caller, type Sim } from '../context.ts';
import { invalidField, locked, notFound } from '../errors.ts';
import type { ActionRec, Change, CollectionName, Collections, StoredDoc } from '../store/state.ts';

export interface Listable {
  id: string;
  name?: string;
  created: string;
  labels?: Record<string, string>;
  project_id: string;
}

export interface ListQuery {
  page?: number;
  per_page?: number;
  sort?: string;
  label_selector?: string;
  name?: string;
}

export function parseSelectorParam(selector: string, field = 'label_selector'): Requirement[] {
  try {
    return parseSelector(selector);
  } catch (err) {
    if (err instanceof SelectorSyntaxError) throw invalidField(field, err.message);
    throw err;
  }
}

/** Whose records a read returns: a caller's project, or the project of a record another one refers to. */
export type Owner = Pick<Caller, 'projectId'>;

/** The record `id` of `coll`, whichever project it belongs to (for a record another record points at). */
export function findRecord<C extends CollectionName>(sim: Sim, coll: C, id: string): Collections[C] | undefined {
  return own(sim.store.state[coll] as Record<string, Collections[C]>, id);
}

/** The record `id` of `coll` if it belongs to the owner's project, else undefined. */
export function findOwned<C extends CollectionName>(sim: Sim, owner: Owner, coll: C, id: string): Collections[C] | undefined {
  const doc = findRecord(sim, coll, id);
  return (doc as { project_id?: string } | undefined)?.project_id === owner.projectId ? doc : undefined;
}

/** The record `id` of `coll` if it belongs to the caller's project, else not_found. */
export function getOwned<C extends CollectionName>(sim: Sim, caller: Owner, coll: C, ref: string | { id: string; field: string }): Collections[C] {
  const { id, field } = typeof ref === 'string' ? { id: ref, field: undefined } : ref;
  const doc = findOwned(sim, caller, coll, id);
  if (doc === undefined) throw notFound(coll.replace(/s$/, '').replace(/_/g, ' '), id, field);
  return doc;
}

/** Every record of `coll` in the owner's project, in creation order. */
export function ownedRecords<C extends CollectionName>(sim: Sim, owner: Owner, coll: C): Collections[C][] {
  return sim.store.all(coll).filter((d) => (d as { project_id?: string }).project_id === owner.projectId);
}

/**
 * A record change a service has checked but not committed. One API operation may change several records (a
 * firewall and the load balancers it guards): its service calls each plan, then `commitPlans` commits them
 * all at once, so a crash leaves the operation whole or absent. Plan each record once per operation: a plan
 * reads the store as committed, not the other plans.
 */
export interface Plan<T> {
  doc: T;
  changes: Change[];
}

export async function commitPlans(sim: Sim, plans: readonly Plan<unknown>[]): Promise<void> {
  await sim.store.commit(plans.flatMap((p) => p.changes));
}

/** Persona attributes to set on a record: whole slices by persona name (`{ linode: {...} }`); others stay. */
export type AttrSlices = Readonly<Record<string, unknown>>;

/** A record's persona attributes with `attrs` laid over them. */
export function withAttrs<T extends { dialect_attrs?: Record<string, unknown> | undefined }>(doc: T, attrs: AttrSlices): T {
  return Object.keys(attrs).length === 0 ? doc : { ...doc, dialect_attrs: { ...doc.dialect_attrs, ...attrs } };
}

export function ensureUnlocked(doc: { id: string; locked: boolean }, what: string): void {
  if (doc.locked) throw locked(what, doc.id);
}

export function owned<T extends Listable>(sim: Sim, caller: Caller, coll: CollectionName): T[] {
  return (sim.store.all(coll) as unknown as T[]).filter((d) => d.project_id === caller.projectId);
}

function sorter(sort: string | undefined): ((a: Listable, b: Listable) => number) | null {
  if (sort === undefined || sort === 'id' || sort === 'id:asc') return null; // ids grow with creation: store order
  const [field, dir] = sort.split(':') as [keyof Listable, string | undefined];
  const sign = dir === 'desc' ? -1 : 1;
  const key = (d: Listable): string => String((d[field] as string | undefined) ?? '');
  return (a, b) => sign * key(a).localeCompare(key(b));
}

function visible(sim: Sim, type: ResourceType): (d: Listable) => boolean {
  const hideMs = sim.faults.hiddenForMs(type);
  if (hideMs === 0) return () => true;
  const cutoff = sim.clock.now() - hideMs;
  return (d) => Date.parse(d.created) <= cutoff;
}

/** Only the checks a query asks for, so the common unfiltered list costs one comparison per record. */
function filters<T extends Listable>(sim: Sim, q: ListQuery, type: ResourceType, extra: ((d: T) => boolean) | undefined): ((d: T) => boolean)[] {
  const checks: ((d: T) => boolean)[] = [];
  if (extra !== undefined) checks.push(extra);
  if (q.name !== undefined) checks.push((d) => d.name === q.name);
  if (q.label_selector !== undefined) {
    const reqs = parseSelectorParam(q.label_selector);
    checks.push((d) => matchesSelector(reqs, d.labels ?? {}));
  }
  if (sim.faults.hiddenForMs(type) > 0) checks.push(visible(sim, type));
  return checks;
}

export interface ListSpec<T> {
  coll: CollectionName;
  type: ResourceType;
  q: ListQuery;
  extra?: (d: T) => boolean;
  /** Identifies `extra` in the cache key (e.g. `status=off`). */
  extraKey?: string;
}

/**
 * The caller's records of `coll` that pass the query, sorted and paged. Results are cached until the
 * collection changes, except while an eventual-consistency fault makes visibility depend on time.
 */
export function listOwned<T extends Listable>(sim: Sim, caller: Caller, spec: ListSpec<T>): { items: T[]; meta: ListMeta } {
  const compute = (): T[] => sorted(filterOwned(sim, caller, spec), spec.q);
  if (sim.faults.hiddenForMs(spec.type) > 0) return paginate(compute(), spec.q);
  const { q } = spec;
  const key = JSON.stringify([caller.projectId, q.name, q.label_selector, q.sort, spec.extraKey]);
  return paginate(sim.lists.get(spec.coll, key, compute), q);
}

function filterOwned<T extends Listable>(sim: Sim, caller: Caller, spec: ListSpec<T>): T[] {
  const checks = filters(sim, spec.q, spec.type, spec.extra);
  const pid = caller.projectId;
  const passes = (d: T): boolean => {
    for (const check of checks) if (!check(d)) return false;
    return true;
  };
  const out: T[] = [];
  for (const d of sim.store.all(spec.coll) as unknown as T[]) if (d.project_id === pid && passes(d)) out.push(d);
  return out;
}

function sorted<T extends Listable>(items: T[], q: ListQuery): T[] {
  const sort = sorter(q.sort);
  if (sort !== null) return [...items].sort(sort);
  return q.sort === 'id:desc' ? [...items].reverse() : items;
}

export function paginate<T>(all: T[], q: { page?: number; per_page?: number }): { items: T[]; meta: ListMeta } {
  const perPage = q.per_page ?? PER_PAGE_DEFAULT;
  const page = q.page ?? 1;
  const lastPage = Math.max(1, Math.ceil(all.length / perPage));
  const items = all.slice((page - 1) * perPage, page * perPage);
  const pagination = {
    page,
    per_page: perPage,
    previous_page: page > 1 ? Math.min(page - 1, lastPage) : null,
    next_page: page < lastPage ? page + 1 : null,
    last_page: lastPage,
    total_entries: all.length,
  };
  return { items, meta: { pagination } };
}

export interface StartAction {
  command: ActionCommand;
  coll: CollectionName;
  /** The resource as it should be stored when the action starts (status and lock are set here). */
  doc: StoredDoc;
  /** Further changes committed atomically with the start. */
  extra?: Change[];
  resources?: ActionRec['resources'];
}

/** Commits the resource in its first stage (locked) with a new action, then runs the action. */
export async function startAction(sim: Sim, caller: Caller, spec: StartAction): Promise<ActionRec> {
  return (await startActions(sim, caller, { ...spec, commands: [spec.command] }))[0]!;
}

/**
 * Like startAction with one action per command, all on `doc` and committed together (the first command sets
 * its status): several routes of a network added and deleted in one operation.
 */
export async function startActions(
  sim: Sim,
  caller: Caller,
  spec: Omit<StartAction, 'command'> & { commands: readonly ActionCommand[] },
): Promise<ActionRec[]> {
  const { ids, change } = newIds(sim, ...spec.commands.map(() => 'act'));
  const actions = spec.commands.map((command, i) =>
    sim.engine.begin({ command, projectId: caller.projectId, resourceId: spec.doc.id, resources: spec.resources, id: ids[i]! }),
  );
  const command = spec.commands[0]!;
  const status = 'status' in spec.doc && isStatusCommand(command) ? { status: sim.engine.firstState(command) } : {};
  const lock = 'locked' in spec.doc ? { locked: true } : {};
  const extra = spec.extra ?? [];
  await sim.store.commit([
    change,
    ...extra,
    ...highestId([change, ...extra]),
    { op: 'put', coll: spec.coll, doc: { ...spec.doc, ...status, ...lock } },
    ...actions.map((doc): Change => ({ op: 'put', coll: 'actions', doc })),
  ]);
  for (const a of actions) sim.engine.run(a);
  return actions;
}

/** The id counter after ids allocated twice in one tick (a route's and its action's): the highest, last. */
function highestId(changes: readonly Change[]): Change[] {
  const counts = changes.flatMap((c) => (c.op === 'meta' && c.next_id !== undefined ? [c.next_id] : []));
  const top = Math.max(...counts);
  return counts.at(-1) === top ? [] : [{ op: 'meta', next_id: top }];
}

const NON_STATUS = new Set<ActionCommand>([
  'attach_server_to_network',
  'detach_server_from_network',
  'update_server',
  'attach_load_balancer_to_network',
  'detach_load_balancer_from_network',
  'add_route',
  'delete_route',
]);
const isStatusCommand = (c: ActionCommand): boolean => !NON_STATUS.has(c);

/** A service's answer with its action as the wire shows it (without `project_id`). */
export async function withPublicAction<T extends { action: ActionRec }>(
  answer: Promise<T>,
): Promise<Omit<T, 'action'> & { action: Omit<ActionRec, 'project_id'> }> {
  const { action, ...rest } = await answer;
  return { ...rest, action: publicView(action) };
}

/** Drops `project_id` for the wire. */
export function publicView<T extends { project_id: string }>(doc: T): Omit<T, 'project_id'> {
  const { project_id: _p, ...rest } = doc;
  return rest;
}
