/** Resource commands for demos and debugging: server, lb, ipblock, network, faults. */
import { parseArgs } from 'node:util';
import { SimcloudAdminClient, SimcloudClient } from '../api/client/index.ts';
import type { Action } from '../api/schema/actions.ts';
import { FaultRuleInput } from '../api/schema/internal.ts';
import { BearerToken } from '../api/schema/projects.ts';
import { printJson, printTable } from './output.ts';
import { UsageError } from '../../lib/usage-error.ts';

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'admin-token': { type: 'string' },
  json: { type: 'boolean', default: false },
  selector: { type: 'string' },
  name: { type: 'string' },
  type: { type: 'string' },
  image: { type: 'string' },
  zone: { type: 'string' },
  label: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  kind: { type: 'string' },
  method: { type: 'string' },
  path: { type: 'string' },
  probability: { type: 'string' },
  count: { type: 'string' },
  status: { type: 'string' },
  code: { type: 'string' },
  'latency-ms': { type: 'string' },
  limit: { type: 'string' },
  'window-seconds': { type: 'string' },
  'hide-seconds': { type: 'string' },
  'retry-after': { type: 'string' },
} as const;

type Values = ReturnType<typeof parse>['values'];

function parse(args: string[]): { values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values']; positionals: string[] } {
  return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
}

function pairs(list: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of list ?? []) {
    const i = p.indexOf('=');
    if (i <= 0) throw new UsageError(`--${flag} takes key=value, got "${p}"`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

function endpoint(v: Values): string {
  return v.url ?? process.env.SIMCLOUD_URL ?? 'http://127.0.0.1:8787';
}

function checkedToken(value: string | undefined, flag: string, env: string): string {
  if (value === undefined) throw new UsageError(`no token: pass --${flag} or set ${env} (\`simcloud serve\` prints the ones it generated)`);
  const r = BearerToken.safeParse(value);
  if (!r.success) throw new UsageError(`--${flag} / ${env} ${r.error.issues[0]?.message ?? 'is not a valid token'}`);
  return r.data;
}

function client(v: Values): SimcloudClient {
  const token = checkedToken(v.token ?? process.env.SIMCLOUD_TOKEN, 'token', 'SIMCLOUD_TOKEN');
  return new SimcloudClient({ endpoint: endpoint(v), token, caller: 'simcloud-cli', retry: { maxRetries: 0 } });
}

function admin(v: Values): SimcloudAdminClient {
  const token = checkedToken(v['admin-token'] ?? process.env.SIMCLOUD_ADMIN_TOKEN, 'admin-token', 'SIMCLOUD_ADMIN_TOKEN');
  return new SimcloudAdminClient({ endpoint: endpoint(v), token, caller: 'simcloud-cli', retry: { maxRetries: 0 } });
}

function needId(positionals: string[], what: string): string {
  const id = positionals[0];
  if (id === undefined) throw new UsageError(`${what} needs an id`);
  return id;
}

const out = (v: Values, value: unknown, rows: Record<string, unknown>[], columns: string[]): void => (v.json ? printJson(value) : printTable(rows, columns));

async function serverCreate(c: SimcloudClient, v: Values): Promise<void> {
  if (v.name === undefined) throw new UsageError('server create needs --name');
  const body = { name: v.name, server_type: v.type ?? 'sc-small', image: v.image ?? 'ubuntu-24.04', zone: v.zone ?? 'sim-1a', labels: pairs(v.label, 'label') };
  const { server, action } = await c.servers.create(body);
  return out(v, { server, action }, [{ ...server, action: action.id }], ['id', 'name', 'status', 'public_ipv4', 'action']);
}

async function serverCmd(verb: string | undefined, rest: string[], v: Values): Promise<void> {
  const c = client(v);
  if (verb === 'list') {
    const servers = await c.servers.listAll(v.selector === undefined ? {} : { label_selector: v.selector });
    return out(v, servers, servers, ['id', 'name', 'status', 'public_ipv4', 'private_ipv4', 'zone', 'labels']);
  }
  if (verb === 'create') return serverCreate(c, v);
  const ops: Record<string, (id: string) => Promise<Action>> = {
    poweroff: (id) => c.servers.poweroff(id),
    shutdown: (id) => c.servers.shutdown(id),
    poweron: (id) => c.servers.poweron(id),
    reboot: (id) => c.servers.reboot(id),
    delete: (id) => c.servers.delete(id),
  };
  const op = verb === undefined ? undefined : ops[verb];
  if (op === undefined) throw new UsageError(`server: unknown verb "${verb ?? ''}" (list, create, ${Object.keys(ops).join(', ')})`);
  const action = await op(needId(rest, `server ${verb}`));
  return out(v, action, [action], ['id', 'command', 'status', 'progress']);
}

async function lbCmd(verb: string | undefined, rest: string[], v: Values): Promise<void> {
  const c = client(v);
  if (verb === 'list') {
    const lbs = await c.loadBalancers.listAll(v.selector === undefined ? {} : { label_selector: v.selector });
    const rows = lbs.map((lb) => ({ ...lb, ports: lb.services.map((s) => s.listen_port).join(','), targets: lb.resolved_targets.length }));
    return out(v, lbs, rows, ['id', 'name', 'status', 'public_ipv4', 'ports', 'targets', 'algorithm']);
  }
  if (verb !== 'show') throw new UsageError(`lb: unknown verb "${verb ?? ''}" (list, show)`);
  const lb = await c.loadBalancers.get(needId(rest, 'lb show'));
  const rows = lb.resolved_targets.flatMap((t) => t.health.map((h) => ({ target: t.id, ip: t.ip, port: h.listen_port, health: h.status })));
  if (!v.json) process.stdout.write(`${lb.id} ${lb.name} ${lb.status} vip=${lb.public_ipv4} algorithm=${lb.algorithm}\n`);
  return out(v, lb, rows, ['target', 'ip', 'port', 'health']);
}

async function ipblockCmd(verb: string | undefined, v: Values): Promise<void> {
  if (verb !== 'list') throw new UsageError(`ipblock: unknown verb "${verb ?? ''}" (list)`);
  const blocks = await client(v).ipBlocks.listAll({ tags: pairs(v.tag, 'tag') });
  const rows = blocks.map((b) => ({ ...b, assigned_to: b.assigned_to === null ? null : `${b.assigned_to.kind}/${b.assigned_to.id}` }));
  return out(v, blocks, rows, ['id', 'cidr', 'location', 'status', 'assigned_to', 'tags']);
}

async function networkCmd(verb: string | undefined, rest: string[], v: Values): Promise<void> {
  if (verb !== 'routes') throw new UsageError(`network: unknown verb "${verb ?? ''}" (routes)`);
  const routes = await client(v).networks.listRoutes(needId(rest, 'network routes'));
  return out(v, routes, routes, ['id', 'destination', 'gateway', 'created']);
}

const num = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));

