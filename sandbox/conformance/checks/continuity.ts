// What the continuity capabilities (restart, upgrade, down-delete, neighbours) share: a pair of LoadBalancer
// Services to carry through a CCM's stop and start, the cloud's state before and after read two ways (each
// load balancer through the cloud's own API, via the descriptor's conformance profile; every load balancer,
// server group, firewall policy, IP block and route from simcloud's store, whatever API made it), the
// differences classified as identity changes (created, deleted, renamed, readdressed, a target or route
// removed) or setting changes, and a ledger of the CCM's cloud writes with the effect of each on the store.
import { CoordinationV1Api } from '@kubernetes/client-node';
import { z } from 'zod';
import type { SimEvent } from '../../../simulator/api/schema/events.ts';
import type { CloudLoadBalancerView } from '../../cloud/descriptor.ts';
import { PooledKubeConfig } from '../../kube/pooled-kubeconfig.ts';
import { CloudWriteEffect, type CloudWrite } from '../report.ts';
import { check, isCcmCall, until, type ConformanceContext } from '../context.ts';
import { cloudLb, ingressNow, ingressOf } from './load-balancers.ts';

/** The store's collections the continuity checks judge, by the resource_type their events carry. */
const COLLECTIONS = {
  load_balancer: 'load_balancers',
  server_group: 'server_groups',
  firewall_policy: 'firewall_policies',
  ip_block: 'ip_blocks',
  network: 'networks',
} as const;
type Judged = keyof typeof COLLECTIONS;
const isJudged = (t: string): t is Judged => t in COLLECTIONS;

type StoredRecord = Readonly<Record<string, unknown>>;
interface Stored {
  readonly type: Judged;
  readonly record: StoredRecord;
}

const StoreDoc = z.looseObject(
  Object.fromEntries(Object.values(COLLECTIONS).map((c) => [c, z.record(z.string(), z.record(z.string(), z.unknown())).default({})])),
);

/** Fields that move on their own (a status, a timestamp, the lock an action holds while it runs): never a change a CCM made. */
const VOLATILE = new Set(['status', 'updated', 'updated_at', 'project_id', 'locked']);
/** Fields that are a resource's identity: changing one is as bad as recreating it. */
const IDENTITY = new Set(['id', 'name', 'public_ipv4', 'public_ipv6', 'ip_range', 'cidr', 'label', 'ipv4', 'ip']);
/** Lists compared as sets: removing a member is an identity change (a target, a route deleted), adding one a setting change. */
const MEMBER_LISTS = new Set(['targets', 'routes', 'server_ids', 'rules']);
/** In a cloud API's view of a load balancer: what moves with traffic and health, and the targets (compared as server ids). */
const VIEW_VOLATILE = /^(status|updated|created|transfer|.*traffic.*|health_status|nodes_status|resolved_targets|targets|droplet_ids|nodes)$/;

const show = (v: unknown): string => JSON.stringify(v) ?? 'undefined';
const labelOf = (type: string, id: string, r: StoredRecord | undefined): string =>
  `${type.replace(/_/g, ' ')} ${id}${typeof r?.name === 'string' ? ` (${r.name})` : ''}`;

/** The ids of a list whose members each carry a distinct `id` (a set of identified objects), else undefined. */
function memberIds(list: readonly unknown[]): string[] | undefined {
  const ids = list.map((m) =>
    m !== null && typeof m === 'object' && 'id' in m && (typeof m.id === 'string' || typeof m.id === 'number') ? String(m.id) : undefined,
  );
  return ids.every((id) => id !== undefined) && new Set(ids).size === ids.length ? ids : undefined;
}

/**
 * Path → JSON of every leaf, skipping keys `skip` names. A list of objects with distinct ids (a NodeBalancer
 * config's nodes) is keyed by id, not position: the same members in another order are no change.
 */
