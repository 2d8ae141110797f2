// The differential test's own logic without a cluster: the deviations table, globs, the verdict (an
// unlisted difference and a stale row both fail) and role normalisation.
import { describe, expect, it } from 'vitest';
import { compare, differentialTable, globToRegExp, parseDeviations, readDeviations } from './deviations.ts';
import { flatten, Roles } from './roles.ts';

const table = (rows: string): string =>
  `text\n<!-- differential-deviations:start -->\n| id | leaves | why |\n|---|---|---|\n${rows}\n<!-- differential-deviations:end -->\n`;

describe('deviations table', () => {
  it('reads ids, backticked globs and reasons between the markers', () => {
    expect(parseDeviations(table('| D1 | `calls/a/**`, `calls/b/*` | the probe names the binary |'))).toEqual([
      { id: 'D1', paths: ['calls/a/**', 'calls/b/*'], why: 'the probe names the binary' },
    ]);
  });

  it('rejects a row without a glob, a duplicate id and a missing marker, naming what to fix', () => {
    expect(() => parseDeviations(table('| D1 | none | a reason long enough |'))).toThrow(/paths/);
    expect(() => parseDeviations(table('| D1 | `a` | a reason long enough |\n| D1 | `b` | a reason long enough |'))).toThrow(/D1 is used twice/);
    expect(() => parseDeviations('no table')).toThrow(/markers/);
  });

  it('deploy/README.md holds a valid table', () => {
    expect(readDeviations().length).toBeGreaterThan(0);
  });

  it('globs: * stays within a segment, ** crosses segments', () => {
    expect(globToRegExp('calls/*/GET /v1/servers').test('calls/x/GET /v1/servers')).toBe(true);
    expect(globToRegExp('calls/*/GET /v1/servers').test('calls/x/y/GET /v1/servers')).toBe(false);
    expect(globToRegExp('calls/x/**').test('calls/x/GET /v1/servers/*')).toBe(true);
  });
});

describe('verdict', () => {
  const deviations = parseDeviations(
    table('| D1 | `calls/ours-only/**` | only ours makes this call |\n| D2 | `node/*/label/gone` | a label that no longer differs |'),
  );

  it('a T row (timing) covers a difference when it occurs and is never stale', () => {
    const timing = parseDeviations(table('| T1 | `event/**/UpdateLoadBalancerFailed` | a node-sync pass may race the first Ensure |'));
    const failed = new Map([['event/Service/default/web/service-controller/Warning/UpdateLoadBalancerFailed', 'no server group yet']]);
    expect(compare(failed, new Map(), timing)).toMatchObject({ unlisted: [], stale: [] });
    expect(compare(new Map(), new Map(), timing)).toMatchObject({ unlisted: [], stale: [] });
  });

  it('covers a listed difference, fails an unlisted one and reports a row that no longer differs', () => {
    const ours = new Map([
      ['calls/ours-only/GET /v1/servers', 'used'],
      ['node/n1/providerID', 'simcloud://a'],
      ['node/n1/label/x', '1'],
    ]);
    const upstream = new Map([
      ['node/n1/providerID', 'simcloud://b'],
      ['node/n1/label/x', '1'],
    ]);
    const v = compare(ours, upstream, deviations);
    expect(v.differences.map((d) => [d.path, d.deviation])).toEqual([
      ['calls/ours-only/GET /v1/servers', 'D1'],
      ['node/n1/providerID', undefined],
    ]);
    expect(v.unlisted.map((d) => d.path)).toEqual(['node/n1/providerID']);
    expect(v.stale.map((d) => d.id)).toEqual(['D2']);
    expect(differentialTable(v)).toMatch(/UNLISTED\s+node\/n1\/providerID\s+simcloud:\/\/a\s+simcloud:\/\/b/);
    expect(differentialTable(v)).toMatch(/stale deviation D2/);
  });
});

describe('roles', () => {
  it('replaces whole values only: a known address never eats the start of a longer one', () => {
    const roles = new Roles();
    roles.add('127.0.0.1', 'server(a).public_ipv4');
    expect(roles.apply('127.0.0.1 and 127.0.0.12 and 127.0.0.1/32')).toBe('server(a).public_ipv4 and 127.0.0.12 and server(a).public_ipv4/32');
  });

  it('names node ports by their Service, as numbers and as text, and drops timestamps when flattening', () => {
    const roles = new Roles();
    roles.services([{ metadata: { namespace: 'default', name: 'web', uid: 'u-1' }, spec: { ports: [{ port: 80, nodePort: 31234 }] } }]);
    const leaves = flatten(roles, { rules: [{ ports: '31234' }], services: [{ destination_port: 31234 }], created: '2026-01-01T00:00:00Z' }, 'x');
    expect([...leaves]).toEqual([
      ['x/rules[0]/ports', 'service(default/web).nodePort(80)'],
      ['x/services[0]/destination_port', 'service(default/web).nodePort(80)'],
    ]);
  });
});
