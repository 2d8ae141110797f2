import { describe, expect, it } from 'vitest';
import { CloudWriteEffect } from '../report.ts';
import { CapabilityFailure } from '../context.ts';
import type { SimEvent } from '../../../simulator/api/schema/events.ts';
import type { ConformanceContext } from '../context.ts';
import { describeChange, judge, lbChanges, storeChanges, worst, writesSummary, WriteLedger, type LbState, type StoreState } from './continuity.ts';

const lb = {
  id: 'lb-1',
  name: 'web',
  status: 'active',
  public_ipv4: '127.17.0.2',
  algorithm: 'round_robin',
  targets: [{ kind: 'server_group', server_group_id: 'grp-1' }],
  labels: { a: '1' },
};

describe('a stored resource change', () => {
  it('is none when only what moves on its own moved', () => {
    expect(describeChange('load_balancer', 'lb-1', lb, { ...lb, status: 'provisioning', locked: true, targets: [...lb.targets] })).toEqual([]);
  });

  it('is an identity change when the resource is created, deleted, renamed or a target is removed', () => {
    expect(describeChange('load_balancer', 'lb-1', undefined, lb)).toEqual([{ effect: CloudWriteEffect.identity, what: 'load balancer lb-1 (web) created' }]);
    expect(describeChange('load_balancer', 'lb-1', lb, undefined)).toEqual([{ effect: CloudWriteEffect.identity, what: 'load balancer lb-1 (web) deleted' }]);
    expect(describeChange('load_balancer', 'lb-1', lb, { ...lb, name: 'web-2' })).toEqual([
      { effect: CloudWriteEffect.identity, what: 'load balancer lb-1 (web): name "web" → "web-2"' },
    ]);
    expect(worst(describeChange('load_balancer', 'lb-1', lb, { ...lb, targets: [] }))).toBe(CloudWriteEffect.identity);
  });

  it('is a setting change for a changed setting or an added member, naming the field', () => {
    const changes = describeChange('load_balancer', 'lb-1', lb, {
      ...lb,
      algorithm: 'least_connections',
      labels: { a: '2' },
      targets: [...lb.targets, { kind: 'ip', ip: '127.0.0.9' }],
    });
    expect(changes.map((c) => c.what)).toEqual([
      'load balancer lb-1 (web): algorithm "round_robin" → "least_connections"',
      'load balancer lb-1 (web): targets member {"kind":"ip","ip":"127.0.0.9"} added',
      'load balancer lb-1 (web): labels.a "1" → "2"',
    ]);
    expect(worst(changes)).toBe(CloudWriteEffect.setting);
  });

  it('keys a nested list of objects with ids by id: the same members in another order are no change', () => {
    const nodes = [
      { id: 100001, address: '127.23.0.3:31961' },
      { id: 100002, address: '127.23.0.4:31961' },
    ];
    const nb = (n: readonly object[]) => ({ ...lb, dialect_attrs: { linode: { configs: [{ id: 100000, nodes: n }] } } });
    expect(describeChange('load_balancer', 'lb-1', nb(nodes), nb([...nodes].reverse()))).toEqual([]);
    expect(describeChange('load_balancer', 'lb-1', nb(nodes), nb([nodes[0]!, { id: 100003, address: '127.23.0.4:31961' }])).map((c) => c.what)).toEqual([
      'load balancer lb-1 (web): dialect_attrs.linode.configs[id=100000].nodes[id=100002].id 100002 → unset',
      'load balancer lb-1 (web): dialect_attrs.linode.configs[id=100000].nodes[id=100002].address "127.23.0.4:31961" → unset',
      'load balancer lb-1 (web): dialect_attrs.linode.configs[id=100000].nodes[id=100003].id unset → 100003',
      'load balancer lb-1 (web): dialect_attrs.linode.configs[id=100000].nodes[id=100003].address unset → "127.23.0.4:31961"',
    ]);
  });

  it('of a network: a route removed is an identity change', () => {
    const net = { id: 'net-1', name: 'c', routes: [{ destination: '10.244.1.0/24', gateway: '127.19.0.3' }] };
    expect(describeChange('network', 'net-1', net, { ...net, routes: [] })[0]?.effect).toBe(CloudWriteEffect.identity);
  });
});