export function flatten(value: unknown, skip: (key: string) => boolean, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (value === null || typeof value !== 'object') {
    out.set(prefix, show(value));
    return out;
  }
  const ids = Array.isArray(value) ? memberIds(value) : undefined;
  const step = (k: string, i: number): string => (Array.isArray(value) ? `${prefix}[${ids ? `id=${ids[i]}` : k}]` : `${prefix}.${k}`);
  for (const [i, [k, v]] of Object.entries(value).entries()) {
    if (!skip(k)) flatten(v, skip, prefix === '' ? k : step(k, i), out);
  }
  return out;
}

export interface Change {
  readonly effect: CloudWriteEffect;
  readonly what: string;
}

/** How a stored resource changed between two records (undefined: absent), worst first; empty when it did not. */
export function describeChange(type: string, id: string, before: StoredRecord | undefined, after: StoredRecord | undefined): Change[] {
  const label = labelOf(type, id, before ?? after);
  if (before === undefined || after === undefined) {
    return before === after ? [] : [{ effect: CloudWriteEffect.identity, what: `${label} ${before === undefined ? 'created' : 'deleted'}` }];
  }
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !VOLATILE.has(k));
  const changes = keys.flatMap((key) => {
    const [b, a] = [before[key], after[key]];
    return MEMBER_LISTS.has(key) && (Array.isArray(b) || Array.isArray(a)) ? memberChanges(`${label}: ${key}`, b, a) : fieldChanges(`${label}: `, key, b, a);
  });
  return changes.sort((x, y) => rank(y.effect) - rank(x.effect));
}

/** A list compared as a set: a member gone is an identity change, a new one a setting change. */
function memberChanges(what: string, before: unknown, after: unknown): Change[] {
  const members = (v: unknown): Set<string> => new Set((Array.isArray(v) ? v : []).map(show));
  const [b, a] = [members(before), members(after)];
  return [
    ...[...b].filter((m) => !a.has(m)).map((m) => ({ effect: CloudWriteEffect.identity, what: `${what} member ${m} removed` })),
    ...[...a].filter((m) => !b.has(m)).map((m) => ({ effect: CloudWriteEffect.setting, what: `${what} member ${m} added` })),
  ];
}

/** Every leaf of one field that differs: an identity change for an identity field, else a setting change. */
function fieldChanges(what: string, key: string, before: unknown, after: unknown): Change[] {
  const [b, a] = [flatten(before, (k) => VOLATILE.has(k)), flatten(after, (k) => VOLATILE.has(k))];
  const effect = IDENTITY.has(key) ? CloudWriteEffect.identity : CloudWriteEffect.setting;
  return [...new Set([...b.keys(), ...a.keys()])]
    .filter((p) => b.get(p) !== a.get(p))
    .map((p) => ({ effect, what: `${what}${p === '' ? key : `${key}.${p}`} ${b.get(p) ?? 'unset'} → ${a.get(p) ?? 'unset'}` }));
}

const rank = (e: CloudWriteEffect): number => [CloudWriteEffect.none, CloudWriteEffect.setting, CloudWriteEffect.identity].indexOf(e);
export const worst = (changes: readonly Change[]): CloudWriteEffect =>
  changes.reduce<CloudWriteEffect>((w, c) => (rank(c.effect) > rank(w) ? c.effect : w), CloudWriteEffect.none);

/** The judged part of simcloud's store, by id. */
export type StoreState = ReadonlyMap<string, Stored>;

export async function readStore(ctx: Pick<ConformanceContext, 'sandbox'>): Promise<StoreState> {
  const doc = StoreDoc.parse(await ctx.sandbox.admin.snapshot());
  const out = new Map<string, Stored>();
  for (const [type, coll] of Object.entries(COLLECTIONS) as Array<[Judged, string]>) {
    for (const [id, record] of Object.entries(doc[coll] as Record<string, StoredRecord>)) out.set(id, { type, record });
  }
  return out;
}