function faultRule(v: Values): FaultRuleInput {
  const match = Object.fromEntries(Object.entries({ method: v.method, path: v.path, label: v.label?.[0] }).filter(([, x]) => x !== undefined));
  const raw = {
    kind: v.kind,
    probability: num(v.probability),
    count: num(v.count),
    ...(Object.keys(match).length > 0 ? { match } : {}),
    status: num(v.status),
    code: v.code,
    latency_ms: num(v['latency-ms']),
    limit: num(v.limit),
    window_seconds: num(v['window-seconds']),
    hide_seconds: num(v['hide-seconds']),
    retry_after_seconds: num(v['retry-after']),
  };
  const parsed = FaultRuleInput.safeParse(Object.fromEntries(Object.entries(raw).filter(([, x]) => x !== undefined)));
  if (!parsed.success) throw new UsageError(`faults add: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'kind'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

async function faultsCmd(verb: string | undefined, v: Values): Promise<void> {
  const a = admin(v);
  if (verb === 'add') {
    const rule = await a.addFault(faultRule(v));
    return out(v, rule, [rule], ['id', 'kind', 'probability', 'count']);
  }
  if (verb === 'clear') return a.clearFaults();
  if (verb !== 'list') throw new UsageError(`faults: unknown verb "${verb ?? ''}" (add, list, clear)`);
  const faults = await a.listFaults();
  return out(
    v,
    faults,
    faults.map((f) => ({ ...f, match: f.match ?? null })),
    ['id', 'kind', 'match', 'probability', 'count', 'fired'],
  );
}

export async function runCommand(group: string, args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [verb, ...rest] = parsed.positionals;
  const v = parsed.values;
  if (group === 'server') return serverCmd(verb, rest, v);
  if (group === 'lb') return lbCmd(verb, rest, v);
  if (group === 'ipblock') return ipblockCmd(verb, v);
  if (group === 'network') return networkCmd(verb, rest, v);
  if (group === 'faults') return faultsCmd(verb, v);
  throw new UsageError(`unknown command "${group}"; see simcloud --help`);
}