describe('two states of the store', () => {
  const before: StoreState = new Map([['lb-1', { type: 'load_balancer', record: lb }]]);
  const after: StoreState = new Map([
    ['lb-1', { type: 'load_balancer', record: lb }],
    ['lb-2', { type: 'load_balancer', record: { ...lb, id: 'lb-2', name: 'theirs' } }],
  ]);

  it('differ by what was created, unless only what existed before is judged (a neighbour makes its own)', () => {
    expect(storeChanges(before, after).map((c) => c.what)).toEqual(['load balancer lb-2 (theirs) created']);
    expect(storeChanges(before, after, 'existing')).toEqual([]);
  });

  it('count a record being deleted as gone: a deletion the API accepted is no leak, and is a deletion', () => {
    const deleting = (id: string, name: string) => ({ type: 'load_balancer' as const, record: { ...lb, id, name, status: 'deleting' } });
    const theirsDeleting: StoreState = new Map([
      ['lb-1', { type: 'load_balancer', record: lb }],
      ['lb-2', deleting('lb-2', 'theirs')],
    ]);
    expect(storeChanges(before, theirsDeleting)).toEqual([]);
    expect(storeChanges(before, new Map([['lb-1', deleting('lb-1', 'web')]]) as StoreState).map((c) => c.what)).toEqual(['load balancer lb-1 (web) deleted']);
  });
});

describe("a load balancer through the cloud's API", () => {
  const view: LbState = {
    service: 'web',
    vip: '127.17.0.2',
    id: '7',
    name: 'web',
    ports: [80],
    serverIds: ['srv-1', 'srv-2'],
    settings: new Map([['algorithm.type', '"round_robin"']]),
  };

  it('keeps its identity when only a target is added; loses it when recreated, renamed or gone', () => {
    expect(lbChanges([view], [{ ...view, serverIds: ['srv-1', 'srv-2', 'srv-3'] }], 'Hetzner Cloud').map((c) => c.effect)).toEqual([CloudWriteEffect.setting]);
    expect(lbChanges([view], [{ ...view, id: '8' }], 'Hetzner Cloud').map((c) => c.what)).toEqual([
      'the Hetzner Cloud load balancer 7 (web) of Service web: id "7" → "8"',
    ]);
    expect(lbChanges([view], [{ ...view, id: undefined, vip: undefined }], 'Hetzner Cloud').map((c) => c.what)).toEqual([
      'the Hetzner Cloud load balancer 7 (web) of Service web is gone and the Service has no ingress',
    ]);
    expect(lbChanges([view], [{ ...view, settings: new Map([['algorithm.type', '"least_connections"']]) }], 'Hetzner Cloud')[0]?.what).toContain(
      'algorithm.type "round_robin" → "least_connections"',
    );
  });
});

describe('the verdict on a start', () => {
  const write = (
    effect: CloudWriteEffect,
    changes: string[] = [],
  ): { method: string; path: string; status: number; effect: CloudWriteEffect; changes: string[] } => ({
    method: 'PUT',
    path: '/x',
    status: 200,
    effect,
    changes,
  });

  it('passes re-applies, fails an identity change naming the write once, and fails a setting change unless settings may change', () => {
    expect(() => judge([], [write(CloudWriteEffect.none)], false)).not.toThrow();
    const renamed = { effect: CloudWriteEffect.identity, what: 'load balancer lb-1 (web): name "web" → "web-2"' };
    expect(() => judge([renamed], [write(CloudWriteEffect.identity, [renamed.what])], false)).toThrow(
      new CapabilityFailure(`PUT /x identity changed: ${renamed.what}`),
    );
    const setting = { effect: CloudWriteEffect.setting, what: 'algorithm changed' };
    expect(() => judge([setting], [], false)).toThrow('algorithm changed');
    expect(judge([setting], [], true)).toEqual([setting]);
  });

  it('sums the writes up by effect', () => {
    expect(writesSummary([])).toBe('no writes');
    expect(writesSummary([write(CloudWriteEffect.none), write(CloudWriteEffect.none), write(CloudWriteEffect.setting)])).toBe(
      '3 writes (2 re-applied, no effect, 1 setting changed)',
    );
  });
});