/** Every change between two states of the store; `only` limits it to resources that existed before (a neighbour's new ones are its own). */
export function storeChanges(before: StoreState, after: StoreState, only: 'all' | 'existing' = 'all'): Change[] {
  const ids = only === 'all' ? new Set([...before.keys(), ...after.keys()]) : new Set(before.keys());
  return [...ids].flatMap((id) => {
    const [b, a] = [live(before.get(id)), live(after.get(id))];
    const s = b ?? a;
    return s ? describeChange(s.type, id, b?.record, a?.record) : [];
  });
}

/**
 * A record whose deletion was accepted is gone: the clouds' APIs (and the personas, e.g. Linode's and
 * DigitalOcean's `visible`) stop showing it at once, while simcloud keeps it `deleting` until its action ends.
 */
const live = (s: Stored | undefined): Stored | undefined => (s?.record.status === 'deleting' ? undefined : s);

/** One load balancer as the cloud's own API shows it. */
export interface LbState {
  readonly service: string;
  readonly vip: string | undefined;
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly ports: readonly number[];
  readonly serverIds: readonly string[];
  readonly settings: ReadonlyMap<string, string>;
}

/** The Services' load balancers through the cloud's API, as they are now (nothing waited for). */
export async function readLbs(ctx: ConformanceContext, services: readonly string[]): Promise<LbState[]> {
  return Promise.all(
    services.map(async (service): Promise<LbState> => {
      const vip = await ingressNow(ctx, service);
      return lbState(service, vip, vip === undefined ? undefined : await cloudLb(ctx, vip));
    }),
  );
}

function lbState(service: string, vip: string | undefined, view: CloudLoadBalancerView | undefined): LbState {
  if (view === undefined) return { service, vip, id: undefined, name: undefined, ports: [], serverIds: [], settings: new Map() };
  const raw = view.raw ?? {};
  const name = raw.name ?? raw.label;
  return {
    service,
    vip,
    id: view.id,
    name: typeof name === 'string' ? name : undefined,
    ports: [...view.ports].sort((a, b) => a - b),
    serverIds: [...view.serverIds].sort(),
    settings: flatten(raw, (k) => VIEW_VOLATILE.test(k)),
  };
}

/** What changed on each Service's load balancer, as the cloud's API shows it. */
export function lbChanges(before: readonly LbState[], after: readonly LbState[], title: string): Change[] {
  return before.flatMap((b) => {
    const a = after.find((x) => x.service === b.service);
    const lb = `the ${title} load balancer ${b.id ?? '?'} (${b.name ?? 'unnamed'}) of Service ${b.service}`;
    if (!a?.id) return [{ effect: CloudWriteEffect.identity, what: `${lb} is gone${a?.vip ? '' : ' and the Service has no ingress'}` }];
    return [...lbIdentityChanges(lb, b, a), ...lbSettingChanges(lb, b, a)];
  });
}

function lbIdentityChanges(lb: string, b: LbState, a: LbState): Change[] {
  const identity: Array<[string, unknown, unknown]> = [
    ['id', b.id, a.id],
    ['name', b.name, a.name],
    ['ingress', b.vip, a.vip],
  ];
  const removed = b.serverIds.filter((s) => !a.serverIds.includes(s));
  return [
    ...identity.filter(([, x, y]) => x !== y).map(([k, x, y]) => ({ effect: CloudWriteEffect.identity, what: `${lb}: ${k} ${show(x)} → ${show(y)}` })),
    ...(removed.length ? [{ effect: CloudWriteEffect.identity, what: `${lb}: targets ${removed.join(', ')} removed` }] : []),
  ];
}

function lbSettingChanges(lb: string, b: LbState, a: LbState): Change[] {
  const added = a.serverIds.filter((s) => !b.serverIds.includes(s));
  const paths =
    b.id === a.id ? [...new Set([...b.settings.keys(), ...a.settings.keys()])].filter((p) => b.settings.get(p) !== a.settings.get(p) && !IDENTITY.has(p)) : [];
  return [
    ...(added.length ? [{ effect: CloudWriteEffect.setting, what: `${lb}: targets ${added.join(', ')} added` }] : []),
    ...(b.ports.join() === a.ports.join() ? [] : [{ effect: CloudWriteEffect.setting, what: `${lb}: ports ${b.ports.join(', ')} → ${a.ports.join(', ')}` }]),
    ...paths.map((p) => ({ effect: CloudWriteEffect.setting, what: `${lb}: ${p} ${b.settings.get(p) ?? 'unset'} → ${a.settings.get(p) ?? 'unset'}` })),
  ];
}

/** Everything one continuity check judges: the Services' load balancers through the cloud's API, and the store. */
export interface CloudState {
  readonly lbs: readonly LbState[];
  readonly store: StoreState;
}

export async function readCloudState(ctx: ConformanceContext, services: readonly string[]): Promise<CloudState> {
  return { lbs: await readLbs(ctx, services), store: await readStore(ctx) };
}

export function stateChanges(before: CloudState, after: CloudState, ctx: Pick<ConformanceContext, 'cloud'>, only: 'all' | 'existing' = 'all'): Change[] {
  return [...lbChanges(before.lbs, after.lbs, ctx.cloud.title), ...storeChanges(before.store, after.store, only)];
}

/**
 * The CCM's cloud writes from its start, each with what it changed in the store: simcloud names the request
 * that made each change (`request_id`), so overlapping writes each get their own changes.
 */
export class WriteLedger {
  readonly #events: SimEvent[] = [];
  readonly #unsubscribe: () => void;
  #base: StoreState = new Map();
  #from = Number.POSITIVE_INFINITY;

  private constructor(ctx: Pick<ConformanceContext, 'sandbox'>) {
    this.#unsubscribe = ctx.sandbox.subscribe((e) => this.#events.push(e));
  }

  /** Starts recording now; writes count from `from()`. */
  static async start(ctx: Pick<ConformanceContext, 'sandbox'>): Promise<WriteLedger> {
    const ledger = new WriteLedger(ctx);
    ledger.#base = await readStore(ctx);
    return ledger;
  }

  /** Writes made before now are not listed (the store they changed is still tracked). */
  from(at = Date.now()): void {
    this.#from = at;
  }

  stop(): void {
    this.#unsubscribe();
  }

  /** When the CCM last called the cloud (a write when `writes`) since `since`, or undefined. */
  lastCcmCall(since: number, writes = false): number | undefined {
    const times = this.#events
      .filter((e) => isCcmCall(e) && (!writes || isWrite(e)))
      .map((e) => Date.parse(e.time))
      .filter((t) => t >= since);
    return times.length ? Math.max(...times) : undefined;
  }