describe("the ledger of a CCM's writes", () => {
  const at = (seq: number): { seq: number; time: string } => ({ seq, time: new Date(Date.UTC(2026, 10, 28, 0, 0, seq)).toISOString() });
  const call = (seq: number, id: string, lbId: string): SimEvent => ({
    type: 'api_call',
    ...at(seq),
    method: 'PATCH',
    path: `/v1/load_balancers/${lbId}`,
    status: 200,
    latency_ms: 1,
    project_id: 'prj-1',
    request_id: id,
    caller: 'simcloud-ccm service-lb-controller',
    upstream_method: 'EnsureLoadBalancer',
    error_code: null,
  });
  const renamed = (seq: number, id: string | null, lbId: string): SimEvent =>
    ({
      type: 'resource_change',
      ...at(seq),
      change: 'updated',
      resource_type: 'load_balancer',
      resource_id: lbId,
      project_id: 'prj-1',
      request_id: id,
      resource: { ...lb, id: lbId, name: `${lbId}-renamed` },
    }) as unknown as SimEvent;

  it('gives each of two overlapping writes the changes its own request made, whatever order they answer in', async () => {
    let feed: (e: SimEvent) => void = () => undefined;
    const base = { load_balancers: { 'lb-1': { ...lb, id: 'lb-1', name: 'lb-1' }, 'lb-2': { ...lb, id: 'lb-2', name: 'lb-2' } } };
    const sandbox = { subscribe: (h: (e: SimEvent) => void) => ((feed = h), () => undefined), admin: { snapshot: () => Promise.resolve(base) } };
    const ledger = await WriteLedger.start({ sandbox } as unknown as Pick<ConformanceContext, 'sandbox'>);
    ledger.from(0);
    // Both commits land before either answer is sent, and the second request answers first; a GET answers in between.
    for (const e of [
      renamed(1, 'req-a', 'lb-1'),
      renamed(2, 'req-b', 'lb-2'),
      { ...call(3, 'req-g', 'lb-1'), method: 'GET' },
      call(4, 'req-b', 'lb-2'),
      call(5, 'req-a', 'lb-1'),
    ] as SimEvent[])
      feed(e);
    expect(ledger.writes().map((w) => [w.path, w.effect, w.changes])).toEqual([
      ['/v1/load_balancers/lb-2', CloudWriteEffect.identity, ['load balancer lb-2 (lb-2): name "lb-2" → "lb-2-renamed"']],
      ['/v1/load_balancers/lb-1', CloudWriteEffect.identity, ['load balancer lb-1 (lb-1): name "lb-1" → "lb-1-renamed"']],
    ]);
  });

  it("counts no OAuth2 token grant as a write (Brightbox's CCM logs in again after a restart)", async () => {
    let feed: (e: SimEvent) => void = () => undefined;
    const sandbox = {
      subscribe: (h: (e: SimEvent) => void) => ((feed = h), () => undefined),
      admin: { snapshot: () => Promise.resolve({ load_balancers: {} }) },
    };
    const ledger = await WriteLedger.start({ sandbox } as unknown as Pick<ConformanceContext, 'sandbox'>);
    ledger.from(0);
    for (const path of ['/brightbox/token/', '/brightbox/token', '/pnap/auth/realms/BMC/protocol/openid-connect/token'])
      feed({ ...call(1, 'req-t', 'lb-1'), method: 'POST', path } as SimEvent);
    feed(call(2, 'req-a', 'lb-1'));
    expect(ledger.writes().map((w) => w.path)).toEqual(['/v1/load_balancers/lb-1']);
  });

  it('blames no write for a change no request made', async () => {
    let feed: (e: SimEvent) => void = () => undefined;
    const sandbox = {
      subscribe: (h: (e: SimEvent) => void) => ((feed = h), () => undefined),
      admin: { snapshot: () => Promise.resolve({ load_balancers: { 'lb-1': { ...lb, id: 'lb-1', name: 'lb-1' } } }) },
    };
    const ledger = await WriteLedger.start({ sandbox } as unknown as Pick<ConformanceContext, 'sandbox'>);
    ledger.from(0);
    for (const e of [renamed(1, null, 'lb-1'), call(2, 'req-a', 'lb-1')]) feed(e);
    expect(ledger.writes().map((w) => w.effect)).toEqual([CloudWriteEffect.none]);
  });
});