  /** The CCM's writes since `from`, in order, each with its effect on the store. */
  writes(): CloudWrite[] {
    const records = new Map([...this.#base].map(([id, s]) => [id, s.record]));
    const made = new Map<string, Change[]>();
    const out: CloudWrite[] = [];
    for (const e of [...this.#events].sort((a, b) => a.seq - b.seq)) {
      if (e.type === 'resource_change') recordChange(e, records, made);
      if (isWrite(e) && isCcmCall(e) && Date.parse(e.time) >= this.#from) {
        const changes = made.get(e.request_id) ?? [];
        out.push({
          method: e.method,
          path: e.path,
          status: e.status,
          effect: worst(changes),
          changes: changes.filter((c) => c.effect !== CloudWriteEffect.none).map((c) => c.what),
        });
      }
    }
    return out;
  }
}

/** Applies one change event to `records` and files what it changed under the request that made it. */
function recordChange(e: Extract<SimEvent, { type: 'resource_change' }>, records: Map<string, StoredRecord>, made: Map<string, Change[]>): void {
  if (!isJudged(e.resource_type)) return;
  const after = (e.resource ?? undefined) as StoredRecord | undefined;
  const changes = describeChange(e.resource_type, e.resource_id, records.get(e.resource_id), after);
  if (e.request_id !== null) made.set(e.request_id, [...(made.get(e.request_id) ?? []), ...changes]);
  if (after) records.set(e.resource_id, after);
  else records.delete(e.resource_id);
}

/** An OAuth2 token grant (Brightbox's `/token`, phoenixNAP's `…/openid-connect/token`): a login, not a write to the cloud. */
const TOKEN_GRANT = /\/token\/?$/;
const isWrite = (e: SimEvent): e is Extract<SimEvent, { type: 'api_call' }> =>
  e.type === 'api_call' && !['GET', 'HEAD', 'OPTIONS'].includes(e.method) && !TOKEN_GRANT.test(e.path);

/** How long a CCM's cloud writes must pause before its state counts as settled, and the least time given after a start. */
export const QUIET_MS = 5000;
export const SETTLE_MIN_MS = 12_000;

/**
 * Waits until the CCM has made no write for QUIET_MS, at least SETTLE_MIN_MS after `since` and, after its
 * start (`started`), once it has called the cloud at all; a CCM that never pauses is judged on the state at the timeout.
 */
export async function settle(ctx: Pick<ConformanceContext, 'timeoutMs'>, ledger: WriteLedger, since: number, started = false): Promise<void> {
  await until(ctx, 'the CCM to settle', () => {
    const now = Date.now();
    const lastWrite = ledger.lastCcmCall(since, true) ?? since;
    return Promise.resolve(now - since >= SETTLE_MIN_MS && (!started || ledger.lastCcmCall(since) !== undefined) && now - lastWrite >= QUIET_MS);
  }).catch(() => undefined);
}

/**
 * Stops the CCM as a rolling update does: its process ends and its leader Lease is released, so the next
 * one need not wait out the lease (what is judged is what it does once it leads, not how long it waited).
 */
export async function stopCcm(ctx: Pick<ConformanceContext, 'sandbox'>): Promise<void> {
  await ctx.sandbox.stopCcm();
  const kc = new PooledKubeConfig();
  kc.loadFromFile(ctx.sandbox.cluster?.kubeconfigPath ?? '');
  await kc
    .makeApiClient(CoordinationV1Api)
    .deleteNamespacedLease({ name: 'cloud-controller-manager', namespace: 'kube-system' })
    .catch(() => undefined);
}

/**
 * Carries the Services' cloud state across a CCM start: settles, reads it, stops the CCM, starts one with
 * `start`, settles, reads it again. The writes after the start go into the check's result.
 */
export async function acrossCcmStart(
  ctx: ConformanceContext,
  services: readonly string[],
  start: () => Promise<void>,
): Promise<{ before: CloudState; after: CloudState }> {
  const ledger = await WriteLedger.start(ctx);
  try {
    await settle(ctx, ledger, Date.now());
    const before = await readCloudState(ctx, services);
    await stopCcm(ctx);
    const started = Date.now();
    ledger.from(started);
    await start();
    await settle(ctx, ledger, started, true);
    const after = await readCloudState(ctx, services);
    ctx.writes.push(...ledger.writes());
    return { before, after };
  } finally {
    ledger.stop();
  }
}

/** The addresses of the load balancers a state holds. */
export const vipsOf = (state: CloudState): string[] => state.lbs.flatMap((l) => (l.vip ? [l.vip] : []));

/** The Services each continuity check carries through: one plain, one with the cloud's annotations (health path /healthz). */
export function servicePair(capability: string): readonly [string, string] {
  return [`${capability}-plain`, `${capability}-annotated`];
}

export async function createLbService(ctx: ConformanceContext, name: string, annotated: boolean, extra: Readonly<Record<string, string>> = {}): Promise<void> {
  const { prefix, values, healthPathKey } = ctx.cloud.conformance.annotations;
  const annotations = annotated
    ? { ...Object.fromEntries(Object.entries(values).map(([k, v]) => [`${prefix}${k}`, k === healthPathKey ? '/healthz' : v])), ...extra }
    : { ...extra };
  ctx.involve({ kind: 'Service', namespace: ctx.namespace, name });
  await ctx.core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name, annotations },
      spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'http', port: annotated ? 8081 : 80, targetPort: 80 }] },
    },
  });
}

/** Creates the pair and waits until each has an ingress and a load balancer the cloud's API shows. */
export async function createServicePair(ctx: ConformanceContext, capability: string): Promise<readonly [string, string]> {
  const pair = servicePair(capability);
  await createLbService(ctx, pair[0], false);
  await createLbService(ctx, pair[1], true);
  for (const name of pair) await lbReady(ctx, name);
  return pair;
}

/** Waits for the Service's ingress and its load balancer in the cloud's API. */
export async function lbReady(ctx: ConformanceContext, name: string): Promise<string> {
  const vip = await ingressOf(ctx, name);
  await until(ctx, `the ${ctx.cloud.title} API to show the load balancer of ${name} at ${vip}`, async () => (await cloudLb(ctx, vip)) !== undefined);
  return vip;
}

/** Deletes the Services and waits until they and their load balancers are gone (a leak here fails the check). */
export async function deleteServices(ctx: ConformanceContext, names: readonly string[], vips: readonly string[]): Promise<void> {
  for (const name of names) await ctx.core.deleteNamespacedService({ name, namespace: ctx.namespace }).catch(() => undefined);
  await until(ctx, `Services ${names.join(', ')} and their load balancers at ${vips.join(', ') || '-'} gone`, async () => {
    const left = (await ctx.core.listNamespacedService({ namespace: ctx.namespace })).items
      .filter((s) => names.includes(s.metadata?.name ?? ''))
      .map((s) => s.metadata?.name);
    const lbs = (await Promise.all(vips.map(async (v) => ((await cloudLb(ctx, v)) ? v : undefined)))).filter((v) => v !== undefined);
    if (left.length || lbs.length) throw new Error(`left: ${[...left.map((n) => `Service ${n}`), ...lbs.map((v) => `load balancer at ${v}`)].join(', ')}`);
    return true;
  });
}

/** Fails with every identity change (and setting change, unless `settingsAllowed`) and the writes that made them. */
export function judge(changes: readonly Change[], writes: readonly CloudWrite[], settingsAllowed: boolean): Change[] {
  const fails = (e: CloudWriteEffect): boolean => e === CloudWriteEffect.identity || (!settingsAllowed && e === CloudWriteEffect.setting);
  const blamed = writes.filter((w) => fails(w.effect));
  // A change a listed write made is said once, with the write.
  const explained = new Set(blamed.flatMap((w) => w.changes));
  const lines = [
    ...changes.filter((c) => fails(c.effect) && !explained.has(c.what)).map((c) => c.what),
    ...blamed.map((w) => `${w.method} ${w.path} ${w.effect}: ${w.changes.join('; ')}`),
  ];
  check(lines.length === 0, lines.join('; '));
  return changes.filter((c) => c.effect === CloudWriteEffect.setting);
}

/** A summary of the writes: `3 writes: 2 re-applied (none), 1 setting changed`. */
export function writesSummary(writes: readonly CloudWrite[]): string {
  if (writes.length === 0) return 'no writes';
  const counts = Object.values(CloudWriteEffect)
    .map((e) => [e, writes.filter((w) => w.effect === e).length] as const)
    .filter(([, n]) => n > 0);
  return `${writes.length} write${writes.length === 1 ? '' : 's'} (${counts.map(([e, n]) => `${n} ${e === CloudWriteEffect.none ? 're-applied, no effect' : e}`).join(', ')})`;
}
